// report.json (gatebench.report/1, docs/report.md) as one type: `gatebench report` fills it from
// its model (tools/src/report/report_json.cpp) and writes it with to_json; `compare`, `history
// add` and `results` read it with report_file_from_json. The conversion both ways is here and
// nowhere else; its parts are the types of the files they come from (InstructionRun,
// common::MacroResult) where the report embeds one.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
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
  // The report's tables over the parts above (docs/report.md), written for other programs: no
  // gatebench reader interprets them, so they stay JSON values (null when the report has none).
  nlohmann::json cost_attribution, handshakes, cache_hit_ratio, workloads;
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
