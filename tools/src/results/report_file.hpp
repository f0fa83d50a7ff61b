// report.json (gatebench.report/1, docs/report.md) as one type: `gatebench report` fills it from
// its model (tools/src/report/report_json.cpp) and writes it with to_json; `compare`, `history
// add` and `results` read it with report_file_from_json. The conversion both ways is here and
// nowhere else; its parts are the types of the files they come from (InstructionRun,
// common::MacroResult) where the report embeds one, and the report's own tables otherwise.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "macro/common/json_field.hpp"
#include "macro/common/macro_result.hpp"
#include "tools/src/results/results.hpp"

namespace gatebench::tools {

inline constexpr const char* kReportSchema = "gatebench.report/1";

// The medians of a benchmark's repetitions (per iteration).
struct ReportMicroMedian {
  double cpu_time_ns = 0, real_time_ns = 0;
  std::optional<double> items_per_second, bytes_per_second;  // null when not counted
};

// What the report derived from a benchmark that ran without an error.
struct ReportMicroFigures {
  ReportMicroMedian median;
  double cv = 0;         // of the CPU time
  double ns_per_op = 0;  // per item when the benchmark counts items, else per iteration
  std::optional<double> vs_gatecore, vs_limit;  // null when there is nothing to divide by
  std::string limit;                            // the limit's benchmark; null when empty
  // A gatecore row's naive peers with a lower ns_per_op; absent when nothing compares.
  std::optional<std::vector<std::string>> slower_than_naive;
};

// One benchmark of "micro": every repetition's figures, then (without an error) what the report
// derived from them.
struct ReportMicroRow {
  std::string name, hotpath, impl, case_name;  // case_name: "case"
  std::size_t repetitions = 0;
  std::vector<double> real_time_ns, cpu_time_ns, items_per_second, bytes_per_second;
  std::string error;                          // absent when empty
  std::optional<ReportMicroFigures> figures;  // absent with an error or without repetitions
};

struct ReportMicro {
  nlohmann::json context = nlohmann::json::object();  // Google Benchmark's, as read
  std::vector<ReportMicroRow> benchmarks;
};

// "macro_instructions": the exact instructions per request of each scenario, as the report read
// them from gatebench.macro_instructions/1 (env and method as that file has them).
struct ReportScenarioInstructions {
  std::string name, status, reason;
  std::optional<double> instructions_per_request;  // null unless status is ok
};

struct ReportMacroInstructions {
  nlohmann::json env = nlohmann::json::object();
  nlohmann::json method = nlohmann::json::object();
  std::vector<ReportScenarioInstructions> scenarios;
};

// "cost_attribution": what a feature costs, the difference of two scenarios beside the micro
// benchmarks of its hot paths (docs/report.md), in CPU time and in instructions.
struct ReportAttributionInstructions {
  std::optional<double> scenario_per_request, baseline_per_request, difference_per_request;
  std::optional<double> syscalls_scenario_per_request, syscalls_baseline_per_request,
      syscalls_difference_per_request;
  std::vector<std::pair<std::string, double>> micro;  // benchmark, instructions per op
  bool micro_scaled_by_counter = false;
  std::vector<std::string> not_attributable;
  std::optional<double> micro_per_request, remainder_per_request, remainder_share;
};

struct ReportAttribution {
  std::string label, scenario, baseline;
  std::optional<double> scenario_cpu_us_per_request, baseline_cpu_us_per_request,
      difference_cpu_us_per_request;
  std::vector<std::pair<std::string, double>> micro;  // benchmark, ns per op
  std::vector<std::string> unmatched_patterns;
  std::optional<double> micro_us_per_request, explained_share;
  std::optional<bool> resolved;  // null without intervals
  std::string note;
  std::string counter;  // null when empty
  ReportAttributionInstructions instructions;
};

// "handshakes": a scenario with a new connection per request beside the micro floor.
struct ReportHandshakes {
  std::string scenario, status;
  bool limited_by_harness = false;
  std::optional<double> per_s, full, resumed;
  std::optional<double> server_cpu_us_per_handshake;
  std::optional<MacroInterval> server_cpu_us_per_handshake_interval;
  std::optional<double> load_cpu_us_per_handshake;
  std::optional<std::string> floor_benchmark;  // null without a floor
  std::optional<double> floor_server_us, vs_floor, floor_client_us, load_vs_client_floor;
};

// "cache_hit_ratio": a scenario's hit ratio against the range it expects, and each round's.
struct ReportCacheRound {
  int round = 1;
  std::string status;
  std::optional<double> hit_ratio;
  std::string verdict;
};

struct ReportCacheHits {
  std::string scenario, status;
  std::optional<std::pair<double, double>> expected;
  std::optional<double> hit_ratio;
  std::optional<MacroInterval> hit_ratio_interval;
  std::string verdict;
  std::vector<int> verdict_rounds;
  std::vector<ReportCacheRound> rounds;
};

// "workloads": the targets measured on one workload, as the report's tables show them.
struct ReportWorkloadRow {
  std::string target, scenario, status, baseline;
  std::optional<double> rps, rps_per_gateway_cpu, p50_us, p90_us, p99_us, cpu_percent, peak_mb;
  std::optional<double> vs_nginx;
  std::optional<MacroInterval> vs_nginx_interval;
  std::optional<double> errors;
  nlohmann::json images;  // the scenario's images under test; null when it ran none
};

struct ReportWorkload {
  std::string workload;
  std::vector<std::string> baselines;
  std::vector<ReportWorkloadRow> rows;
};

// The files the report was made from; null for a part it had none of.
struct ReportSources {
  std::optional<std::string> micro, macro, instructions, macro_instructions;
};

struct ReportFile {
  std::string generator;  // "gatebench <version>"
  ReportSources inputs;
  // Each part is null when the report had no input for it.
  std::optional<ReportMicro> micro;
  std::optional<InstructionRun> instructions;  // gatebench.instructions/1 without its schema
  std::optional<common::MacroResult> macro;    // gatebench.macro/2 as its one writer writes it
  std::optional<ReportMacroInstructions> macro_instructions;
  // The report's tables over the parts above (docs/report.md); each null when the report had
  // none of the parts it needs.
  std::optional<std::vector<ReportAttribution>> cost_attribution;
  std::optional<std::vector<ReportHandshakes>> handshakes;
  std::optional<std::vector<ReportCacheHits>> cache_hit_ratio;
  std::optional<std::vector<ReportWorkload>> workloads;
};

nlohmann::json to_json(const ReportFile& report);
// Throws common::UsageError naming the file and the JSON pointer of the first field that is
// wrong (a schema other than kReportSchema among them). What a part leaves out keeps the type's
// default.
ReportFile report_file_from_json(const common::JsonField& root);

// The micro part as compare and history read micro.json: each benchmark's samples.
MicroRun micro_run_from(const ReportMicro& micro);
// The macro_instructions part as the file it was read from (history adds it as one).
common::MacroCountFile macro_count_from(const ReportMacroInstructions& counts);

}  // namespace gatebench::tools
