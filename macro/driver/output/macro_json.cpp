#include "macro/driver/output/macro_json.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "macro/common/json_field.hpp"
#include "macro/driver/output/round_json.hpp"
#include "macro/driver/output/round_stats.hpp"
#include "macro/driver/plan/targets.hpp"

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

std::optional<double> number(const json& j, const std::string& key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

// The values of one figure over the ok rounds; `get` picks it from a round's JSON.
template <typename Get>
std::vector<double> over_rounds(const std::vector<json>& rounds, Get get) {
  std::vector<double> out;
  for (const auto& r : rounds) {
    if (r["status"] != "ok") continue;
    if (auto v = get(r)) out.push_back(*v);
  }
  return out;
}

json median_json(const std::vector<double>& values, int decimals = 1) {
  auto m = median_of(values);
  if (!m) return nullptr;
  const double scale = std::pow(10, decimals);
  return std::round(*m * scale) / scale;
}

json interval_json(const std::vector<double>& values) {
  auto iv = median_interval(values);
  if (!iv) return nullptr;
  auto r4 = [](double v) { return std::round(v * 10000) / 10000; };
  return {{"median", r4(iv->median)},
          {"lo", r4(iv->lo)},
          {"hi", r4(iv->hi)},
          {"n", iv->n},
          {"level", r4(iv->level)}};
}

// Names of a map-valued figure (cpu_by_role, cpu_by_process) over the ok rounds.
std::set<std::string> keys_of(const std::vector<json>& rounds, const char* field) {
  std::set<std::string> keys;
  for (const auto& r : rounds)
    if (r["status"] == "ok" && r.contains(field) && r[field].is_object())
      for (const auto& [k, v] : r[field].items()) keys.insert(k);
  return keys;
}

json median_map(const std::vector<json>& rounds, const char* field, int decimals = 1) {
  json out = json::object();
  for (const auto& key : keys_of(rounds, field))
    out[key] = median_json(
        over_rounds(rounds, [&](const json& r) { return number(r[field], key); }), decimals);
  return out;
}

// "round 2: X" for one failing round, "rounds 2, 4: X" when several failed for the same reason.
std::string failure_reason(const std::vector<json>& rounds) {
  std::vector<std::pair<std::string, std::vector<int>>> reasons;
  for (const auto& r : rounds) {
    if (r["status"] == "ok") continue;
    std::string why = r["reason"].get<std::string>();
    if (r["status"] == "skipped") why = "skipped: " + why;
    auto it =
        std::find_if(reasons.begin(), reasons.end(), [&](const auto& p) { return p.first == why; });
    if (it == reasons.end()) {
      reasons.push_back({why, {r["round"].get<int>()}});
    } else {
      it->second.push_back(r["round"].get<int>());
    }
  }
  std::string out;
  for (const auto& [why, which] : reasons) {
    std::string list;
    for (int n : which) list += (list.empty() ? "" : ", ") + std::to_string(n);
    out += (out.empty() ? "" : "; ") + std::string(which.size() > 1 ? "rounds " : "round ") + list +
           ": " + why;
  }
  return out;
}

struct Aggregate {
  std::string status;
  std::string reason;
};

// "limited by the harness in round 2: X" / "... in rounds 1, 3; round 1: X": the ok rounds
// whose run measured the harness (round_json's harness_limit), with the first one's reason;
// empty when none did.
std::string harness_reason(const std::vector<json>& rounds) {
  std::string list, first;
  int first_round = 0, count = 0;
  for (const auto& r : rounds) {
    if (r["status"] != "ok" || !r.contains("harness_limit") || !r["harness_limit"].is_string())
      continue;
    list += (list.empty() ? "" : ", ") + std::to_string(r["round"].get<int>());
    if (first.empty()) {
      first = r["harness_limit"].get<std::string>();
      first_round = r["round"].get<int>();
    }
    ++count;
  }
  if (count == 0) return "";
  if (count == 1) return "limited by the harness in round " + list + ": " + first;
  return "limited by the harness in rounds " + list + "; round " + std::to_string(first_round) +
         ": " + first;
}

// The *.json file names of a directory without their extension: the shipped targets' and
// workloads' names (each file's name is its name, targets.cpp checks it).
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") out.push_back(entry.path().stem().string());
  return out;
}

// The shipped targets and the --target ones: a name, or the "name" of the file (already read
// and checked by the expansion, so one that cannot be read here is left out, not an error).
std::vector<std::string> known_targets(const Options& options) {
  std::vector<std::string> out = names_in(shipped_targets_dir());
  for (const auto& t : options.targets) {
    try {
      const json doc = common::read_json_file(target_file(t));
      if (doc.contains("name") && doc["name"].is_string()) out.push_back(doc["name"]);
    } catch (const std::exception&) {
    }
  }
  return out;
}

}  // namespace

