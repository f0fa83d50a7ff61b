// HTTP dates (RFC 9110 5.6.7) for Expires and Date: the preferred IMF-fixdate
// ("Sun, 06 Nov 1994 08:49:37 GMT") and the two obsolete forms every recipient must accept,
// RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6 08:49:37 1994").
//
// Contract: pure, no allocation. The whole value must be one date (no surrounding text; the
// header parser has already removed the surrounding whitespace). The weekday must be a valid name
// but is not checked against the date; the date must exist (no 31 Nov, 29 Feb only in leap
// years); seconds 0..60 (a leap second reads as :59 plus one).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gatebench::cache {

// Seconds since 1970-01-01T00:00:00Z, or nullopt when `value` is not a date. An RFC 850 two-digit
// year is the year with those last two digits that is not more than 50 years after `now_s`.
std::optional<std::int64_t> parse_http_date(std::string_view value, std::int64_t now_s) noexcept;

// The IMF-fixdate of `t` into out (29 bytes); what the Date and Expires tests write.
void format_imf_fixdate(std::int64_t t, char (&out)[29]) noexcept;

}  // namespace gatebench::cache
