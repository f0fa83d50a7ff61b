#include "tools/src/report/report_writers.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

json opt(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

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

json instructions_attribution(const Attribution& a) {
  json micro = json::array();
  for (const auto& [name, v] : a.micro_ir)
    micro.push_back({{"benchmark", name}, {"instructions_per_op", v}});
  return {{"scenario_per_request", opt(a.scenario_ir)},
          {"baseline_per_request", opt(a.baseline_ir)},
          {"difference_per_request", opt(a.difference_ir)},
          {"syscalls_scenario_per_request", opt(a.scenario_syscalls)},
          {"syscalls_baseline_per_request", opt(a.baseline_syscalls)},
          {"syscalls_difference_per_request", opt(a.difference_syscalls)},
          {"micro", micro},
          {"micro_scaled_by_counter", a.micro_ir_scaled},
          {"not_attributable", a.micro_ir_missing},
          {"micro_per_request", opt(a.micro_ir_sum)},
          {"remainder_per_request", opt(a.remainder_ir)},
          {"remainder_share", opt(a.remainder_share)}};
}

ReportMacroInstructions macro_instructions_of(const MacroInstructionRun& run) {
  ReportMacroInstructions out{run.env, run.method, {}};
  for (const auto& s : run.scenarios)
    out.scenarios.push_back({s.name, s.status, s.reason, s.instructions_per_request});
  return out;
}

json attribution_json(const ReportModel& m) {
  json list = json::array();
  for (const auto& a : m.attribution) {
    json micro = json::array();
    for (const auto& [name, ns] : a.micro)
      micro.push_back({{"benchmark", name}, {"ns_per_op", ns}});
    list.push_back({{"label", a.rule.label},
                    {"scenario", a.rule.scenario},
                    {"baseline", a.rule.baseline},
                    {"scenario_cpu_us_per_request", opt(a.scenario_us)},
                    {"baseline_cpu_us_per_request", opt(a.baseline_us)},
                    {"difference_cpu_us_per_request", opt(a.difference_us)},
                    {"micro", micro},
                    {"unmatched_patterns", a.unmatched},
                    {"micro_us_per_request", opt(a.micro_us)},
                    {"explained_share", opt(a.explained_share)},
                    {"resolved", a.resolved ? json(*a.resolved) : json(nullptr)},
                    {"note", a.note},
                    {"counter", a.rule.counter.empty() ? json(nullptr) : json(a.rule.counter)},
                    {"instructions", instructions_attribution(a)}});
  }
  return list;
}

json interval_json(const MacroInterval* iv) {
  if (!iv) return nullptr;
  return {
      {"median", iv->median}, {"lo", iv->lo}, {"hi", iv->hi}, {"n", iv->n}, {"level", iv->level}};
}

json handshakes_json(const ReportModel& m) {
  json list = json::array();
  for (const auto& h : m.handshakes)
    list.push_back({{"scenario", h.scenario->name},
                    {"status", h.scenario->status},
                    {"limited_by_harness", h.harness_limited},
                    {"per_s", opt(h.per_s)},
                    {"full", opt(h.full)},
                    {"resumed", opt(h.resumed)},
                    {"server_cpu_us_per_handshake", opt(h.target_us)},
                    {"server_cpu_us_per_handshake_interval", interval_json(h.target_interval)},
                    {"load_cpu_us_per_handshake", opt(h.load_us)},
                    {"floor_benchmark", h.floor_us ? json(h.floor_benchmark) : json(nullptr)},
                    {"floor_server_us", opt(h.floor_us)},
                    {"vs_floor", opt(h.vs_floor)},
                    {"floor_client_us", opt(h.client_floor_us)},
                    {"load_vs_client_floor", opt(h.load_vs_client_floor)}});
  return list;
}

json cache_hits_json(const ReportModel& m) {
  json list = json::array();
  for (const auto& row : m.cache_hits) {
    json rounds = json::array();
    for (const auto& r : row.rounds)
      rounds.push_back({{"round", r.round},
                        {"status", r.status},
                        {"hit_ratio", opt(r.hit_ratio)},
                        {"verdict", verdict_text(r.verdict)}});
    list.push_back(
        {{"scenario", row.scenario->name},
         {"status", row.scenario->status},
         {"expected", row.expected ? json{row.expected->first, row.expected->second} : json()},
         {"hit_ratio", opt(row.hit_ratio)},
         {"hit_ratio_interval", interval_json(row.interval)},
         {"verdict", verdict_text(row.verdict)},
         {"verdict_rounds", row.verdict_rounds},
         {"rounds", rounds}});
  }
  return list;
}

// The tables per workload: the same rows report.md and report.html show, as numbers.
json workloads_json(const ReportModel& m) {
  json list = json::array();
  for (const WorkloadGroup& g : m.workloads) {
    json rows = json::array();
    for (const WorkloadRow& r : g.rows) {
      const MacroScenario& s = *r.scenario;
      rows.push_back({{"target", r.target},
                      {"scenario", s.name},
                      {"status", s.status},
                      {"baseline", s.baseline},
                      {"rps", opt(s.rps)},
                      {"rps_per_gateway_cpu", opt(s.rps_per_gateway_cpu)},
                      {"p50_us", opt(s.latency_at(50))},
                      {"p90_us", opt(s.latency_at(90))},
                      {"p99_us", opt(s.latency_at(99))},
                      {"cpu_percent", opt(s.cpu_percent)},
                      {"peak_mb", opt(s.peak_mb)},
                      {"vs_nginx", opt(s.vs_nginx)},
                      {"vs_nginx_interval", interval_json(s.interval("vs_nginx"))},
                      {"errors", opt(s.errors)},
                      {"images", s.file.images.empty() ? json(nullptr) : s.file.images}});
    }
    list.push_back({{"workload", g.workload}, {"baselines", g.baselines}, {"rows", rows}});
  }
  return list;
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
  if (m.macro || m.macro_instructions) r.cost_attribution = attribution_json(m);
  if (m.macro) {
    r.handshakes = handshakes_json(m);
    r.cache_hit_ratio = cache_hits_json(m);
    r.workloads = workloads_json(m);
  }
  return r;
}

json report_json(const ReportModel& m) {
  return to_json(report_file(m));
}

}  // namespace gatebench::tools
