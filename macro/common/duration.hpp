// The one duration syntax of every gatebench command line: a number with an optional unit,
// us, ms, s, m or h; a bare number is seconds ("20", "20s", "500ms", "1.5m", "250us").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gatebench::common {

// Longest duration accepted, so that nanoseconds always fit and a typo such as "99999h" is caught.
inline constexpr double kMaxDurationS = 30.0 * 24 * 3600;

// Throws UsageError naming `what` (the option or field) when `text` is not a duration.
std::uint64_t parse_duration_ns(std::string_view text, std::string_view what);
double parse_duration_s(std::string_view text, std::string_view what);
// The same syntax without an exception: nothing when `text` is not a duration. For reading the
// output of other programs (wrk's "1.23ms"), where a bad value is not the user's input.
std::optional<double> duration_s_if_valid(std::string_view text);

// How long a run takes or has left, for people: "45 s", "12.5 min", "2.1 h".
std::string duration_text(double seconds);

// A duration for another program's command line, in the syntax above, which gatebench-load and
// h2load both read: whole seconds as "20s", anything else in whole milliseconds ("1500ms"), at
// least "1ms" (0 would mean "no limit" to some tools). wrk takes whole seconds only: round up
// first.
std::string duration_arg(double seconds);

}  // namespace gatebench::common
