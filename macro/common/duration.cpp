#include "macro/common/duration.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "macro/common/usage_error.hpp"

namespace gatebench::common {
namespace {

bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

[[noreturn]] void fail(std::string_view what, std::string_view text, std::string_view problem) {
  throw UsageError(std::string(what) + ": '" + std::string(text) + "' " + std::string(problem));
}

}  // namespace

double parse_duration_s(std::string_view text, std::string_view what) {
  std::size_t unit_at = text.size();
  while (unit_at > 0 && is_letter(text[unit_at - 1])) --unit_at;
  const std::string_view unit = text.substr(unit_at);
  double scale = 0;
  if (unit.empty() || unit == "s") {
    scale = 1;
  } else if (unit == "ms") {
    scale = 1e-3;
  } else if (unit == "us") {
    scale = 1e-6;
  } else if (unit == "m") {
    scale = 60;
  } else if (unit == "h") {
    scale = 3600;
  } else {
    throw UsageError(std::string(what) + ": unknown unit '" + std::string(unit) + "' in '" +
                     std::string(text) + "' (use us, ms, s, m or h)");
  }
  const std::string_view number = text.substr(0, unit_at);
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() ||
      !std::isfinite(value)) {
    fail(what, text, "is not a duration like 20s, 500ms or 1m");
  }
  if (value < 0) fail(what, text, "is negative");
  const double seconds = value * scale;
  if (seconds > kMaxDurationS) fail(what, text, "is longer than 30 days");
  return seconds;
}

std::uint64_t parse_duration_ns(std::string_view text, std::string_view what) {
  return static_cast<std::uint64_t>(std::llround(parse_duration_s(text, what) * 1e9));
}

}  // namespace gatebench::common
