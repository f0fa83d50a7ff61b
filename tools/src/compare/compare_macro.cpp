// The macro gate: per scenario, the driver's status first (HEAD failed while BASE was ok is a
// regression), then a Mann–Whitney test over the ok rounds of three measures (CPU per request
// relative to the load generator's, vs_nginx, p99), each with its own minimum change. Method:
// docs/compare.md.
#include <set>

#include "macro/common/detectable.hpp"
#include "tools/src/compare/compare.hpp"
#include "tools/src/results/format.hpp"

namespace gatebench::tools {

namespace {

using Sample = std::optional<double> (*)(const MacroRound&);

std::vector<double> samples(const MacroScenario& s, Sample get) {
  std::vector<double> out;
  for (const auto& r : s.rounds)
    if (r.ok())
      if (const auto v = get(r)) out.push_back(*v);
  return out;
}

std::optional<double> cpu_target(const MacroRound& r) {
  return r.cpu_us_per_request.target;
}
// The target's CPU per request in units of the load generator's, from the same window: the
// generator's work per request is the same in both runs, so it measures how fast the machine ran
// that round. Per round, absolute CPU per request varied by 8% on a quiet 2-vCPU VM (req/s and
// CPU per request of every role moving together); this ratio by 3.9% (docs/gating.md).
std::optional<double> cpu_vs_load(const MacroRound& r) {
  const auto& c = r.cpu_us_per_request;
  if (!c.target || !c.load || *c.load <= 0) return std::nullopt;
  return *c.target / *c.load;
}
std::optional<double> vs_nginx(const MacroRound& r) {
  return r.vs_nginx;
}
std::optional<double> p99_vs_nginx(const MacroRound& r) {
  return r.p99_vs_nginx;
}
std::optional<double> p99_us(const MacroRound& r) {
  return r.latency_at(99);
}

// Scenarios another scenario divides by: their own drift is the machine's, not the gateway's.
std::set<std::string> baselines(const MacroRun& base, const MacroRun& head) {
  std::set<std::string> out;
  for (const auto* run : {&base, &head})
    for (const auto& s : run->scenarios)
      if (!s.baseline.empty() && s.baseline != s.name) out.insert(s.baseline);
  return out;
}

std::string status_text(const char* side, const MacroScenario& s) {
  return std::string(side) + " " + s.status + (s.reason.empty() ? "" : ": " + s.reason);
}

// The verdict a status alone decides; returns false when both sides are ok.
bool settled_by_status(const MacroScenario& b, const MacroScenario& h, CompareRow& row) {
  if (b.ok() && h.ok()) return false;
  row.base_n = b.rounds_ok;
  row.head_n = h.rounds_ok;
  if (b.ok() && h.status == "failed") {
    // Invalid load, errors above the threshold or a failed baseline: the driver's reason says.
    row.verdict = Verdict::regression;
    row.note = status_text("HEAD", h);
  } else {
    row.verdict = Verdict::skipped;
    if (!h.ok() && !b.ok())
      row.note = status_text("BASE", b) + "; " + status_text("HEAD", h);
    else
      row.note = h.ok() ? status_text("BASE", b) : status_text("HEAD", h);
  }
  return true;
}

struct Measure {
  const char* name;
  Sample get;
  double min_change;
  bool higher_is_worse;
};

void compare_measure(const MacroScenario& b, const MacroScenario& h, const Measure& m,
                     const CompareOptions& opt, std::vector<CompareRow>& out) {
  const auto bs = samples(b, m.get), hs = samples(h, m.get);
  if (bs.empty() && hs.empty()) return;  // neither run measured it (e.g. no baseline)
  CompareRow row;
  row.section = "macro";
  row.name = b.name;
  row.measure = m.name;
  if (bs.size() < opt.min_rounds || hs.size() < opt.min_rounds) {
    describe_samples(bs, hs, row);
    row.verdict = Verdict::too_few_rounds;
    row.note = "need >= " + std::to_string(opt.min_rounds) + " ok rounds per side";
  } else {
    test_samples(bs, hs, opt.alpha, m.min_change, m.higher_is_worse, row);
    row.round_spread = common::pooled_relative_spread(bs, hs);
    if (row.round_spread)
      row.mdc = common::minimum_detectable_change(*row.round_spread, bs.size(), hs.size(),
                                                  m.min_change, opt.alpha);
  }
  if (row.measure == std::string("cpu_vs_load")) {
    const auto bc = samples(b, cpu_target), hc = samples(h, cpu_target);
    if (!bc.empty() && !hc.empty())
      row.note += (row.note.empty() ? "" : "; ") + std::string("CPU us/request ") +
                  fmt_sig(median(bc)) + " -> " + fmt_sig(median(hc));
  }
  if (row.measure == std::string("vs_nginx")) {
    const auto brps = samples(b, [](const MacroRound& r) { return r.rps; });
    const auto hrps = samples(h, [](const MacroRound& r) { return r.rps; });
    if (!brps.empty() && !hrps.empty())
      row.note += (row.note.empty() ? "" : "; ") + std::string("req/s ") + fmt_sig(median(brps)) +
                  " -> " + fmt_sig(median(hrps));
  }
  out.push_back(std::move(row));
}

}  // namespace

void compare_macro(const MacroRun& base, const MacroRun& head, const CompareOptions& opt,
                   std::vector<CompareRow>& out) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto* run : {&base, &head})
    for (const auto& s : run->scenarios)
      if (seen.insert(s.name).second) names.push_back(s.name);
  const auto skip = baselines(base, head);

  for (const auto& name : names) {
    if (skip.count(name) || name.rfind("nginx-", 0) == 0) continue;
    const MacroScenario* b = base.find(name);
    const MacroScenario* h = head.find(name);
    CompareRow row;
    row.section = "macro";
    row.name = name;
    row.measure = "scenario";
    if (!b || !h) {
      row.verdict = b ? Verdict::removed : Verdict::added;
      out.push_back(std::move(row));
      continue;
    }
    if (settled_by_status(*b, *h, row)) {
      out.push_back(std::move(row));
      continue;
    }
    // p99 moves with the machine as much as req/s does, so it gates as the per-round ratio to
    // the baseline's p99 where both runs have it, else as the absolute p99.
    const bool p99_paired =
        !samples(*b, p99_vs_nginx).empty() && !samples(*h, p99_vs_nginx).empty();
    // Likewise CPU per request gates relative to the load generator's where both runs have it.
    const bool cpu_relative =
        !samples(*b, cpu_vs_load).empty() && !samples(*h, cpu_vs_load).empty();
    const Measure measures[] = {
        cpu_relative ? Measure{"cpu_vs_load", cpu_vs_load, opt.cpu_threshold, true}
                     : Measure{"cpu_us_per_request", cpu_target, opt.cpu_threshold, true},
        {"vs_nginx", vs_nginx, opt.vs_nginx_threshold, false},
        p99_paired ? Measure{"p99_vs_nginx", p99_vs_nginx, opt.p99_threshold, true}
                   : Measure{"p99_us", p99_us, opt.p99_threshold, true},
    };
    for (const auto& m : measures) compare_measure(*b, *h, m, opt, out);
  }
}

}  // namespace gatebench::tools
