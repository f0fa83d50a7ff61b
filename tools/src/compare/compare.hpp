// The regression gate: BASE vs HEAD per benchmark (time: Mann–Whitney U + minimum change on
// medians; instructions: deterministic threshold), per macro scenario (Mann–Whitney U +
// minimum change over the per-round samples of CPU per request, vs-nginx ratio and p99; the
// driver's statuses gate first) and per scenario of instructions.json (exact instructions and
// system calls per request: deterministic threshold). Method and thresholds: docs/compare.md.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "macro/common/command_line.hpp"
#include "tools/src/results/results.hpp"

namespace gatebench::tools {

enum class Verdict {
  regression,
  improvement,
  no_change,
  too_few_repetitions,
  too_few_rounds,  // macro: fewer ok rounds than --min-rounds on a side
  added,           // only in HEAD
  removed,         // only in BASE
  skipped,         // errored/skipped on either side
};
const char* verdict_name(Verdict v);

enum class TimeMetric { cpu_time, real_time };

struct CompareOptions {
  double alpha = 0.05;
  double min_change = 0.05;  // fraction of the BASE median
  std::size_t min_repetitions = 9;
  TimeMetric metric = TimeMetric::cpu_time;
  double instructions_threshold = 0.01;
  std::size_t min_rounds = 5;        // macro: ok rounds needed per side
  double cpu_threshold = 0.05;       // macro: relative rise of CPU µs per request
  double vs_nginx_threshold = 0.05;  // macro: relative drop of the vs-nginx ratio
  double p99_threshold = 0.10;       // macro: relative rise of p99 (paired ratio or absolute)
  // Exact cost per request (instructions.json): relative rise of instructions or system calls.
  double exact_threshold = 0.01;
  // Per scenario, instead of exact_threshold: scenarios whose counts repeat less closely than 1%
  // (TLS keep-alive, docs/attribution.md) are gated at their measured spread.
  std::map<std::string, double> exact_threshold_by_scenario;
  double exact_threshold_for(const std::string& scenario) const;
  std::size_t top_functions = 8;  // functions named per scenario whose instructions moved
};

struct CompareRow {
  std::string section;  // micro | instructions | macro | exact
  std::string name;     // benchmark or scenario
  // cpu_time_ns | real_time_ns | instructions | scenario | cpu_us_per_request | vs_nginx |
  // p99_vs_nginx | p99_us | instructions_per_request | syscalls_per_request
  std::string measure;
  std::optional<double> base, head;
  std::optional<double> change;  // (head - base) / base
  std::optional<double> p_value;
  std::size_t base_n = 0, head_n = 0;  // samples: repetitions, or macro ok rounds
  Verdict verdict = Verdict::no_change;
  std::string note;
  // macro: what the comparison could have seen, the minimum detectable change at 95% power
  // (macro/common/detectable.hpp) at the rounds' pooled spread (sd over median, per round).
  std::optional<double> mdc, round_spread;
};

// Where one scenario's instructions per request moved, from the callgrind files of both sides
// (per function (I(2N) − I(N)) / N, HEAD − BASE), grouped as `gatebench attribution` groups them.
struct MovedFunction {
  std::string object, function, group;
  double per_request = 0;
};
struct CostMoves {
  std::string scenario;
  std::map<std::string, double> groups;  // HEAD − BASE per cost group
  std::vector<MovedFunction> top;        // largest |Δ| first
  std::string error;                     // why there is no breakdown (files not found, ...)
};

struct Comparison {
  std::string base_file, head_file;
  CompareOptions options;
  std::vector<CompareRow> rows;
  std::vector<CostMoves> moves;  // exact section: the scenarios that moved
  bool has_regression() const;
};

// (head - base) / base; none when base is 0 and head is not.
std::optional<double> relative_change(double base, double head);
// Fills row's sample counts, medians and change.
void describe_samples(const std::vector<double>& base, const std::vector<double>& head,
                      CompareRow& row);
// describe_samples, the p-value from the two sample sets and sets the verdict:
// regression when p < alpha and the median moved the worse way by >= min_change, improvement
// when it moved the better way by as much, else no change.
void test_samples(const std::vector<double>& base, const std::vector<double>& head, double alpha,
                  double min_change, bool higher_is_worse, CompareRow& row);

void compare_micro(const MicroRun& base, const MicroRun& head, const CompareOptions& opt,
                   std::vector<CompareRow>& out);
void compare_instructions(const InstructionRun& base, const InstructionRun& head,
                          const CompareOptions& opt, std::vector<CompareRow>& out);
void compare_macro(const MacroRun& base, const MacroRun& head, const CompareOptions& opt,
                   std::vector<CompareRow>& out);
// Per scenario of both files: instructions and system calls per request against
// opt.exact_threshold; the driver's statuses first (BASE ok, HEAD failed: regression), another
// method on each side: skipped. Appends the moved functions of each scenario that regressed or
// improved to `moves`.
void compare_exact(const common::MacroCountFile& base, const common::MacroCountFile& head,
                   const CompareOptions& opt, std::vector<CompareRow>& out,
                   std::vector<CostMoves>& moves);
// Verdict of a deterministic count: regression when it rose by >= threshold (or from zero to
// some), improvement when it fell by as much.
Verdict threshold_verdict(const std::optional<double>& change, double threshold);

// Compares every section both sets hold; throws common::UsageError when they share none.
// A --NAME option given as a percentage ("5" or "5%") as a fraction, else `fallback`; a bad or
// negative value is a common::UsageError naming the option.
double percent_or(const common::CommandLine& args, const std::string& name, double fallback);
// The same for one value; `what` names where it came from in the error.
double percent_value(const std::string& text, const std::string& what);
// Every --exact-threshold-for SCENARIO=PCT of `args` into opt.exact_threshold_by_scenario; a
// value without '=', an empty name or a bad percentage is a common::UsageError.
void exact_thresholds_from(const common::CommandLine& args, CompareOptions& opt);

Comparison compare_result_sets(const ResultSet& base, const ResultSet& head,
                               const CompareOptions& opt);

std::string comparison_markdown(const Comparison& c);
nlohmann::json comparison_json(const Comparison& c);

}  // namespace gatebench::tools
