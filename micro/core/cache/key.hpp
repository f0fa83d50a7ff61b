// The cache key of a request: method, host and target (path and query), hashed in one pass
// without building a string. Vary is not part of the primary key: a stored entry names the
// request headers it varies on and the store compares their values (store.hpp).
//
// Contract: no allocation, no I/O. The host is compared and hashed ASCII case-insensitively (DNS
// names are); the target byte for byte (paths and queries are case-sensitive and the cache does
// not normalise percent-encoding, so two spellings of one resource are two entries, never one
// entry answering a request it was not stored for).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace gatebench::cache {

// Only GET and HEAD responses are cached; every other method is kOther (a bypass).
enum class Method : std::uint8_t { kGet, kHead, kOther };

// "GET" -> kGet, "HEAD" -> kHead (methods are case-sensitive), anything else -> kOther.
Method method_from(std::string_view method) noexcept;

// One request header line, as the request-head parser gives it (value without surrounding OWS).
struct Header {
  std::string_view name;
  std::string_view value;
};

struct RequestKey {
  Method method = Method::kGet;
  std::string_view host;            // the Host header or authority, any case
  std::string_view target;          // origin-form: path and query, as received
  std::span<const Header> headers;  // the request's header lines, for Vary
};

// The 64-bit hash of method, host (lower-cased) and target. Lengths are mixed in, so no two
// distinct (host, target) splits of the same bytes collide by construction.
std::uint64_t key_hash(const RequestKey& key) noexcept;

// ASCII lower case of eight packed bytes at once (bytes >= 0x80 unchanged).
constexpr std::uint64_t lower_ascii8(std::uint64_t w) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  const std::uint64_t seven = w & (0x7F * kOnes);
  const std::uint64_t at_least_a = seven + (0x80 - 'A') * kOnes;   // high bit: byte >= 'A'
  const std::uint64_t above_z = seven + (0x80 - 'Z' - 1) * kOnes;  // high bit: byte > 'Z'
  const std::uint64_t upper = (at_least_a ^ above_z) & ~w & (0x80 * kOnes);
  return w | (upper >> 2);
}

// True when `s` equals `lower` (already lower case) ignoring ASCII case in `s`.
bool equals_lower(std::string_view s, std::string_view lower) noexcept;

// Copies `s` lower-cased into out (out.size() >= s.size()).
void copy_lower(std::string_view s, std::span<char> out) noexcept;

}  // namespace gatebench::cache
