#include "tools/src/report/report_writers.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

ReportMicro micro_of(const ReportModel& m) {
  ReportMicro out{m.micro->context, {}};
  for (const auto& r : m.micro_rows) {
    const MicroBenchmark& b = *r.bench;
    ReportMicroRow& e = out.benchmarks.emplace_back();
    e.name = b.name;
    e.hotpath = r.parts.hotpath;
    e.impl = r.parts.impl;
    e.case_name = r.parts.case_name;
    e.repetitions = r.repetitions;
    e.real_time_ns = b.real_ns;
    e.cpu_time_ns = b.cpu_ns;
    e.items_per_second = b.items_per_second;
    e.bytes_per_second = b.bytes_per_second;
    e.error = b.error;
    if (b.error.empty() && r.repetitions > 0)
      e.figures = ReportMicroFigures{{r.cpu_ns, r.real_ns, r.items_per_second, r.bytes_per_second},
                                     r.cv,
                                     r.ns_per_op,
                                     r.vs_gatecore,
                                     r.vs_limit,
                                     r.limit_name,
                                     r.slower_than_naive};
  }
  return out;
}

// The macro.json as read, written by its one writer (a /1 input as the /2 file it was read as).
common::MacroResult macro_of(const ReportModel& m) {
  common::MacroResult file{m.macro->env, m.macro->run, {}};
  for (const auto& s : m.scenarios) file.scenarios.push_back(s.scenario->file);
  return file;
}

ReportMacroInstructions macro_instructions_of(const MacroInstructionRun& run) {
  ReportMacroInstructions out{run.env, run.method, {}};
  for (const auto& s : run.scenarios)
    out.scenarios.push_back({s.name, s.status, s.reason, s.instructions_per_request});
  return out;
}

// Where the pointer is null (no interval), none.
std::optional<MacroInterval> interval_of(const MacroInterval* iv) {
  return iv ? std::optional<MacroInterval>(*iv) : std::nullopt;
}

std::vector<ReportAttribution> attribution_of(const ReportModel& m) {
  std::vector<ReportAttribution> out;
  for (const auto& a : m.attribution)
    out.push_back({a.rule.label,
                   a.rule.scenario,
                   a.rule.baseline,
                   a.scenario_us,
                   a.baseline_us,
                   a.difference_us,
                   a.micro,
                   a.unmatched,
                   a.micro_us,
                   a.explained_share,
                   a.resolved,
                   a.note,
                   a.rule.counter,
                   {a.scenario_ir, a.baseline_ir, a.difference_ir, a.scenario_syscalls,
                    a.baseline_syscalls, a.difference_syscalls, a.micro_ir, a.micro_ir_scaled,
                    a.micro_ir_missing, a.micro_ir_sum, a.remainder_ir, a.remainder_share}});
  return out;
}

std::vector<ReportHandshakes> handshakes_of(const ReportModel& m) {
  std::vector<ReportHandshakes> out;
  for (const auto& h : m.handshakes)
    out.push_back({h.scenario->name, h.scenario->status, h.harness_limited, h.per_s, h.full,
                   h.resumed, h.target_us, interval_of(h.target_interval), h.load_us,
                   h.floor_us ? std::optional<std::string>(h.floor_benchmark) : std::nullopt,
                   h.floor_us, h.vs_floor, h.client_floor_us, h.load_vs_client_floor});
  return out;
}

std::vector<ReportCacheHits> cache_hits_of(const ReportModel& m) {
  std::vector<ReportCacheHits> out;
  for (const auto& row : m.cache_hits) {
    ReportCacheHits& c = out.emplace_back();
    c.scenario = row.scenario->name;
    c.status = row.scenario->status;
    c.expected = row.expected;
    c.hit_ratio = row.hit_ratio;
    c.hit_ratio_interval = interval_of(row.interval);
    c.verdict = verdict_text(row.verdict);
    c.verdict_rounds = row.verdict_rounds;
    for (const auto& r : row.rounds)
      c.rounds.push_back({r.round, r.status, r.hit_ratio, verdict_text(r.verdict)});
  }
  return out;
}

// The tables per workload: the same rows report.md and report.html show, as numbers.
std::vector<ReportWorkload> workloads_of(const ReportModel& m) {
  std::vector<ReportWorkload> out;
  for (const WorkloadGroup& g : m.workloads) {
    ReportWorkload& w = out.emplace_back();
    w.workload = g.workload;
    w.baselines = g.baselines;
    for (const WorkloadRow& r : g.rows) {
      const MacroScenario& s = *r.scenario;
      w.rows.push_back({r.target, s.name, s.status, s.baseline, s.rps, s.rps_per_gateway_cpu,
                        s.latency_at(50), s.latency_at(90), s.latency_at(99), s.cpu_percent,
                        s.peak_mb, s.vs_nginx, interval_of(s.interval("vs_nginx")), s.errors,
                        s.file.images.empty() ? nlohmann::json(nullptr) : s.file.images});
    }
  }
  return out;
}

}  // namespace

ReportFile report_file(const ReportModel& m) {
  ReportFile r;
  r.generator = std::string("gatebench ") + kGatebenchVersion;
  r.inputs = {m.micro_file, m.macro_file, m.instructions_file, m.macro_instructions_file};
  if (m.micro) r.micro = micro_of(m);
  if (m.instructions) r.instructions = *m.instructions;
  if (m.macro) r.macro = macro_of(m);
  if (m.macro_instructions) r.macro_instructions = macro_instructions_of(*m.macro_instructions);
  if (m.macro || m.macro_instructions) r.cost_attribution = attribution_of(m);
  if (m.macro) {
    r.handshakes = handshakes_of(m);
    r.cache_hit_ratio = cache_hits_of(m);
    r.workloads = workloads_of(m);
  }
  return r;
}

json report_json(const ReportModel& m) {
  return to_json(report_file(m));
}

}  // namespace gatebench::tools
