#pragma once
// wrk --latency text output (and the one line our done() hook adds) to a LoadResult.
#include <string>
#include <string_view>

#include "macro/driver/results/load_result.hpp"

namespace gatebench::macro {

// Prefix of the line written by wrk_done_script(): exact percentiles in microseconds.
inline constexpr std::string_view kWrkLatencyTag = "gatebench-latency-us";

// A Lua script for `wrk -s`: prints the p50/p90/p99/p99.9/mean latency in microseconds from wrk's
// own histogram (the --latency table has no p99.9). It defines no request() or response(), so
// wrk keeps its pre-built request path.
std::string wrk_done_script();

// Throws LoadParseError when the summary lines are missing (wrk failed or was interrupted).
LoadResult parse_wrk_output(std::string_view text);

// "289.00us", "1.23ms", "2.5s", "1.00m" to microseconds, read with the common duration syntax
// (macro/common/duration.hpp) but with the unit required, as wrk always prints one; nothing when
// unparseable.
std::optional<double> parse_wrk_duration_us(std::string_view text);

}  // namespace gatebench::macro
