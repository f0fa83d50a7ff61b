// "What each feature costs": every attribution row whose baseline is the default host
// (gateway-default) — the ablation scenarios (macro/scenarios/ablation-*.json: no feature, one
// feature at a time, then all of them, each on a host named like default.test), queue, challenge,
// TLS keep-alive and the protected host — as one table and a bar chart (docs/attribution.md).
#pragma once

#include <vector>

#include "tools/src/report/report_model.hpp"
#include "tools/src/report/report_tables.hpp"
#include "tools/src/report/svg_chart.hpp"

namespace gatebench::tools {

inline constexpr const char* kAblationBaseline = "gateway-default";

// No rows when neither macro.json nor instructions.json holds a feature scenario.
ReportTable ablation_table(const ReportModel& m);

// One bar per feature: its instructions per request over the default host's when both were
// counted, else its CPU µs per request difference; `instructions` says which.
struct AblationBars {
  bool instructions = false;
  std::vector<Bar> bars;
};
AblationBars ablation_bars(const ReportModel& m);

}  // namespace gatebench::tools
