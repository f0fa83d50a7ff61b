#pragma once
// nghttp2's h2load text output (`-D` timing-based runs, docs/load.md) to a LoadResult, as
// wrk_output.* does for wrk: req/s, completed requests, failures, status classes and the mean
// time per request. h2load prints no latency percentiles (min, max, mean and sd only), so p50 to
// p99.9 stay empty.
#include <string>
#include <string_view>

#include "macro/driver/results/load_result.hpp"

namespace gatebench::macro {

// Counts kept in LoadResult::counts: "h2load_started", "h2load_succeeded", "h2load_failed",
// "h2load_errored", "h2load_timeout", "status_2xx" ... "status_5xx". requests = done (any
// status); errors = failed (non-2xx/3xx statuses and requests that got no response, timeouts
// included). Throws LoadParseError when the summary lines are missing or unreadable.
LoadResult parse_h2load_output(std::string_view text);

}  // namespace gatebench::macro
