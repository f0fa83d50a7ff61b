#include "tools/src/compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "macro/common/usage_error.hpp"
#include "tools/src/compare/mann_whitney.hpp"

namespace gatebench::tools {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::regression:
      return "regression";
    case Verdict::improvement:
      return "improvement";
    case Verdict::no_change:
      return "no change";
    case Verdict::too_few_repetitions:
      return "too few repetitions";
    case Verdict::too_few_rounds:
      return "too few rounds";
    case Verdict::added:
      return "added";
    case Verdict::removed:
      return "removed";
    case Verdict::skipped:
      return "skipped";
  }
  return "?";
}

bool Comparison::has_regression() const {
  return std::any_of(rows.begin(), rows.end(),
                     [](const CompareRow& r) { return r.verdict == Verdict::regression; });
}

std::optional<double> relative_change(double base, double head) {
  if (base == 0.0) return head == 0.0 ? std::optional<double>(0.0) : std::nullopt;
  return (head - base) / base;
}

void describe_samples(const std::vector<double>& base, const std::vector<double>& head,
                      CompareRow& row) {
  row.base_n = base.size();
  row.head_n = head.size();
  if (!base.empty()) row.base = median(base);
  if (!head.empty()) row.head = median(head);
  if (row.base && row.head) row.change = relative_change(*row.base, *row.head);
}

void test_samples(const std::vector<double>& base, const std::vector<double>& head, double alpha,
                  double min_change, bool higher_is_worse, CompareRow& row) {
  describe_samples(base, head, row);
  row.p_value = mann_whitney_two_sided(base, head).p;
  const double change = row.change.value_or(0.0);
  const bool significant = *row.p_value < alpha;
  const bool worse = higher_is_worse ? change >= min_change : change <= -min_change;
  const bool better = higher_is_worse ? change <= -min_change : change >= min_change;
  row.verdict = significant && worse    ? Verdict::regression
                : significant && better ? Verdict::improvement
                                        : Verdict::no_change;
}

Verdict threshold_verdict(const std::optional<double>& change, double threshold) {
  // A change of exactly the threshold is one: (h - b) / b need not round to it exactly.
  constexpr double kRounding = 1e-12;
  if (!change) return Verdict::regression;  // from zero to some work
  if (*change >= threshold - kRounding) return Verdict::regression;
  if (*change <= -threshold + kRounding) return Verdict::improvement;
  return Verdict::no_change;
}

namespace {

// Names in BASE order, then those only in HEAD, so the table follows the suite's order.
template <class Run>
std::vector<std::string> union_names(const Run& base, const Run& head) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& b : base.benchmarks)
    if (seen.insert(b.name).second) names.push_back(b.name);
  for (const auto& b : head.benchmarks)
    if (seen.insert(b.name).second) names.push_back(b.name);
  return names;
}

CompareRow make_row(const std::string& section, const std::string& name,
                    const std::string& measure) {
  CompareRow row;
  row.section = section;
  row.name = name;
  row.measure = measure;
  return row;
}

// A benchmark present on one side only, or failed on either, gets its verdict without a
// measurement; returns false when both sides have figures to compare.
template <typename Entry>
bool settled_without_measure(CompareRow& row, const Entry* b, const Entry* h) {
  if (!b || !h) {
    row.verdict = b ? Verdict::removed : Verdict::added;
    return true;
  }
  if (!b->error.empty() || !h->error.empty()) {
    row.verdict = Verdict::skipped;
    row.note = !h->error.empty() ? "HEAD: " + h->error : "BASE: " + b->error;
    return true;
  }
  return false;
}

}  // namespace

void compare_micro(const MicroRun& base, const MicroRun& head, const CompareOptions& opt,
                   std::vector<CompareRow>& out) {
  const bool cpu = opt.metric == TimeMetric::cpu_time;
  for (const auto& name : union_names(base, head)) {
    CompareRow row = make_row("micro", name, cpu ? "cpu_time_ns" : "real_time_ns");
    const MicroBenchmark* b = base.find(name);
    const MicroBenchmark* h = head.find(name);
    if (settled_without_measure(row, b, h)) {
      out.push_back(std::move(row));
      continue;
    }
    const auto& bs = cpu ? b->cpu_ns : b->real_ns;
    const auto& hs = cpu ? h->cpu_ns : h->real_ns;
    if (bs.size() < opt.min_repetitions || hs.size() < opt.min_repetitions) {
      describe_samples(bs, hs, row);
      row.verdict = Verdict::too_few_repetitions;
      row.note = "need >= " + std::to_string(opt.min_repetitions) + " repetitions per side";
      out.push_back(std::move(row));
      continue;
    }
    test_samples(bs, hs, opt.alpha, opt.min_change, true, row);
    out.push_back(std::move(row));
  }
}

void compare_instructions(const InstructionRun& base, const InstructionRun& head,
                          const CompareOptions& opt, std::vector<CompareRow>& out) {
  for (const auto& name : union_names(base, head)) {
    CompareRow row = make_row("instructions", name, "instructions");
    const InstructionCount* b = base.find(name);
    const InstructionCount* h = head.find(name);
    if (settled_without_measure(row, b, h)) {
      out.push_back(std::move(row));
      continue;
    }
    row.base = b->per_iteration;
    row.head = h->per_iteration;
    row.base_n = row.head_n = 1;
    row.change = relative_change(b->per_iteration, h->per_iteration);
    row.verdict = threshold_verdict(row.change, opt.instructions_threshold);
    out.push_back(std::move(row));
  }
}

Comparison compare_result_sets(const ResultSet& base, const ResultSet& head,
                               const CompareOptions& opt) {
  Comparison c;
  c.base_file = base.file;
  c.head_file = head.file;
  c.options = opt;
  bool any = false;
  if (base.micro && head.micro) {
    compare_micro(*base.micro, *head.micro, opt, c.rows);
    any = true;
  }
  if (base.instructions && head.instructions) {
    compare_instructions(*base.instructions, *head.instructions, opt, c.rows);
    any = true;
  }
  if (base.macro && head.macro) {
    compare_macro(*base.macro, *head.macro, opt, c.rows);
    any = true;
  }
  if (base.macro_instructions && head.macro_instructions) {
    compare_exact(*base.macro_instructions, *head.macro_instructions, opt, c.rows, c.moves);
    any = true;
  }
  if (!any)
    throw common::UsageError(head.file + ": nothing to compare with " + base.file + " (BASE is " +
                             base.kind + ", HEAD is " + head.kind +
                             "; both need micro samples, instruction counts, macro scenarios or "
                             "per-request counts)");
  return c;
}

}  // namespace gatebench::tools
