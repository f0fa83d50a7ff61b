#include "macro/driver/output/round_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gatebench::macro {

using nlohmann::json;

json round1(double value) {
  return std::round(value * 10) / 10;
}

json optional_number(const std::optional<double>& value) {
  return value ? round1(*value) : json(nullptr);
}

namespace {

json ratio(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || *b <= 0) return nullptr;
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

json round_json(const ScenarioResult& r, const ScenarioResult* baseline,
                const ScenarioResult* latency_baseline) {
  json j;
  j["round"] = r.round;
  j["position"] = r.position;
  j["status"] = status_name(r.status);
  j["reason"] = r.reason;
  if (r.load) {
    const LoadResult& l = *r.load;
    j["rps"] = round1(l.rps);
    j["requests"] = l.requests;
    j["measured_s"] = std::round(l.duration_s * 1000) / 1000;
    j["latency_us"] = {{"p50", optional_number(l.p50_us)},
                       {"p90", optional_number(l.p90_us)},
                       {"p99", optional_number(l.p99_us)},
                       {"p999", optional_number(l.p999_us)},
                       {"mean", optional_number(l.mean_us)}};
    j["errors"] = l.errors;
    j["error_rate"] = l.requests > 0
                          ? json(static_cast<double>(l.errors) / static_cast<double>(l.requests))
                          : json(nullptr);
    if (!l.counts.empty()) j["counts"] = l.counts;
    if (!l.per_second.empty()) {
      json series = json::array();
      for (const auto& sec : l.per_second) {
        const auto second = static_cast<std::size_t>(sec.t);
        series.push_back({{"t", sec.t},
                          {"rps", sec.rps},
                          {"p99_us", optional_number(sec.p99_us)},
                          {"errors", sec.errors},
                          {"cpu_percent", second < r.target_cpu_per_second.size()
                                              ? round1(r.target_cpu_per_second[second])
                                              : json(nullptr)}});
      }
      j["per_second"] = std::move(series);
    }
  }
  if (r.target) {
    j["cpu_percent"] = round1(r.target->cpu_percent);
    json by_process = json::object();
    for (const auto& [name, pct] : r.target->cpu_by_process) by_process[name] = round1(pct);
    j["cpu_by_process"] = by_process;
    j["peak_mb"] = round1(r.target->peak_mb);
    j["peak_rss_mb"] = round1(r.target->peak_rss_mb);
  }
  if (!r.cpu_by_role.empty()) {
    json by_role = json::object();
    for (const auto& [role, pct] : r.cpu_by_role) by_role[role] = round1(pct);
    j["cpu_by_role"] = by_role;
  }
  if (r.load) {
    // The target's to 0.01 us: the gate's figure, where a 5% change of ~10 us must show.
    const auto target = cpu_us_per_request(r, "target");
    j["cpu_us_per_request"] = {
        {"target", target ? json(std::round(*target * 100) / 100) : json(nullptr)},
        {"load", optional_number(cpu_us_per_request(r, "load"))},
        {"backend", optional_number(cpu_us_per_request(r, "backend"))}};
    auto cpu = r.cpu_s_by_role.find("target");
    j["rps_per_gateway_cpu"] = cpu != r.cpu_s_by_role.end() && cpu->second > 0
                                   ? round1(static_cast<double>(r.load->requests) / cpu->second)
                                   : json(nullptr);
    j["window"] = {{"source", r.window_source}, {"s", std::round(r.window_s * 1000) / 1000}};
    const auto busy = seconds_of(r, "machine"), idle = seconds_of(r, "machine_idle");
    if (busy && idle && r.window_s > 0) {
      j["machine_cpu"] = {{"busy_percent", round1(100 * *busy / r.window_s)},
                          {"idle_percent", round1(100 * *idle / r.window_s)}};
      if (const auto steal = seconds_of(r, "machine_steal"))
        j["machine_cpu"]["steal_percent"] = round1(100 * *steal / r.window_s);
    }
    const LoadResult& l = *r.load;
    if (l.new_connections && l.handshakes_full && l.handshakes_resumed) {
      j["handshakes"] = {
          {"full", *l.handshakes_full},
          {"resumed", *l.handshakes_resumed},
          {"per_s", l.duration_s > 0
                        ? round1(static_cast<double>(*l.handshakes_full + *l.handshakes_resumed) /
                                 l.duration_s)
                        : json(nullptr)}};
      const auto target = cpu_us_per_handshake(r, "target");
      j["cpu_us_per_handshake"] = {
          {"target", target ? json(std::round(*target * 100) / 100) : json(nullptr)},
          {"load", optional_number(cpu_us_per_handshake(r, "load"))},
          {"backend", optional_number(cpu_us_per_handshake(r, "backend"))}};
    }
    const auto limit = harness_limit(r);
    j["harness_limit"] = limit ? json(*limit) : json(nullptr);
    // To 0.0001: a check of [0.95, 1] must tell 0.9499 from 0.95.
    if (r.expect_hit_ratio)
      j["hit_ratio"] = r.hit_ratio ? json(std::round(*r.hit_ratio * 10000) / 10000) : json(nullptr);
  }
  const bool paired = measured(&r) && measured(baseline);
  j["vs_nginx"] = paired ? ratio(r.load->rps, baseline->load->rps) : json(nullptr);
  j["cpu_vs_nginx"] =
      paired ? ratio(cpu_us_per_request(r, "target"), cpu_us_per_request(*baseline, "target"))
             : json(nullptr);
  j["p99_vs_nginx"] = paired ? ratio(r.load->p99_us, baseline->load->p99_us) : json(nullptr);
  if (!r.latency_baseline.empty()) {
    if (measured(&r) && measured(latency_baseline)) {
      auto delta = [](const std::optional<double>& a, const std::optional<double>& b) {
        return a && b ? json(std::round((*a - *b) * 10) / 10) : json(nullptr);
      };
      const LoadResult& b = *latency_baseline->load;
      j["latency_delta_us"] = {{"mean", delta(r.load->mean_us, b.mean_us)},
                               {"p50", delta(r.load->p50_us, b.p50_us)},
                               {"p90", delta(r.load->p90_us, b.p90_us)},
                               {"p99", delta(r.load->p99_us, b.p99_us)}};
    } else {
      j["latency_delta_us"] = nullptr;
    }
  }
  if (!r.extra.empty()) j["details"] = r.extra;
  j["artifacts"] = r.artifacts;
  return j;
}

}  // namespace gatebench::macro
