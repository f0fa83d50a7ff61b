// Cache-Control response directives (RFC 9111 5.2.2): the ones a shared cache acts on.
//
// Contract: pure, no allocation. The input is every Cache-Control line of one response (a list
// split over lines is one list, RFC 9110 5.3). Directive names are case-insensitive; arguments
// are a token or a quoted-string (both forms accepted for every directive). Empty list elements
// are ignored, unknown directives too. A line that is not a list of directives (a name that is
// not a token, an unterminated quoted-string, text after an argument) makes the whole result
// `malformed`: a cache that guesses what a broken header meant could store what its origin
// said not to store.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace gatebench::cache {

// Largest delta-seconds kept: RFC 9111 1.2.2 (larger values and overflows read as 2^31).
inline constexpr std::uint32_t kMaxDeltaSeconds = 2147483648u;

struct CacheControl {
  bool no_store = false;
  bool no_cache = false;    // with or without a field-name argument
  bool is_private = false;  // with or without a field-name argument
  bool is_public = false;
  bool must_revalidate = false;
  bool has_max_age = false;  // the first max-age; its value is max_age when max_age_valid
  bool max_age_valid = false;
  bool has_s_maxage = false;  // the first s-maxage, likewise
  bool s_maxage_valid = false;
  bool malformed = false;
  std::uint32_t max_age = 0;
  std::uint32_t s_maxage = 0;
};

CacheControl parse_cache_control(std::span<const std::string_view> lines) noexcept;

// delta-seconds: 1*DIGIT, clamped to kMaxDeltaSeconds; false for anything else (empty, sign,
// space, non-digit).
bool parse_delta_seconds(std::string_view s, std::uint32_t& out) noexcept;

}  // namespace gatebench::cache
