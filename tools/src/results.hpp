// The in-memory model of every result file the tools read: Google Benchmark's micro.json,
// gatebench's instruction counts, the macro driver's macro.json, and report.json (which embeds
// all three). compare and report work on this model only, never on raw JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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

// Instructions per iteration measured under callgrind (schema gatebench.instructions/1).
struct InstructionCount {
  std::string name;
  double per_iteration = 0.0;
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

// One scenario of macro.json (contract in DESIGN.md, schema gatebench.macro/1).
struct MacroScenario {
  std::string name;
  std::string status;  // ok | skipped | failed
  std::string reason;
  std::optional<double> rps, rps_per_gateway_cpu, cpu_percent, peak_mb, vs_nginx;
  std::optional<double> errors;
  std::vector<LatencyPoint> latency;  // sorted by percentile
  std::vector<SeriesPoint> per_second;
  nlohmann::json raw = nlohmann::json::object();  // the scenario as read, extensions included

  std::optional<double> latency_at(double percentile) const;
  bool ok() const { return status == "ok"; }
};

struct MacroRun {
  nlohmann::json env = nlohmann::json::object();
  std::vector<MacroScenario> scenarios;
  const MacroScenario* find(const std::string& name) const;
};

// What one input file holds; report.json may hold several parts.
struct ResultSet {
  std::string file;
  std::string kind;  // "gbench" | "instructions" | "macro" | "report"
  std::optional<MicroRun> micro;
  std::optional<InstructionRun> instructions;
  std::optional<MacroRun> macro;
};

MicroRun parse_gbench_json(const nlohmann::json& doc, const std::string& file);
InstructionRun parse_instructions_json(const nlohmann::json& doc, const std::string& file);
MacroRun parse_macro_json(const nlohmann::json& doc, const std::string& file);
nlohmann::json instructions_to_json(const InstructionRun& run);

// Detects the kind from the content ("schema" or Google Benchmark's "benchmarks" + "context")
// and parses it; throws BadInput naming the file and field.
ResultSet load_result_set(const std::string& file);
ResultSet parse_result_set(const nlohmann::json& doc, const std::string& file);

double median(std::vector<double> values);

}  // namespace gatebench::tools
