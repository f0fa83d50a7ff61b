#include "tools/src/report/report_cache.hpp"

#include <algorithm>
#include <string_view>

namespace gatebench::tools {

namespace {

// The driver's reasons for a round failed by its cache check (macro/driver/plan/cache_check.cpp).
constexpr std::string_view kOutsideRange = "hit ratio ";
constexpr std::string_view kNothingCounted = "no response counted for the cache's ";

CacheVerdict against_range(const std::optional<double>& ratio,
                           const std::optional<std::pair<double, double>>& expected) {
  if (!ratio) return CacheVerdict::not_measured;
  if (!expected) return CacheVerdict::no_range;
  return *ratio >= expected->first && *ratio <= expected->second ? CacheVerdict::met
                                                                 : CacheVerdict::missed;
}

CacheVerdict round_verdict(const MacroRound& r,
                           const std::optional<std::pair<double, double>>& expected) {
  if (r.reason.starts_with(kOutsideRange)) return CacheVerdict::missed;
  if (r.reason.starts_with(kNothingCounted)) return CacheVerdict::not_counted;
  return against_range(r.hit_ratio, expected);
}

void decide_scenario(CacheHitRow& row) {
  const MacroScenario& s = *row.scenario;
  if (s.status == "skipped" && row.rounds.empty()) {
    row.verdict = CacheVerdict::skipped;
    return;
  }
  if (row.rounds.empty()) {
    row.verdict = against_range(row.hit_ratio, row.expected);
    return;
  }
  // The worst round decides: one round outside the range is a miss whatever the others did.
  for (CacheVerdict v : {CacheVerdict::missed, CacheVerdict::not_counted, CacheVerdict::met,
                         CacheVerdict::no_range}) {
    for (const auto& r : row.rounds)
      if (r.verdict == v) row.verdict_rounds.push_back(r.round);
    if (!row.verdict_rounds.empty()) {
      row.verdict = v;
      if (v == CacheVerdict::met || v == CacheVerdict::no_range) row.verdict_rounds.clear();
      return;
    }
  }
  row.verdict = CacheVerdict::not_measured;
}

}  // namespace

const char* verdict_text(CacheVerdict v) {
  switch (v) {
    case CacheVerdict::met:
      return "met";
    case CacheVerdict::missed:
      return "missed";
    case CacheVerdict::not_counted:
      return "not counted";
    case CacheVerdict::not_measured:
      return "not measured";
    case CacheVerdict::skipped:
      return "skipped";
    case CacheVerdict::no_range:
      return "no range";
  }
  return "?";
}

std::vector<CacheHitRow> cache_hit_rows(const MacroRun& run) {
  std::vector<CacheHitRow> out;
  for (const auto& s : run.scenarios) {
    const bool any_round_ratio =
        std::any_of(s.rounds.begin(), s.rounds.end(),
                    [](const MacroRound& r) { return r.hit_ratio.has_value(); });
    if (!s.expect_hit_ratio && !s.hit_ratio && !any_round_ratio) continue;
    CacheHitRow row;
    row.scenario = &s;
    row.expected = s.expect_hit_ratio;
    row.hit_ratio = s.hit_ratio;
    row.interval = s.hit_ratio ? s.interval("hit_ratio") : nullptr;
    for (const auto& r : s.rounds)
      row.rounds.push_back({r.round, r.status, r.hit_ratio, round_verdict(r, s.expect_hit_ratio)});
    decide_scenario(row);
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace gatebench::tools
