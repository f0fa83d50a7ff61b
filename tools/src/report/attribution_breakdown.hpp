// Where the remainder of a cost attribution goes: the macro difference in instructions per
// request split over function groups (the micro hot path, parsing, copying, allocation, libc and
// system-call wrappers, logging, OpenSSL, the gateway's own code, other), from the callgrind.out
// files of the N and 2N runs of both scenarios (gatebench-macro --instructions;
// docs/attribution.md): per function (I(2N) − I(N)) / N of the scenario minus the baseline's.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tools/src/profile/cost_groups.hpp"
#include "tools/src/report/report_model.hpp"

namespace gatebench::tools {

struct AttributionBreakdown {
  const Attribution* row = nullptr;
  std::map<std::string_view, double> groups;  // scenario − baseline, per request
  std::vector<FunctionDelta> top;  // largest |Δ| outside the hot path, scenario − baseline
  std::string error;               // why there is no breakdown
  // The micro instructions account for the difference (agrees_within).
  std::optional<bool> agrees;
};

inline constexpr double kAgreement = 0.20;
// Instructions per request that a count moves by with the time of day inside the run (one
// access-log datagram header per 100 records is at most 7, docs/attribution.md): a feature
// whose difference is smaller than that has no share to agree within.
inline constexpr double kAgreementFloor = 10;

// |remainder| ≤ 20% of |difference|, or ≤ kAgreementFloor.
bool agrees_within(double difference, double remainder);

// One breakdown per attribution row with instructions on both sides. `top` functions per row.
std::vector<AttributionBreakdown> attribution_breakdowns(const ReportModel& m, std::size_t top);

std::string breakdown_markdown(const ReportModel& m, const std::vector<AttributionBreakdown>& rows);
nlohmann::json breakdown_json(const ReportModel& m, const std::vector<AttributionBreakdown>& rows);

}  // namespace gatebench::tools
