// The in-memory model of every result file the tools read: Google Benchmark's micro.json,
// gatebench's instruction counts, the macro driver's macro.json and instructions.json, and
// report.json (which embeds the first three). compare and report work on this model only,
// never on raw JSON.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "macro/common/json_field.hpp"
#include "macro/common/macro_instructions.hpp"
#include "macro/common/macro_result.hpp"

namespace gatebench::tools {

// One benchmark of micro.json: the per-repetition samples. Aggregate rows are recomputed, not
// read; only a file written with --benchmark_report_aggregates_only contributes its median row,
// as a single sample.
struct MicroBenchmark {
  std::string name;  // run_name, e.g. cidr/gatecore/list_1k
  std::vector<double> real_ns;
  std::vector<double> cpu_ns;
  std::vector<double> items_per_second;  // empty when the benchmark sets no item count
  std::vector<double> bytes_per_second;
  std::string error;  // non-empty: the benchmark reported an error (e.g. "skipped: ...")
};

struct MicroRun {
  nlohmann::json context = nlohmann::json::object();  // Google Benchmark's "context"
  std::vector<MicroBenchmark> benchmarks;
  const MicroBenchmark* find(const std::string& name) const;
};

// Instructions per iteration measured under callgrind: instructions.json (written by `gatebench
// micro --instructions`, instructions_to_json) and report.json's "instructions".
inline constexpr const char* kInstructionsSchema = "gatebench.instructions/1";

struct InstructionCount {
  std::string name;
  double per_iteration = 0.0;
  // Items the benchmark counts per iteration (SetItemsProcessed; 1 when it counts none), from a
  // short native run of the same binary: per op = per iteration ÷ this. None in files written
  // before the field existed.
  std::optional<double> items_per_iteration;
  std::string error;  // non-empty: no count (benchmark skipped, or the method's check failed)
  nlohmann::json detail = nlohmann::json::object();  // raw measurement points, kept for audit
};

struct InstructionRun {
  nlohmann::json env = nlohmann::json::object();
  std::vector<InstructionCount> benchmarks;
  const InstructionCount* find(const std::string& name) const;
};

struct LatencyPoint {
  double percentile;  // 50, 90, 99, 99.9 ...
  double us;
};

struct SeriesPoint {
  double t;  // seconds since the measured run started
  std::optional<double> rps;
  std::optional<double> p99_us;
  std::optional<double> cpu_percent;
};

struct CpuPerRequest {  // CPU µs per request of each role's process trees
  std::optional<double> target, load, backend;
};

// The figures a macro scenario reports: per round, and (as medians over its ok rounds) per
// scenario. Field names and units are macro.json's (docs/scenarios.md).
struct MacroFigures {
  std::optional<double> rps, rps_per_gateway_cpu, cpu_percent, peak_mb;
  std::optional<double> vs_nginx, cpu_vs_nginx, p99_vs_nginx;  // paired with the baseline
  std::optional<double> errors, error_rate;
  // Scenarios with a cache check: hits among the responses counted (macro.json `hit_ratio`).
  std::optional<double> hit_ratio;
  CpuPerRequest cpu_us_per_request;
  std::vector<LatencyPoint> latency;  // sorted by percentile
  std::vector<SeriesPoint> per_second;
  nlohmann::json counts = nlohmann::json::object();   // generator counters
  nlohmann::json details = nlohmann::json::object();  // mode-specific (steps, offered_rate ...)

  std::optional<double> latency_at(double percentile) const;
};

// The figures of macro.json as compare and report read them, taken from the file's one type
// (common::MacroResult, which also upgrades a gatebench.macro/1 file to one round per scenario).

// One start-to-stop run of a scenario (gatebench.macro/2 "rounds"; a /1 scenario is one round).
struct MacroRound : MacroFigures {
  int round = 1;
  int position = 0;    // 1-based place in that round's scenario order; 0 = unknown
  std::string status;  // ok | skipped | failed
  std::string reason;
  bool ok() const { return status == "ok"; }
};

// Interval of a median over the ok rounds (order statistics; `level` is the actual coverage).
struct MacroInterval {
  double median = 0, lo = 0, hi = 0;
  std::size_t n = 0;
  double level = 0;
};

// One scenario of macro.json (docs/scenarios.md).
struct MacroScenario : MacroFigures {
  std::string name, group;
  std::string status;  // ok | skipped | failed, as the driver decided it
  std::string reason;
  std::string baseline;  // scenario whose figures the *_vs_nginx ratios divide by
  // The range the scenario's cache check expects of each round's hit ratio (`expect_hit_ratio`).
  std::optional<std::pair<double, double>> expect_hit_ratio;
  std::size_t rounds_planned = 1, rounds_ok = 0;
  std::map<std::string, MacroInterval> intervals;  // rps, vs_nginx, cpu_vs_nginx, p99_us ...
  std::vector<MacroRound> rounds;
  common::MacroScenario file;  // the scenario as read: workload, images, handshakes, artifacts ...

  bool ok() const { return status == "ok"; }
  const MacroInterval* interval(const std::string& key) const;
};

struct MacroRun {
  common::MacroEnv env;
  common::MacroRunSettings run;
  std::vector<MacroScenario> scenarios;
  const MacroScenario* find(const std::string& name) const;
  bool smoke() const { return run.quick; }  // figures of a smoke run, not results
  common::MacroResult file() const;         // env, run and every scenario as read
};

// What one input file holds; report.json may hold several parts.
struct ResultSet {
  std::string file;
  std::string kind;  // "gbench" | "instructions" | "macro" | "macro_instructions" | "report"
  std::optional<MicroRun> micro;
  std::optional<InstructionRun> instructions;
  std::optional<MacroRun> macro;
  // Exact cost per request end to end (gatebench-macro --instructions, instructions.json).
  std::optional<common::MacroCountFile> macro_instructions;
};

MicroRun parse_gbench_json(const common::JsonField& doc);
InstructionRun parse_instructions_json(const common::JsonField& doc);
MacroRun macro_run_from(const common::MacroResult& file);
nlohmann::json instructions_to_json(const InstructionRun& run);

// Detects the kind from the content ("schema" or Google Benchmark's "benchmarks" + "context")
// and parses it; throws common::UsageError naming the file and field.
ResultSet load_result_set(const std::string& file);
ResultSet parse_result_set(const nlohmann::json& doc, const std::string& file);

double median(std::vector<double> values);

}  // namespace gatebench::tools
