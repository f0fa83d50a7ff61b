#include "macro/driver/output/round_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gatebench::macro {

double round1(double value) {
  return std::round(value * 10) / 10;
}

common::Figure optional_number(const std::optional<double>& value) {
  return value ? common::Figure(round1(*value)) : std::nullopt;
}

namespace {

common::Figure ratio(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || *b <= 0) return std::nullopt;
  return std::round(*a / *b * 10000) / 10000;
}

bool measured(const ScenarioResult* r) {
  return r != nullptr && r->status == Status::ok && r->load.has_value();
}

std::optional<double> seconds_of(const ScenarioResult& r, const std::string& key) {
  auto it = r.cpu_s_by_role.find(key);
  if (it == r.cpu_s_by_role.end()) return std::nullopt;
  return it->second;
}

std::optional<double> us_per(const ScenarioResult& r, const std::string& role, uint64_t count) {
  const auto cpu_s = seconds_of(r, role);
  if (!cpu_s || count == 0) return std::nullopt;
  return *cpu_s / static_cast<double>(count) * 1e6;
}

}  // namespace

std::optional<double> cpu_us_per_request(const ScenarioResult& r, const std::string& role) {
  if (!r.load) return std::nullopt;
  return us_per(r, role, r.load->requests);
}

std::optional<double> cpu_us_per_handshake(const ScenarioResult& r, const std::string& role) {
  if (!r.load || !r.load->handshakes_full || !r.load->handshakes_resumed) return std::nullopt;
  return us_per(r, role, *r.load->handshakes_full + *r.load->handshakes_resumed);
}

std::optional<std::string> harness_limit(const ScenarioResult& r) {
  if (!r.load || !r.load->closed_loop || !r.load->new_connections || r.window_s <= 0)
    return std::nullopt;
  char text[256];
  const auto load = seconds_of(r, "load");
  if (load && r.load->threads > 0) {
    // Running or waiting for a CPU: on a shared machine a thread that wants all of a CPU gets
    // less, and the wait says it wanted more. Without schedstat, its CPU alone.
    const double percent = 100 * *load / r.window_s;
    const double wanted = 100 * seconds_of(r, "load_runnable").value_or(*load) / r.window_s;
    if (std::max(percent, wanted) >= kSaturatedShare * 100 * r.load->threads) {
      std::snprintf(text, sizeof text,
                    "the load generator was saturated (%d thread%s running or waiting for a CPU "
                    "%.0f%% of the window, %.0f%% CPU)",
                    r.load->threads, r.load->threads == 1 ? "" : "s",
                    std::max(percent, wanted) / r.load->threads, percent);
      return text;
    }
  }
  const auto busy = seconds_of(r, "machine"), idle = seconds_of(r, "machine_idle");
  const auto target = seconds_of(r, "target");
  if (busy && idle && target && *busy + *idle > 0) {
    const double idle_share = *idle / (*busy + *idle);
    const double target_percent = 100 * *target / r.window_s;
    if (idle_share >= kIdleShare &&
        target_percent < kSaturatedShare * 100 * std::max(1, r.target_cpus)) {
      std::snprintf(text, sizeof text,
                    "the machine left %.0f%% of its CPU idle while the target used %.0f%% of %d "
                    "CPU%s",
                    100 * idle_share, target_percent, std::max(1, r.target_cpus),
                    r.target_cpus == 1 ? "" : "s");
      return text;
    }
  }
  return std::nullopt;
}

