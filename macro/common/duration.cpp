#include "macro/common/duration.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
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

namespace {

enum class Problem { none, unit, number, negative, too_long };

struct Parsed {
  double seconds = 0;
  Problem problem = Problem::none;
  std::string_view unit;
};

// One reading for both entry points: the throwing one for command lines and files, the quiet one
// for the output of other programs.
Parsed parse(std::string_view text) {
  Parsed out;
  std::size_t unit_at = text.size();
  while (unit_at > 0 && is_letter(text[unit_at - 1])) --unit_at;
  out.unit = text.substr(unit_at);
  double scale = 0;
  if (out.unit.empty() || out.unit == "s") {
    scale = 1;
  } else if (out.unit == "ms") {
    scale = 1e-3;
  } else if (out.unit == "us") {
    scale = 1e-6;
  } else if (out.unit == "m") {
    scale = 60;
  } else if (out.unit == "h") {
    scale = 3600;
  } else {
    out.problem = Problem::unit;
    return out;
  }
  const std::string_view number = text.substr(0, unit_at);
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() ||
      !std::isfinite(value)) {
    out.problem = Problem::number;
  } else if (value < 0) {
    out.problem = Problem::negative;
  } else if (value * scale > kMaxDurationS) {
    out.problem = Problem::too_long;
  }
  out.seconds = value * scale;
  return out;
}

}  // namespace

double parse_duration_s(std::string_view text, std::string_view what) {
  const Parsed p = parse(text);
  switch (p.problem) {
    case Problem::none:
      break;
    case Problem::unit:
      throw UsageError(std::string(what) + ": unknown unit '" + std::string(p.unit) + "' in '" +
                       std::string(text) + "' (use us, ms, s, m or h)");
    case Problem::number:
      fail(what, text, "is not a duration like 20s, 500ms or 1m");
    case Problem::negative:
      fail(what, text, "is negative");
    case Problem::too_long:
      fail(what, text, "is longer than 30 days");
  }
  return p.seconds;
}

std::optional<double> duration_s_if_valid(std::string_view text) {
  const Parsed p = parse(text);
  if (p.problem != Problem::none) return std::nullopt;
  return p.seconds;
}

std::uint64_t parse_duration_ns(std::string_view text, std::string_view what) {
  return static_cast<std::uint64_t>(std::llround(parse_duration_s(text, what) * 1e9));
}

std::string duration_text(double seconds) {
  char text[32];
  if (seconds < 90)
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 2 * 3600)
    std::snprintf(text, sizeof text, "%.1f min", seconds / 60);
  else
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  return text;
}

std::string duration_arg(double seconds) {
  const long long ms = std::max(1LL, std::llround(seconds * 1000));
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

}  // namespace gatebench::common
