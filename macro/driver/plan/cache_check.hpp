#pragma once
// A scenario's "cache" block: which response header says whether a cache answered, which of its
// values are hits, and the hit ratio a round must reach (docs/scenarios.md). The driver asks
// gatebench-load to count that header (--count-header) and judges each round by the share of
// hits among the responses it counted.
#include <optional>
#include <string>
#include <vector>

#include "macro/common/json_field.hpp"
#include "macro/driver/results/load_result.hpp"

namespace gatebench::macro {

struct CacheCheck {
  std::string status_header;  // as written in the scenario (X-Cache-Status)
  std::vector<std::string> hit_values;
  double expect_lo = 0, expect_hi = 1;  // the range a round's hit ratio must fall in
};

// Throws ScenarioError (common::UsageError) naming the file and field.
CacheCheck parse_cache_check(const common::JsonField& f);

// Lower case, as gatebench-load's --count-header keys its counts.
std::string counted_name(const CacheCheck& check);

// Responses whose header value is one of the hit values over every response counted (absent and
// other values included); nothing when the generator counted no response for that header.
std::optional<double> hit_ratio(const CacheCheck& check, const LoadResult& load);

// Why a round fails its cache check ("hit ratio 0.4210 outside the expected [0.95, 1]"), or
// nothing when the ratio is in range.
std::optional<std::string> hit_ratio_failure(const CacheCheck& check,
                                             const std::optional<double>& ratio);

}  // namespace gatebench::macro
