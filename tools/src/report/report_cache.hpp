// The report's cache hit ratios: per scenario with a cache check (macro.json `expect_hit_ratio`,
// `hit_ratio` per round and as the median of the ok rounds; docs/scenarios.md) the driver's
// figures and a verdict per round and per scenario, decided once so that report.json, report.md
// and report.html say the same.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/src/results/results.hpp"

namespace gatebench::tools {

enum class CacheVerdict {
  met,           // every counted ratio inside the expected range
  missed,        // a ratio outside it (the driver failed that round)
  not_counted,   // the load counted no response with the cache's header
  not_measured,  // no ratio: the round failed before its load's figures, or ran none
  skipped,       // the scenario was skipped (no rounds ran)
  no_range,      // a ratio without an expected range to hold it to
};
const char* verdict_text(CacheVerdict v);

struct CacheRoundRow {
  int round = 1;
  std::string status;
  std::optional<double> hit_ratio;
  CacheVerdict verdict = CacheVerdict::not_measured;
};

struct CacheHitRow {
  const MacroScenario* scenario = nullptr;
  std::optional<std::pair<double, double>> expected;
  std::optional<double> hit_ratio;  // the driver's median over the ok rounds
  const MacroInterval* interval = nullptr;
  std::vector<CacheRoundRow> rounds;
  CacheVerdict verdict = CacheVerdict::not_measured;
  std::vector<int> verdict_rounds;  // the rounds that gave a missed / not-counted verdict
};

// One row per scenario with an expected range or a hit ratio, in macro.json order. A round's
// verdict is the driver's where its reason names the cache check ("hit ratio ... outside the
// expected", "no response counted for the cache's ..."), else its ratio against the range.
std::vector<CacheHitRow> cache_hit_rows(const MacroRun& run);

}  // namespace gatebench::tools