std::optional<ScenarioIdentity> scenario_identity(const std::string& name,
                                                  const std::vector<std::string>& targets,
                                                  const std::vector<std::string>& workloads) {
  // The hand-written files each expansion replaced keep their names (Targets tests pair them).
  static const std::map<std::string, ScenarioIdentity> kHandWritten = {
      {"nginx-baseline", {"nginx", "plain"}},
      {"nginx-h2-baseline", {"nginx", "h2"}},
      {"gateway-default", {"gateway", "plain"}},
      {"haproxy-baseline", {"haproxy", "plain"}},
      {"caddy-baseline", {"caddy", "plain"}},
      {"waf-mix", {"gateway", "waf-mix"}},
      {"waf-mix-modsecurity", {"nginx", "waf-mix"}},
      {"nginx-modsecurity-crs", {"nginx", "protected"}},
      {"gateway-cache-memory-hit", {"gateway", "cache-hit"}},
      {"gateway-cache-redis-uncacheable", {"gateway", "cache-uncacheable"}},
      {"nginx-proxy-cache-hit", {"nginx", "cache-hit"}},
      {"varnish-hit", {"varnish", "cache-hit"}},
      {"latency-at-rate/gateway-default", {"gateway", "latency-at-rate"}},
      {"latency-at-rate/nginx-baseline", {"nginx", "latency-at-rate"}},
      {"max-throughput/gateway-default", {"gateway", "max-throughput"}},
      {"max-throughput/nginx-baseline", {"nginx", "max-throughput"}}};
  if (const auto it = kHandWritten.find(name); it != kHandWritten.end()) return it->second;
  std::optional<ScenarioIdentity> best;
  for (const auto& w : workloads) {
    if (name.size() <= w.size() + 1 || !name.ends_with("-" + w)) continue;
    const std::string target = name.substr(0, name.size() - w.size() - 1);
    if (std::find(targets.begin(), targets.end(), target) == targets.end()) continue;
    if (!best || w.size() > best->workload.size()) best = ScenarioIdentity{target, w};
  }
  return best;
}

