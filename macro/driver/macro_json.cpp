#include "macro/driver/macro_json.hpp"

#include <cmath>

namespace gatebench::macro {

using nlohmann::json;

std::string_view status_name(Status status) {
  switch (status) {
    case Status::ok:
      return "ok";
    case Status::skipped:
      return "skipped";
    case Status::failed:
      return "failed";
  }
  return "failed";
}

namespace {

json optional_number(const std::optional<double>& value) {
  return value ? json(std::round(*value * 10) / 10) : json(nullptr);
}

json round1(double value) {
  return std::round(value * 10) / 10;
}

}  // namespace

json make_macro_json(const EnvInfo& env, const CpuLayout& layout, const Options& options,
                     const std::string& load_tool, const std::vector<ScenarioResult>& results,
                     bool interrupted) {
  json pinning = json::object();
  for (Role role : {Role::load, Role::backend, Role::gateway}) {
    const CpuSet& set = layout.of(role);
    pinning[std::string(role_name(role))] = set.empty() ? json(nullptr) : json(set.to_string());
  }
  json out;
  out["schema"] = kMacroSchema;
  out["env"] = {{"commit", env.commit}, {"cpu_model", env.cpu_model}, {"cpus", env.cpus},
                {"kernel", env.kernel}, {"compiler", env.compiler},   {"runtime", options.runtime},
                {"pinning", pinning},   {"load_generator", load_tool}};
  out["run"] = {{"duration_s", options.duration_s},
                {"warmup_s", options.warmup_s},
                {"connections", options.connections},
                {"quick", options.quick},
                {"interrupted", interrupted}};
  std::map<std::string, double> ok_rps;
  std::map<std::string, const LoadResult*> ok_load;
  for (const auto& r : results) {
    if (r.status == Status::ok && r.load) {
      ok_rps[r.name] = r.load->rps;
      ok_load[r.name] = &*r.load;
    }
  }
  json scenarios = json::array();
  for (const auto& r : results) {
    json s;
    s["name"] = r.name;
    if (!r.group.empty()) s["group"] = r.group;
    s["status"] = status_name(r.status);
    s["reason"] = r.reason;
    const bool measured = r.status == Status::ok && r.load.has_value();
    s["rps"] = measured ? round1(r.load->rps) : json(nullptr);
    s["rps_per_gateway_cpu"] =
        measured ? round1(r.load->rps / std::max(1, r.target_cpus)) : json(nullptr);
    if (measured) {
      s["latency_us"] = {{"p50", optional_number(r.load->p50_us)},
                         {"p90", optional_number(r.load->p90_us)},
                         {"p99", optional_number(r.load->p99_us)},
                         {"p999", optional_number(r.load->p999_us)},
                         {"mean", optional_number(r.load->mean_us)}};
      s["requests"] = r.load->requests;
      s["measured_s"] = round1(r.load->duration_s);
    } else {
      s["latency_us"] = nullptr;
    }
    if (measured && r.target) {
      s["cpu_percent"] = round1(r.target->cpu_percent);
      json by_process = json::object();
      for (const auto& [name, pct] : r.target->cpu_by_process) by_process[name] = round1(pct);
      s["cpu_by_process"] = by_process;
      s["peak_mb"] = round1(r.target->peak_mb);
      s["peak_rss_mb"] = round1(r.target->peak_rss_mb);
    } else {
      s["cpu_percent"] = nullptr;
      s["cpu_by_process"] = nullptr;
      s["peak_mb"] = nullptr;
    }
    if (measured) {
      json by_role = json::object();
      for (const auto& [role, pct] : r.cpu_by_role) by_role[role] = round1(pct);
      s["cpu_by_role"] = by_role;
      s["target_role"] = r.target_role;
      s["target_cpus"] = r.target_cpus;
    }
    s["baseline"] = r.baseline;
    auto base = ok_rps.find(r.baseline);
    s["vs_nginx"] = measured && base != ok_rps.end() && base->second > 0
                        ? json(std::round(r.load->rps / base->second * 1000) / 1000)
                        : json(nullptr);
    s["errors"] = measured ? json(r.load->errors) : json(nullptr);
    if (measured && !r.load->counts.empty()) s["counts"] = r.load->counts;
    if (measured && !r.load->per_second.empty()) {
      json series = json::array();
      for (const auto& sec : r.load->per_second) {
        json point = {{"t", sec.t},
                      {"rps", sec.rps},
                      {"p99_us", optional_number(sec.p99_us)},
                      {"errors", sec.errors}};
        const auto second = static_cast<std::size_t>(sec.t);
        point["cpu_percent"] = second < r.target_cpu_per_second.size()
                                   ? json(round1(r.target_cpu_per_second[second]))
                                   : json(nullptr);
        series.push_back(std::move(point));
      }
      s["per_second"] = std::move(series);
    }
    s["artifacts"] = r.artifacts;
    if (!r.latency_baseline.empty()) {
      s["latency_baseline"] = r.latency_baseline;
      auto base_load = ok_load.find(r.latency_baseline);
      if (measured && base_load != ok_load.end()) {
        auto delta = [](const std::optional<double>& a, const std::optional<double>& b) {
          return a && b ? json(std::round((*a - *b) * 10) / 10) : json(nullptr);
        };
        const LoadResult& b = *base_load->second;
        s["latency_delta_us"] = {{"mean", delta(r.load->mean_us, b.mean_us)},
                                 {"p50", delta(r.load->p50_us, b.p50_us)},
                                 {"p90", delta(r.load->p90_us, b.p90_us)},
                                 {"p99", delta(r.load->p99_us, b.p99_us)}};
      } else {
        s["latency_delta_us"] = nullptr;
      }
    }
    if (!r.extra.empty()) s["details"] = r.extra;
    scenarios.push_back(std::move(s));
  }
  out["scenarios"] = std::move(scenarios);
  return out;
}

}  // namespace gatebench::macro