namespace {

// The target's CPU per request (per handshake) to 0.01 us: the gate's figure, where a 5% change
// of ~10 us must show.
common::Figure hundredths(const std::optional<double>& v) {
  return v ? common::Figure(std::round(*v * 100) / 100) : std::nullopt;
}

// Each second of the load's series with the target's CPU in that second.
std::vector<common::MacroSecond> per_second_of(const ScenarioResult& r, const LoadResult& l) {
  std::vector<common::MacroSecond> out;
  for (const auto& sec : l.per_second) {
    const auto second = static_cast<std::size_t>(sec.t);
    out.push_back({sec.t, sec.rps, optional_number(sec.p99_us), sec.errors,
                   second < r.target_cpu_per_second.size()
                       ? common::Figure(round1(r.target_cpu_per_second[second]))
                       : std::nullopt});
  }
  return out;
}

// Every process of the machine in the window; nothing without the machine's samples.
std::optional<common::MacroMachineCpu> machine_cpu_of(const ScenarioResult& r) {
  const auto busy = seconds_of(r, "machine"), idle = seconds_of(r, "machine_idle");
  if (!busy || !idle || r.window_s <= 0) return std::nullopt;
  common::MacroMachineCpu m;
  m.busy_percent = round1(100 * *busy / r.window_s);
  m.idle_percent = round1(100 * *idle / r.window_s);
  if (const auto steal = seconds_of(r, "machine_steal"))
    m.steal_percent = round1(100 * *steal / r.window_s);
  return m;
}

// The TLS handshakes of a round with a new connection per request, and each role's CPU per
// handshake.
void add_handshakes(common::MacroRoundLoad& out, const ScenarioResult& r, const LoadResult& l) {
  if (!l.new_connections || !l.handshakes_full || !l.handshakes_resumed) return;
  const double total = static_cast<double>(*l.handshakes_full + *l.handshakes_resumed);
  out.handshakes = common::MacroRoundHandshakes{
      *l.handshakes_full, *l.handshakes_resumed,
      l.duration_s > 0 ? common::Figure(round1(total / l.duration_s)) : std::nullopt};
  out.cpu_us_per_handshake =
      common::MacroCpuPerRole{hundredths(cpu_us_per_handshake(r, "target")),
                              optional_number(cpu_us_per_handshake(r, "load")),
                              optional_number(cpu_us_per_handshake(r, "backend"))};
}

// What the round's load generator measured, with each role's CPU over it.
common::MacroRoundLoad load_of(const ScenarioResult& r, const LoadResult& l) {
  common::MacroRoundLoad out;
  out.rps = round1(l.rps);
  out.requests = l.requests;
  out.measured_s = std::round(l.duration_s * 1000) / 1000;
  out.latency_us = {optional_number(l.p50_us), optional_number(l.p90_us), optional_number(l.p99_us),
                    optional_number(l.p999_us), optional_number(l.mean_us)};
  out.errors = l.errors;
  if (l.requests > 0)
    out.error_rate = static_cast<double>(l.errors) / static_cast<double>(l.requests);
  out.per_second = per_second_of(r, l);
  out.cpu_us_per_request = {hundredths(cpu_us_per_request(r, "target")),
                            optional_number(cpu_us_per_request(r, "load")),
                            optional_number(cpu_us_per_request(r, "backend"))};
  auto cpu = r.cpu_s_by_role.find("target");
  if (cpu != r.cpu_s_by_role.end() && cpu->second > 0)
    out.rps_per_gateway_cpu = round1(static_cast<double>(l.requests) / cpu->second);
  out.window_source = r.window_source;
  out.window_s = std::round(r.window_s * 1000) / 1000;
  out.machine_cpu = machine_cpu_of(r);
  add_handshakes(out, r, l);
  out.harness_limit = harness_limit(r);
  // To 0.0001: a check of [0.95, 1] must tell 0.9499 from 0.95.
  if (r.expect_hit_ratio)
    out.hit_ratio =
        r.hit_ratio ? common::Figure(std::round(*r.hit_ratio * 10000) / 10000) : std::nullopt;
  return out;
}

common::MacroTargetUsage target_usage_of(const TreeUsage& u) {
  common::MacroTargetUsage t;
  t.cpu_percent = round1(u.cpu_percent);
  for (const auto& [name, pct] : u.cpu_by_process) t.cpu_by_process[name] = round1(pct);
  t.peak_mb = round1(u.peak_mb);
  t.peak_rss_mb = round1(u.peak_rss_mb);
  return t;
}

// The ratios to the baseline of the same round, and the latency over the latency baseline's.
void add_ratios(common::MacroRound& j, const ScenarioResult& r, const ScenarioResult* baseline,
                const ScenarioResult* latency_baseline) {
  if (measured(&r) && measured(baseline)) {
    j.vs_nginx = ratio(r.load->rps, baseline->load->rps);
    j.cpu_vs_nginx =
        ratio(cpu_us_per_request(r, "target"), cpu_us_per_request(*baseline, "target"));
    j.p99_vs_nginx = ratio(r.load->p99_us, baseline->load->p99_us);
  }
  if (r.latency_baseline.empty()) return;
  std::optional<common::MacroLatencyDelta>& delta = j.latency_delta_us.emplace();
  if (!measured(&r) || !measured(latency_baseline)) return;
  auto diff = [](const std::optional<double>& a, const std::optional<double>& b) {
    return a && b ? common::Figure(std::round((*a - *b) * 10) / 10) : std::nullopt;
  };
  const LoadResult& b = *latency_baseline->load;
  delta =
      common::MacroLatencyDelta{diff(r.load->mean_us, b.mean_us), diff(r.load->p50_us, b.p50_us),
                                diff(r.load->p90_us, b.p90_us), diff(r.load->p99_us, b.p99_us)};
}

}  // namespace

common::MacroRound round_result(const ScenarioResult& r, const ScenarioResult* baseline,
                                const ScenarioResult* latency_baseline) {
  common::MacroRound j;
  j.round = r.round;
  j.position = r.position;
  j.status = status_name(r.status);
  j.reason = r.reason;
  if (r.load) {
    j.load = load_of(r, *r.load);
    j.counts = r.load->counts;
  }
  if (r.target) j.target = target_usage_of(*r.target);
  for (const auto& [role, pct] : r.cpu_by_role) j.cpu_by_role[role] = round1(pct);
  add_ratios(j, r, baseline, latency_baseline);
  j.details = r.extra;
  j.artifacts = r.artifacts;
  return j;
}

nlohmann::json round_json(const ScenarioResult& r, const ScenarioResult* baseline,
                          const ScenarioResult* latency_baseline) {
  return common::to_json(round_result(r, baseline, latency_baseline));
}

}  // namespace gatebench::macro
