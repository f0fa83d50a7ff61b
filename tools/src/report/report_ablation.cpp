#include "tools/src/report/report_ablation.hpp"

#include <algorithm>
#include <cmath>

#include "tools/src/results/format.hpp"

namespace gatebench::tools {

namespace {

bool is_feature_row(const Attribution& a) {
  return a.rule.baseline == kAblationBaseline;
}

// req/s of the scenario over the default host's, paired within each round both ran ok in:
// "0.97 [0.95, 0.99] (n = 5)", the median with the smallest and largest.
std::string throughput_ratio(const ReportModel& m, const Attribution& a) {
  if (!m.macro) return "–";
  const MacroScenario* s = m.macro->find(a.rule.scenario);
  const MacroScenario* b = m.macro->find(a.rule.baseline);
  if (!s || !b) return "–";
  std::vector<double> ratios;
  for (const auto& r : s->rounds) {
    if (!r.ok() || !r.rps) continue;
    for (const auto& q : b->rounds)
      if (q.round == r.round && q.ok() && q.rps && *q.rps > 0) ratios.push_back(*r.rps / *q.rps);
  }
  if (ratios.empty()) {
    if (s->rps && b->rps && *b->rps > 0) return fmt_fixed(*s->rps / *b->rps, 2);
    return "–";
  }
  std::sort(ratios.begin(), ratios.end());
  return fmt_fixed(median(ratios), 2) + " [" + fmt_fixed(ratios.front(), 2) + ", " +
         fmt_fixed(ratios.back(), 2) + "] (n = " + std::to_string(ratios.size()) + ")";
}

std::string time_difference(const Attribution& a) {
  if (!a.difference_us) return "–";
  if (a.resolved == false) return fmt_sig(*a.difference_us) + " (not resolved)";
  return fmt_sig(*a.difference_us);
}

// Two decimals: the counts' time-driven calls move a figure by about ±0.01 per request at the
// default N (docs/attribution.md); a difference that rounds to zero reads 0.00, not -0.00.
std::string syscall_difference(const Attribution& a) {
  if (!a.difference_syscalls) return "–";
  return fmt_fixed(std::abs(*a.difference_syscalls) < 0.005 ? 0.0 : *a.difference_syscalls, 2);
}

std::string micro_paths(const Attribution& a) {
  std::string out;
  for (std::size_t i = 0; i < a.micro.size(); ++i) {
    out += (out.empty() ? "" : "; ") + a.micro[i].first + " " + fmt_time_ns(a.micro[i].second);
    for (const auto& [name, ir] : a.micro_ir)
      if (a.micro[i].first.starts_with(name))
        out += ", " + std::string(a.micro_ir_scaled ? "≈" : "") + fmt_count(ir) + " instructions";
  }
  if (out.empty()) out = a.rule.micro_patterns.empty() ? "none" : "–";
  return out;
}

}  // namespace

ReportTable ablation_table(const ReportModel& m) {
  ReportTable t{
      "What each feature costs (from the default host)",
      "Each feature scenario against gateway-default: the target's CPU µs per request "
      "difference (time: medians over the rounds; not resolved when the intervals "
      "overlap), req/s over the default host's paired within each round, the "
      "differences in instructions and in system calls per request (exact counts under "
      "valgrind, gatebench-macro --instructions N; gatebench run counts them by default), and "
      "the micro hot path it maps to with its time and instructions per op.",
      {"feature", "scenario", "CPU µs/req Δ (time)", "req/s vs default", "instructions/req Δ",
       "system calls/req Δ", "remainder share", "micro hot path"},
      {false, false, true, true, true, true, true, false},
      {}};
  for (const auto& a : m.attribution) {
    if (!is_feature_row(a)) continue;
    t.rows.push_back({a.rule.label, a.rule.scenario, time_difference(a), throughput_ratio(m, a),
                      a.difference_ir ? fmt_count(*a.difference_ir) : "–", syscall_difference(a),
                      a.remainder_share ? fmt_percent(*a.remainder_share, false) : "–",
                      micro_paths(a)});
  }
  return t;
}

AblationBars ablation_bars(const ReportModel& m) {
  AblationBars out;
  for (const auto& a : m.attribution)
    if (is_feature_row(a) && a.difference_ir) out.instructions = true;
  for (const auto& a : m.attribution) {
    if (!is_feature_row(a)) continue;
    const std::optional<double> v = out.instructions ? a.difference_ir : a.difference_us;
    if (!v) continue;
    std::string text = out.instructions ? fmt_count(*v) + " instructions" : fmt_sig(*v) + " µs";
    if (!out.instructions && a.resolved == false) text += " (not resolved)";
    // A feature that saves work (access log off) draws no bar; its text says by how much.
    out.bars.push_back({a.rule.label, std::max(0.0, *v), text, static_cast<int>(out.bars.size())});
  }
  return out;
}

}  // namespace gatebench::tools