json make_macro_json(const EnvInfo& env, const CpuLayout& layout, const Options& options,
                     const std::string& load_tool, const std::vector<ScenarioResult>& results,
                     const std::vector<std::string>& names, bool interrupted) {
  json pinning = json::object();
  for (Role role : {Role::load, Role::backend, Role::gateway}) {
    const CpuSet& set = layout.of(role);
    // --runtime kube pins only the load (a host process); its Pods run unpinned.
    const bool pinned = !set.empty() && (role == Role::load || options.runtime != "kube");
    pinning[std::string(role_name(role))] = pinned ? json(set.to_string()) : json(nullptr);
  }
  json out;
  out["schema"] = kMacroSchema;
  out["env"] = {{"commit", env.commit},        {"dirty", env.dirty},
                {"cpu_model", env.cpu_model},  {"cpus", env.cpus},
                {"kernel", env.kernel},        {"compiler", env.compiler},
                {"runtime", options.runtime},  {"pinning", pinning},
                {"load_generator", load_tool}, {"date", env.date}};
  if (!env.versions.empty()) out["env"]["versions"] = env.versions;
  if (!env.hosts.empty()) {
    // --hosts runs: where each role ran and each machine (docs/multi-host.md).
    json hosts = json::object();
    for (const HostEnv& h : env.hosts)
      hosts[h.name] = {{"kind", h.kind},
                       {"address", h.address.empty() ? json(nullptr) : json(h.address)},
                       {"roles", h.roles},
                       {"cpu_model", h.cpu_model.empty() ? json(nullptr) : json(h.cpu_model)},
                       {"cpus", h.cpus > 0 ? json(h.cpus) : json(nullptr)},
                       {"kernel", h.kernel.empty() ? json(nullptr) : json(h.kernel)}};
    out["env"]["hosts"] = hosts;
  }
  out["run"] = {
      {"duration_s", options.duration_s},
      {"warmup_s", options.warmup_s},
      {"connections", options.connections},
      {"quick", options.quick},
      {"smoke", options.quick},
      {"rounds", options.rounds},
      {"seed", options.seed},
      {"max_error_rate", options.max_error_rate},
      {"interval", {{"method", "order statistics of the median (binomial)"}, {"level", 0.95}}},
      {"interrupted", interrupted}};

  // Each round's results by scenario name, for pairing with the same round's baseline.
  std::map<int, std::map<std::string, const ScenarioResult*>> by_round;
  for (const auto& r : results) by_round[r.round][r.name] = &r;
  auto in_round = [&](int round, const std::string& name) -> const ScenarioResult* {
    auto it = by_round[round].find(name);
    return it == by_round[round].end() ? nullptr : it->second;
  };

  std::map<std::string, std::vector<json>> rounds;
  std::map<std::string, const ScenarioResult*> first;
  for (const auto& r : results) {
    const ScenarioResult* base = r.baseline.empty() ? nullptr : in_round(r.round, r.baseline);
    const ScenarioResult* lat =
        r.latency_baseline.empty() ? nullptr : in_round(r.round, r.latency_baseline);
    rounds[r.name].push_back(round_json(r, base, lat));
    first.emplace(r.name, &r);
  }
  for (auto& [name, list] : rounds)
    std::sort(list.begin(), list.end(),
              [](const json& a, const json& b) { return a["round"] < b["round"]; });

  // A scenario's own rounds decide first; then a scenario whose baseline is not ok is not ok
  // either (its ratios would have nothing to stand on). Repeated until nothing changes, for a
  // baseline that has a baseline.
  std::map<std::string, Aggregate> agg;
  for (const auto& [name, list] : rounds) {
    const bool all_skipped = std::all_of(list.begin(), list.end(),
                                         [](const json& r) { return r["status"] == "skipped"; });
    const bool all_ok =
        std::all_of(list.begin(), list.end(), [](const json& r) { return r["status"] == "ok"; });
    if (all_skipped) {
      agg[name] = {"skipped", list.front()["reason"].get<std::string>()};
    } else if (all_ok && static_cast<int>(list.size()) == options.rounds) {
      // Measured, but not the target: failed for gating, its figures still reported. Smoke runs
      // (--quick) are too short and too small to say what limited them.
      const std::string harness = options.quick ? "" : harness_reason(list);
      agg[name] = harness.empty() ? Aggregate{"ok", ""} : Aggregate{"failed", harness};
    } else {
      std::string why = failure_reason(list);
      if (static_cast<int>(list.size()) < options.rounds)
        why += (why.empty() ? "" : "; ") + std::string("only ") + std::to_string(list.size()) +
               " of " + std::to_string(options.rounds) + " rounds ran";
      agg[name] = {"failed", why};
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [name, a] : agg) {
      const std::string& base = first[name]->baseline;
      if (a.status != "ok" || base.empty() || base == name || !agg.contains(base)) continue;
      if (agg[base].status == "ok") continue;
      a = {"failed", "baseline " + base + " " + agg[base].status + ": " + agg[base].reason};
      changed = true;
    }
  }

  const std::vector<std::string> targets = known_targets(options);
  const std::vector<std::string> workloads = names_in(shipped_workloads_dir());
  json scenarios = json::array();
  for (const auto& name : names) {
    if (!rounds.contains(name)) continue;
    const std::vector<json>& list = rounds[name];
    const ScenarioResult& r0 = *first[name];
    json s;
    s["name"] = name;
    if (!r0.group.empty()) s["group"] = r0.group;
    // What the report compares per workload (docs/report.md): absent for a scenario that is no
    // target on a workload.
    if (const auto id = scenario_identity(name, targets, workloads)) {
      s["workload"] = id->workload;
      s["target"] = id->target;
    }
    s["status"] = agg[name].status;
    s["reason"] = agg[name].reason;
    s["baseline"] = r0.baseline;
    if (!r0.latency_baseline.empty()) s["latency_baseline"] = r0.latency_baseline;
    if (!r0.images.empty()) s["images"] = r0.images;
    if (r0.expect_hit_ratio)
      s["expect_hit_ratio"] = {r0.expect_hit_ratio->first, r0.expect_hit_ratio->second};
    s["rounds_planned"] = options.rounds;
    const auto ok_count =
        std::count_if(list.begin(), list.end(), [](const json& r) { return r["status"] == "ok"; });
    s["rounds_ok"] = ok_count;
    const bool measured = ok_count > 0;

    auto figure = [&](auto get) { return over_rounds(list, get); };
    auto at = [](const char* a) { return [a](const json& r) { return number(r, a); }; };
    auto at2 = [](const char* a, const char* b) {
      return [a, b](const json& r) {
        return r.contains(a) ? number(r[a], b) : std::optional<double>();
      };
    };
    if (measured) {
      s["rps"] = median_json(figure(at("rps")));
      s["rps_per_gateway_cpu"] = median_json(figure(at("rps_per_gateway_cpu")));
      json lat = json::object();
      for (const char* p : {"p50", "p90", "p99", "p999", "mean"})
        lat[p] = median_json(figure(at2("latency_us", p)));
      s["latency_us"] = lat;
      s["cpu_percent"] = median_json(figure(at("cpu_percent")));
      s["cpu_by_process"] = median_map(list, "cpu_by_process");
      s["cpu_by_role"] = median_map(list, "cpu_by_role");
      const auto peaks = figure(at("peak_mb"));
      s["peak_mb"] =
          peaks.empty() ? json(nullptr) : round1(*std::max_element(peaks.begin(), peaks.end()));
      const auto rss = figure(at("peak_rss_mb"));
      s["peak_rss_mb"] =
          rss.empty() ? json(nullptr) : round1(*std::max_element(rss.begin(), rss.end()));
      s["cpu_us_per_request"] = median_map(list, "cpu_us_per_request", 2);
      if (!keys_of(list, "machine_cpu").empty()) s["machine_cpu"] = median_map(list, "machine_cpu");
      if (!keys_of(list, "handshakes").empty()) {
        // New connection per request: req/s are handshakes/s; full and resumed are summed over
        // the ok rounds, as counts are.
        auto sum = [&](const char* key) {
          uint64_t n = 0;
          for (double v : figure(at2("handshakes", key))) n += static_cast<uint64_t>(v);
          return n;
        };
        s["handshakes"] = {{"per_s", median_json(figure(at2("handshakes", "per_s")))},
                           {"full", sum("full")},
                           {"resumed", sum("resumed")}};
        s["cpu_us_per_handshake"] = median_map(list, "cpu_us_per_handshake", 2);
      }
      s["target_role"] = r0.target_role;
      s["target_cpus"] = r0.target_cpus;
      s["vs_nginx"] = median_json(figure(at("vs_nginx")), 4);
      s["cpu_vs_nginx"] = median_json(figure(at("cpu_vs_nginx")), 4);
      s["p99_vs_nginx"] = median_json(figure(at("p99_vs_nginx")), 4);
      s["intervals"] = {
          {"rps", interval_json(figure(at("rps")))},
          {"vs_nginx", interval_json(figure(at("vs_nginx")))},
          {"cpu_vs_nginx", interval_json(figure(at("cpu_vs_nginx")))},
          {"p99_vs_nginx", interval_json(figure(at("p99_vs_nginx")))},
          {"cpu_us_per_request", interval_json(figure(at2("cpu_us_per_request", "target")))},
          {"p99_us", interval_json(figure(at2("latency_us", "p99")))}};
      if (s.contains("cpu_us_per_handshake"))
        s["intervals"]["cpu_us_per_handshake"] =
            interval_json(figure(at2("cpu_us_per_handshake", "target")));
      if (r0.expect_hit_ratio) {
        s["hit_ratio"] = median_json(figure(at("hit_ratio")), 4);
        s["intervals"]["hit_ratio"] = interval_json(figure(at("hit_ratio")));
      }
      if (!r0.latency_baseline.empty()) {
        json delta = json::object();
        for (const char* p : {"mean", "p50", "p90", "p99"})
          delta[p] = median_json(figure(at2("latency_delta_us", p)));
        s["latency_delta_us"] = delta;
      }
    } else {
      for (const char* f :
           {"rps", "rps_per_gateway_cpu", "latency_us", "cpu_percent", "cpu_by_process", "peak_mb",
            "vs_nginx", "cpu_vs_nginx", "p99_vs_nginx", "cpu_us_per_request"})
        s[f] = nullptr;
    }
    // Errors count in every round that measured, ok or not: a failed round's errors are news.
    uint64_t errors = 0, requests = 0;
    bool any_load = false;
    json counts = json::object();
    for (const auto& r : list) {
      if (!r.contains("requests")) continue;
      any_load = true;
      errors += r["errors"].get<uint64_t>();
      requests += r["requests"].get<uint64_t>();
      if (r["status"] == "ok" && r.contains("counts"))
        for (const auto& [k, v] : r["counts"].items())
          if (v.is_number()) counts[k] = counts.value(k, 0.0) + v.get<double>();
    }
    s["errors"] = any_load ? json(errors) : json(nullptr);
    s["requests"] = any_load ? json(requests) : json(nullptr);
    s["error_rate"] = any_load && requests > 0
                          ? json(static_cast<double>(errors) / static_cast<double>(requests))
                          : json(nullptr);
    if (!counts.empty()) s["counts"] = counts;
    // The series and details of the round whose req/s is the median, as the scenario's example.
    if (measured) {
      const double mid = *median_of(figure(at("rps")));
      const json* example = nullptr;
      for (const auto& r : list)
        if (r["status"] == "ok" && r.contains("rps") &&
            (!example || std::abs(r["rps"].get<double>() - mid) <
                             std::abs((*example)["rps"].get<double>() - mid)))
          example = &r;
      if (example->contains("per_second")) s["per_second"] = (*example)["per_second"];
      if (example->contains("details")) s["details"] = (*example)["details"];
      s["example_round"] = (*example)["round"];
    }
    json artifacts = json::array();
    for (const auto& r : list)
      for (const auto& a : r["artifacts"]) artifacts.push_back(a);
    s["artifacts"] = artifacts;
    s["rounds"] = list;
    scenarios.push_back(std::move(s));
  }
  out["scenarios"] = std::move(scenarios);
  return out;
}

}  // namespace gatebench::macro
