// What the report shows, computed once from the inputs so report.json, report.md and report.html
// never disagree: per-benchmark medians and ratios within a hotpath/case, per-scenario CPU cost
// per request, and the cost attribution of scenario differences to micro hot paths.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/src/report/report_cache.hpp"
#include "tools/src/report/report_mix.hpp"
#include "tools/src/results/macro_instructions.hpp"
#include "tools/src/results/micro_counters.hpp"
#include "tools/src/results/results.hpp"

namespace gatebench::tools {

struct BenchmarkName {
  std::string hotpath, impl, case_name;  // "tls/handshake" -> impl "", case "handshake"
};
BenchmarkName split_benchmark_name(const std::string& name);

struct MicroRow {
  const MicroBenchmark* bench = nullptr;
  BenchmarkName parts;
  std::size_t repetitions = 0;
  double cpu_ns = 0, real_ns = 0;          // medians per iteration
  double cv = 0;                           // coefficient of variation of cpu time
  std::optional<double> items_per_second;  // median
  std::optional<double> bytes_per_second;
  double ns_per_op = 0;  // per item when the benchmark counts items, else per iteration
  std::optional<double> vs_gatecore;  // ns_per_op / gatecore's in the same hotpath/case
  std::optional<double> vs_limit;     // ns_per_op / the limit's (see limit_name)
  std::string limit_name;
  // For a gatecore row: the naive peers of its hotpath/case with a lower ns_per_op, [] when none
  // is faster; none when there is nothing to compare (report_naive.hpp).
  std::optional<std::vector<std::string>> slower_than_naive;
};

struct ScenarioCost {
  const MacroScenario* scenario = nullptr;
  // The target's CPU µs per request: the driver's median over the ok rounds (/2), or
  // cpu_percent / 100 / rps * 1e6 of the one round (/1); none unless the scenario is ok.
  std::optional<double> cpu_us_per_request;
};

struct AttributionRule {
  std::string label, scenario, baseline;
  std::vector<std::string> micro_patterns;  // RE2 regexes; first matching benchmark each
  // Non-empty: the feature adds only the part of each matched benchmark this counter measures
  // (tls's server_ns: the server side of a handshake that runs both sides); its time is the
  // counter, its instructions the benchmark's scaled by counter ÷ CPU time per iteration.
  std::string counter;
};

struct Attribution {
  AttributionRule rule;
  std::optional<double> scenario_us, baseline_us, difference_us;
  std::vector<std::pair<std::string, double>> micro;  // benchmark, ns per op
  std::vector<std::string> unmatched;                 // patterns without a benchmark
  std::optional<double> micro_us;                     // sum of the micro costs
  std::optional<double> explained_share;              // micro_us / difference_us
  // false when the two scenarios' intervals of CPU per request overlap: the difference is not
  // resolved by the rounds, so no share is given; none without intervals (a /1 input).
  std::optional<bool> resolved;
  std::string note;
  // Instructions per request end to end (gatebench.macro_instructions/1) beside the micro
  // instruction counts (gatebench.instructions/1) of the same hot paths, per request.
  std::optional<double> scenario_ir, baseline_ir, difference_ir;
  // System calls per request from the same counts (waits and vDSO calls left out).
  std::optional<double> scenario_syscalls, baseline_syscalls, difference_syscalls;
  std::vector<std::pair<std::string, double>> micro_ir;  // benchmark, instructions per op
  bool micro_ir_scaled = false;  // a counter rule: scaled by the counter's share of CPU time
  // Why a hot path of the rule has no instructions per op (no count matches, the count failed,
  // or its items per iteration are unknown); any entry leaves the sum and remainder unset.
  std::vector<std::string> micro_ir_missing;
  std::optional<double> micro_ir_sum;
  std::optional<double> remainder_ir;     // difference_ir - micro_ir_sum
  std::optional<double> remainder_share;  // remainder_ir / difference_ir, when it is positive
};

// A scenario with a new connection per request (macro.json `handshakes`, docs/scenarios.md)
// beside the micro floor's server-side handshake cost from the same report.
struct HandshakeRow {
  const MacroScenario* scenario = nullptr;
  bool harness_limited = false;  // the driver's reason says "limited by the harness"
  std::optional<double> per_s, full, resumed;
  std::optional<double> target_us, load_us;  // CPU µs per handshake
  const MacroInterval* target_interval = nullptr;
  std::string floor_benchmark;     // tls/handshake_tls13_full, or _resumed when most resumed
  std::optional<double> floor_us;  // its server_ns counter, µs
  std::optional<double> vs_floor;  // target_us / floor_us
  // The same for the client's half (client_ns) and the load generator's CPU per handshake.
  std::optional<double> client_floor_us;
  std::optional<double> load_vs_client_floor;
};

// A target's scenario on one workload (macro.json `target` and `workload`, which the driver writes
// for every expansion and for the hand-written names the expansions replaced).
struct WorkloadRow {
  std::string target;
  const MacroScenario* scenario = nullptr;
};

// The targets measured on one workload: the scenario that is its own baseline (nginx) first, the
// others in macro.json's order.
struct WorkloadGroup {
  std::string workload;
  std::vector<std::string> baselines;  // what the rows' vs nginx divide by, in first-seen order
  std::vector<WorkloadRow> rows;
};

struct ReportModel {
  std::optional<std::string> micro_file, macro_file, instructions_file;
  const MicroRun* micro = nullptr;
  const MacroRun* macro = nullptr;
  const InstructionRun* instructions = nullptr;
  const MacroInstructionRun* macro_instructions = nullptr;
  const MicroCounters* counters = nullptr;  // user counters of micro.json (server_ns)
  std::optional<std::string> macro_instructions_file;
  std::vector<MicroRow> micro_rows;  // suite order
  std::vector<ScenarioCost> scenarios;
  std::vector<Attribution> attribution;
  std::vector<HandshakeRow> handshakes;
  std::vector<CacheHitRow> cache_hits;   // scenarios with a cache check
  std::vector<WorkloadGroup> workloads;  // in the order macro.json first names each workload
  // Statuses per template of request mixes, from the rounds' load files when they are there
  // (load_mix_statuses; filled by `gatebench report`, which knows where macro.json lies).
  std::map<std::string, TemplateStatuses> mix_statuses;
};

std::vector<AttributionRule> default_attribution_rules();
// Reads [{"label","scenario","baseline","micro":[regex...]}]; common::UsageError names file and
// field.
std::vector<AttributionRule> load_attribution_rules(const std::string& file);

ReportModel build_report_model(const MicroRun* micro, const MacroRun* macro,
                               const InstructionRun* instructions,
                               const std::vector<AttributionRule>& rules,
                               const MicroCounters* counters = nullptr,
                               const MacroInstructionRun* macro_instructions = nullptr);

}  // namespace gatebench::tools
