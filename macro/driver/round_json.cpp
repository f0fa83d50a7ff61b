#include "macro/driver/round_json.hpp"

#include <cmath>

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

}  // namespace

std::optional<double> cpu_us_per_request(const ScenarioResult& r, const std::string& role) {
  if (!r.load || r.load->requests == 0) return std::nullopt;
  auto it = r.cpu_s_by_role.find(role);
  if (it == r.cpu_s_by_role.end()) return std::nullopt;
  return it->second / static_cast<double>(r.load->requests) * 1e6;
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
