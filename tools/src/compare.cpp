#include "tools/src/compare.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "tools/src/bad_input.hpp"
#include "tools/src/mann_whitney.hpp"

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

std::optional<double> relative_change(double base, double head) {
  if (base == 0.0) return head == 0.0 ? std::optional<double>(0.0) : std::nullopt;
  return (head - base) / base;
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
    row.base_n = bs.size();
    row.head_n = hs.size();
    if (!bs.empty()) row.base = median(bs);
    if (!hs.empty()) row.head = median(hs);
    if (row.base && row.head) row.change = relative_change(*row.base, *row.head);
    if (bs.size() < opt.min_repetitions || hs.size() < opt.min_repetitions) {
      row.verdict = Verdict::too_few_repetitions;
      row.note = "need >= " + std::to_string(opt.min_repetitions) + " repetitions per side";
      out.push_back(std::move(row));
      continue;
    }
    row.p_value = mann_whitney_two_sided(bs, hs).p;
    const double change = row.change.value_or(0.0);
    if (*row.p_value < opt.alpha && change >= opt.min_change)
      row.verdict = Verdict::regression;
    else if (*row.p_value < opt.alpha && change <= -opt.min_change)
      row.verdict = Verdict::improvement;
    else
      row.verdict = Verdict::no_change;
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
    if (!row.change)
      row.verdict = Verdict::regression;  // from zero to some work
    else if (*row.change >= opt.instructions_threshold)
      row.verdict = Verdict::regression;
    else if (*row.change <= -opt.instructions_threshold)
      row.verdict = Verdict::improvement;
    else
      row.verdict = Verdict::no_change;
    out.push_back(std::move(row));
  }
}

void compare_macro(const MacroRun& base, const MacroRun& head, const CompareOptions& opt,
                   std::vector<CompareRow>& out) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto* run : {&base, &head})
    for (const auto& s : run->scenarios)
      if (seen.insert(s.name).second) names.push_back(s.name);

  // p99 moves with the machine as much as req/s does, so where both runs measured the nginx
  // baseline, p99 gates as a ratio to the baseline's p99 in the same run.
  const MacroScenario* base_nginx = base.find("nginx-baseline");
  const MacroScenario* head_nginx = head.find("nginx-baseline");
  const bool p99_relative = base_nginx && head_nginx && base_nginx->ok() && head_nginx->ok() &&
                            base_nginx->latency_at(99) && head_nginx->latency_at(99);

  for (const auto& name : names) {
    // The baselines define the ratios; their own drift is the machine's, not the gateway's.
    if (name.rfind("nginx-", 0) == 0) continue;
    const MacroScenario* b = base.find(name);
    const MacroScenario* h = head.find(name);
    auto make = [&](const char* measure) { return make_row("macro", name, measure); };
    if (!b || !h) {
      CompareRow row = make("scenario");
      row.verdict = b ? Verdict::removed : Verdict::added;
      out.push_back(std::move(row));
      continue;
    }
    if (!b->ok() || !h->ok()) {
      CompareRow row = make("scenario");
      row.verdict = Verdict::skipped;
      const MacroScenario* bad = h->ok() ? b : h;
      row.note = std::string(bad == h ? "HEAD " : "BASE ") + bad->status +
                 (bad->reason.empty() ? "" : ": " + bad->reason);
      // A scenario that ran in BASE and fails in HEAD is a regression of the gateway, not noise.
      if (h->status == "failed" && b->ok()) row.verdict = Verdict::regression;
      out.push_back(std::move(row));
      continue;
    }
    if (b->vs_nginx && h->vs_nginx) {
      CompareRow row = make("vs_nginx");
      row.base = b->vs_nginx;
      row.head = h->vs_nginx;
      row.change = relative_change(*b->vs_nginx, *h->vs_nginx);
      const double c = row.change.value_or(0.0);
      row.verdict = c <= -opt.vs_nginx_threshold  ? Verdict::regression
                    : c >= opt.vs_nginx_threshold ? Verdict::improvement
                                                  : Verdict::no_change;
      if (b->rps && h->rps)
        row.note = "req/s " + std::to_string(static_cast<long long>(std::llround(*b->rps))) +
                   " -> " + std::to_string(static_cast<long long>(std::llround(*h->rps)));
      out.push_back(std::move(row));
    }
    auto bp = b->latency_at(99), hp = h->latency_at(99);
    if (bp && hp) {
      CompareRow row = make(p99_relative ? "p99_vs_nginx" : "p99_us");
      row.note = "p99 " + std::to_string(std::llround(*bp)) + " -> " +
                 std::to_string(std::llround(*hp)) + " µs";
      if (p99_relative) {
        *bp /= *base_nginx->latency_at(99);
        *hp /= *head_nginx->latency_at(99);
      }
      row.base = bp;
      row.head = hp;
      row.change = relative_change(*bp, *hp);
      const double c = row.change.value_or(0.0);
      row.verdict = c >= opt.p99_threshold    ? Verdict::regression
                    : c <= -opt.p99_threshold ? Verdict::improvement
                                              : Verdict::no_change;
      out.push_back(std::move(row));
    }
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
  if (!any)
    throw BadInput(head.file + ": nothing to compare with " + base.file + " (BASE is " + base.kind +
                   ", HEAD is " + head.kind +
                   "; both need micro samples, instruction counts or macro scenarios)");
  return c;
}

}  // namespace gatebench::tools
