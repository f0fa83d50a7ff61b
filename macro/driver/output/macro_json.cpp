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

using common::Figure;
using common::FigureMap;
using common::MacroRound;

bool is_ok(const MacroRound& r) {
  return r.status == "ok";
}

// The values of one figure over the ok rounds; `get` picks it from a round (nothing: the round
// has none).
template <typename Get>
std::vector<double> over_rounds(const std::vector<MacroRound>& rounds, Get get) {
  std::vector<double> out;
  for (const auto& r : rounds) {
    if (!is_ok(r)) continue;
    if (const Figure v = get(r)) out.push_back(*v);
  }
  return out;
}

Figure median_figure(const std::vector<double>& values, int decimals = 1) {
  auto m = median_of(values);
  if (!m) return std::nullopt;
  const double scale = std::pow(10, decimals);
  return std::round(*m * scale) / scale;
}

std::optional<common::MacroMedianInterval> interval_of(const std::vector<double>& values) {
  auto iv = median_interval(values);
  if (!iv) return std::nullopt;
  auto r4 = [](double v) { return std::round(v * 10000) / 10000; };
  return common::MacroMedianInterval{r4(iv->median), r4(iv->lo), r4(iv->hi), iv->n, r4(iv->level)};
}

FigureMap figures_of(const std::map<std::string, double>& values) {
  FigureMap out;
  for (const auto& [name, v] : values) out[name] = v;
  return out;
}

FigureMap figures_of(const common::MacroCpuPerRole& c) {
  return {{"target", c.target}, {"load", c.load}, {"backend", c.backend}};
}

// The median of each figure of a named set (cpu_by_role, cpu_us_per_request ...) over the ok
// rounds, for every name an ok round has; `get` returns a round's set, nothing when it has none.
template <typename Get>
FigureMap median_map(const std::vector<MacroRound>& rounds, Get get, int decimals = 1) {
  std::set<std::string> keys;
  for (const auto& r : rounds)
    if (is_ok(r))
      if (const std::optional<FigureMap> m = get(r))
        for (const auto& [k, v] : *m) keys.insert(k);
  FigureMap out;
  for (const auto& key : keys)
    out[key] = median_figure(over_rounds(rounds,
                                         [&](const MacroRound& r) -> Figure {
                                           const std::optional<FigureMap> m = get(r);
                                           if (!m) return std::nullopt;
                                           const auto it = m->find(key);
                                           return it == m->end() ? std::nullopt : it->second;
                                         }),
                             decimals);
  return out;
}

// "round 2: X" for one failing round, "rounds 2, 4: X" when several failed for the same reason.
std::string failure_reason(const std::vector<MacroRound>& rounds) {
  std::vector<std::pair<std::string, std::vector<int>>> reasons;
  for (const auto& r : rounds) {
    if (is_ok(r)) continue;
    std::string why = r.reason;
    if (r.status == "skipped") why = "skipped: " + why;
    auto it =
        std::find_if(reasons.begin(), reasons.end(), [&](const auto& p) { return p.first == why; });
    if (it == reasons.end()) {
      reasons.push_back({why, {r.round}});
    } else {
      it->second.push_back(r.round);
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
std::string harness_reason(const std::vector<MacroRound>& rounds) {
  std::string list, first;
  int first_round = 0, count = 0;
  for (const auto& r : rounds) {
    if (!is_ok(r) || !r.load || !r.load->harness_limit) continue;
    list += (list.empty() ? "" : ", ") + std::to_string(r.round);
    if (first.empty()) {
      first = *r.load->harness_limit;
      first_round = r.round;
    }
    ++count;
  }
  if (count == 0) return "";
  if (count == 1) return "limited by the harness in round " + list + ": " + first;
  return "limited by the harness in rounds " + list + "; round " + std::to_string(first_round) +
         ": " + first;
}

using RoundLoad = common::MacroRoundLoad;
using RoundTarget = common::MacroTargetUsage;

// A round's figure picked from its load (its target usage): nothing for a round without one.
template <typename Pick>
auto of_load(Pick pick) {
  return [pick](const MacroRound& r) -> Figure { return r.load ? pick(*r.load) : std::nullopt; };
}
template <typename Pick>
auto of_target(Pick pick) {
  return [pick](const MacroRound& r) -> Figure {
    return r.target ? Figure(pick(*r.target)) : std::nullopt;
  };
}

// The figures that have an interval beside their median.
Figure rps_of(const MacroRound& r) {
  return r.load ? Figure(r.load->rps) : std::nullopt;
}
Figure p99_of(const MacroRound& r) {
  return r.load ? r.load->latency_us.p99 : std::nullopt;
}
Figure cpu_per_request_of(const MacroRound& r) {
  return r.load ? r.load->cpu_us_per_request.target : std::nullopt;
}
Figure vs_nginx_of(const MacroRound& r) {
  return r.vs_nginx;
}
Figure cpu_vs_nginx_of(const MacroRound& r) {
  return r.cpu_vs_nginx;
}
Figure p99_vs_nginx_of(const MacroRound& r) {
  return r.p99_vs_nginx;
}

// req/s, req/s per gateway CPU second and the latency percentiles.
void load_medians(common::MacroMedians& m, const std::vector<MacroRound>& list) {
  const auto median_of_load = [&](auto pick) {
    return median_figure(over_rounds(list, of_load(pick)));
  };
  m.rps = median_figure(over_rounds(list, rps_of));
  m.rps_per_gateway_cpu = median_of_load([](const RoundLoad& l) { return l.rps_per_gateway_cpu; });
  m.latency_us = {median_of_load([](const RoundLoad& l) { return l.latency_us.p50; }),
                  median_of_load([](const RoundLoad& l) { return l.latency_us.p90; }),
                  median_figure(over_rounds(list, p99_of)),
                  median_of_load([](const RoundLoad& l) { return l.latency_us.p999; }),
                  median_of_load([](const RoundLoad& l) { return l.latency_us.mean; })};
}

// The measured role's CPU and memory, CPU by process and by role, CPU per request and the
// machine's CPU.
void usage_medians(common::MacroMedians& m, const std::vector<MacroRound>& list) {
  m.cpu_percent = median_figure(
      over_rounds(list, of_target([](const RoundTarget& t) { return t.cpu_percent; })));
  m.cpu_by_process = median_map(list, [](const MacroRound& r) -> std::optional<FigureMap> {
    if (!r.target) return std::nullopt;
    return figures_of(r.target->cpu_by_process);
  });
  m.cpu_by_role = median_map(list, [](const MacroRound& r) -> std::optional<FigureMap> {
    if (r.cpu_by_role.empty()) return std::nullopt;
    return figures_of(r.cpu_by_role);
  });
  // The highest of the rounds: memory is a peak, not a rate.
  const auto highest = [&](double RoundTarget::*peak) -> Figure {
    const auto values =
        over_rounds(list, of_target([peak](const RoundTarget& t) { return t.*peak; }));
    if (values.empty()) return std::nullopt;
    return round1(*std::max_element(values.begin(), values.end()));
  };
  m.peak_mb = highest(&RoundTarget::peak_mb);
  m.peak_rss_mb = highest(&RoundTarget::peak_rss_mb);
  m.cpu_us_per_request = median_map(
      list,
      [](const MacroRound& r) -> std::optional<FigureMap> {
        if (!r.load) return std::nullopt;
        return figures_of(r.load->cpu_us_per_request);
      },
      2);
  m.machine_cpu = median_map(list, [](const MacroRound& r) -> std::optional<FigureMap> {
    if (!r.load || !r.load->machine_cpu) return std::nullopt;
    const common::MacroMachineCpu& c = *r.load->machine_cpu;
    FigureMap out = {{"busy_percent", c.busy_percent}, {"idle_percent", c.idle_percent}};
    if (c.steal_percent) out["steal_percent"] = c.steal_percent;
    return out;
  });
}

// A new connection per request: req/s are handshakes/s; full and resumed are summed over the ok
// rounds, as counts are. Nothing when no ok round counted handshakes.
std::optional<common::MacroScenarioHandshakes> handshake_medians(
    const std::vector<MacroRound>& list) {
  const auto counted = [](const MacroRound& r) { return is_ok(r) && r.load && r.load->handshakes; };
  if (std::none_of(list.begin(), list.end(), counted)) return std::nullopt;
  common::MacroScenarioHandshakes h;
  for (const auto& r : list)
    if (counted(r)) {
      h.full += r.load->handshakes->full;
      h.resumed += r.load->handshakes->resumed;
    }
  h.per_s = median_figure(over_rounds(list, of_load([](const RoundLoad& l) {
                                        return l.handshakes ? l.handshakes->per_s : std::nullopt;
                                      })));
  h.cpu_us_per_handshake = median_map(
      list,
      [](const MacroRound& r) -> std::optional<FigureMap> {
        if (!r.load || !r.load->cpu_us_per_handshake) return std::nullopt;
        return figures_of(*r.load->cpu_us_per_handshake);
      },
      2);
  return h;
}

// The ratios to the baseline, and the intervals of the figures a gate reads (after
// handshake_medians: a scenario with handshakes has the interval of its CPU per handshake).
void ratio_medians(common::MacroMedians& m, const std::vector<MacroRound>& list) {
  const auto figure = [&](auto get) { return over_rounds(list, get); };
  m.vs_nginx = median_figure(figure(vs_nginx_of), 4);
  m.cpu_vs_nginx = median_figure(figure(cpu_vs_nginx_of), 4);
  m.p99_vs_nginx = median_figure(figure(p99_vs_nginx_of), 4);
  m.intervals = {{"rps", interval_of(figure(rps_of))},
                 {"vs_nginx", interval_of(figure(vs_nginx_of))},
                 {"cpu_vs_nginx", interval_of(figure(cpu_vs_nginx_of))},
                 {"p99_vs_nginx", interval_of(figure(p99_vs_nginx_of))},
                 {"cpu_us_per_request", interval_of(figure(cpu_per_request_of))},
                 {"p99_us", interval_of(figure(p99_of))}};
  if (m.handshakes)
    m.intervals["cpu_us_per_handshake"] = interval_of(figure(of_load([](const RoundLoad& l) {
      return l.cpu_us_per_handshake ? l.cpu_us_per_handshake->target : std::nullopt;
    })));
}

// What a scenario checks besides its load: the cache's hit ratio, its latency over its latency
// baseline's.
void check_medians(common::MacroMedians& m, const std::vector<MacroRound>& list,
                   const ScenarioResult& r0) {
  if (r0.expect_hit_ratio) {
    const auto hit = over_rounds(list, of_load([](const RoundLoad& l) {
                                   return l.hit_ratio ? *l.hit_ratio : std::nullopt;
                                 }));
    m.hit_ratio = median_figure(hit, 4);
    m.intervals["hit_ratio"] = interval_of(hit);
  }
  if (!r0.latency_baseline.empty()) {
    auto delta = [&](Figure common::MacroLatencyDelta::*p) {
      return median_figure(over_rounds(list, [p](const MacroRound& r) -> Figure {
        return r.latency_delta_us && *r.latency_delta_us ? (**r.latency_delta_us).*p : std::nullopt;
      }));
    };
    m.latency_delta_us = common::MacroLatencyDelta{
        delta(&common::MacroLatencyDelta::mean), delta(&common::MacroLatencyDelta::p50),
        delta(&common::MacroLatencyDelta::p90), delta(&common::MacroLatencyDelta::p99)};
  }
}

// The series and details of the round whose req/s is the median, as the scenario's example.
void example_of(common::MacroMedians& m, const std::vector<MacroRound>& list) {
  const auto mid = median_of(over_rounds(list, rps_of));
  if (!mid) return;
  const MacroRound* example = nullptr;
  for (const auto& r : list)
    if (is_ok(r) && r.load &&
        (!example || std::abs(r.load->rps - *mid) < std::abs(example->load->rps - *mid)))
      example = &r;
  m.per_second = example->load->per_second;
  m.details = example->details;
  m.example_round = example->round;
}

// A scenario's medians over its ok rounds (at least one); `r0` is its first round's result.
common::MacroMedians medians_of(const std::vector<MacroRound>& list, const ScenarioResult& r0) {
  common::MacroMedians m;
  load_medians(m, list);
  usage_medians(m, list);
  m.handshakes = handshake_medians(list);
  m.target_role = r0.target_role;
  m.target_cpus = r0.target_cpus;
  ratio_medians(m, list);
  check_medians(m, list, r0);
  example_of(m, list);
  return m;
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
      const nlohmann::json doc = common::read_json_file(target_file(t));
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

namespace {

// The machine, the build, the programs, and where each role ran.
common::MacroEnv env_of(const EnvInfo& env, const CpuLayout& layout, const Options& options,
                        const std::string& load_tool) {
  common::MacroEnv out;
  for (Role role : {Role::load, Role::backend, Role::gateway}) {
    const CpuSet& set = layout.of(role);
    // --runtime kube pins only the load (a host process); its Pods run unpinned.
    const bool pinned = !set.empty() && (role == Role::load || options.runtime != "kube");
    std::optional<std::string> cpus;
    if (pinned) cpus = set.to_string();
    (role == Role::load      ? out.pinning.load
     : role == Role::backend ? out.pinning.backend
                             : out.pinning.gateway) = cpus;
  }
  out.commit = env.commit;
  out.dirty = env.dirty;
  out.cpu_model = env.cpu_model;
  out.cpus = env.cpus;
  out.kernel = env.kernel;
  out.compiler = env.compiler;
  out.runtime = options.runtime;
  out.load_generator = load_tool;
  out.date = env.date;
  out.versions = env.versions;
  // --hosts runs: where each role ran and each machine (docs/multi-host.md).
  for (const HostEnv& h : env.hosts)
    out.hosts[h.name] = {h.kind, h.address, h.roles, h.cpu_model, h.cpus, h.kernel};
  return out;
}

// Every scenario's rounds in round order, each with its ratios to the same round's baseline, and
// its first result, for what every round of it shares.
struct ScenarioRounds {
  std::map<std::string, std::vector<MacroRound>> rounds;
  std::map<std::string, const ScenarioResult*> first;
};

ScenarioRounds rounds_by_scenario(const std::vector<ScenarioResult>& results) {
  // Each round's results by scenario name, for pairing with the same round's baseline.
  std::map<int, std::map<std::string, const ScenarioResult*>> by_round;
  for (const auto& r : results) by_round[r.round][r.name] = &r;
  auto in_round = [&](int round, const std::string& name) -> const ScenarioResult* {
    auto it = by_round[round].find(name);
    return it == by_round[round].end() ? nullptr : it->second;
  };
  ScenarioRounds out;
  for (const auto& r : results) {
    const ScenarioResult* base = r.baseline.empty() ? nullptr : in_round(r.round, r.baseline);
    const ScenarioResult* lat =
        r.latency_baseline.empty() ? nullptr : in_round(r.round, r.latency_baseline);
    out.rounds[r.name].push_back(round_result(r, base, lat));
    out.first.emplace(r.name, &r);
  }
  for (auto& [name, list] : out.rounds)
    std::stable_sort(list.begin(), list.end(),
                     [](const MacroRound& a, const MacroRound& b) { return a.round < b.round; });
  return out;
}

// What a scenario's own rounds say of it.
Aggregate own_status(const std::vector<MacroRound>& list, const Options& options) {
  const bool all_skipped = std::all_of(list.begin(), list.end(),
                                       [](const MacroRound& r) { return r.status == "skipped"; });
  const bool all_ok = std::all_of(list.begin(), list.end(), is_ok);
  if (all_skipped) return {"skipped", list.front().reason};
  if (all_ok && static_cast<int>(list.size()) == options.rounds) {
    // Measured, but not the target: failed for gating, its figures still reported. Smoke runs
    // (--quick) are too short and too small to say what limited them.
    const std::string harness = options.quick ? "" : harness_reason(list);
    return harness.empty() ? Aggregate{"ok", ""} : Aggregate{"failed", harness};
  }
  std::string why = failure_reason(list);
  if (static_cast<int>(list.size()) < options.rounds)
    why += (why.empty() ? "" : "; ") + std::string("only ") + std::to_string(list.size()) + " of " +
           std::to_string(options.rounds) + " rounds ran";
  return {"failed", why};
}

// A scenario's own rounds decide first; then a scenario whose baseline is not ok is not ok
// either (its ratios would have nothing to stand on). Repeated until nothing changes, for a
// baseline that has a baseline.
std::map<std::string, Aggregate> scenario_statuses(const ScenarioRounds& scenarios,
                                                   const Options& options) {
  std::map<std::string, Aggregate> agg;
  for (const auto& [name, list] : scenarios.rounds) agg[name] = own_status(list, options);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [name, a] : agg) {
      const std::string& base = scenarios.first.at(name)->baseline;
      if (a.status != "ok" || base.empty() || base == name || !agg.contains(base)) continue;
      if (agg[base].status == "ok") continue;
      a = {"failed", "baseline " + base + " " + agg[base].status + ": " + agg[base].reason};
      changed = true;
    }
  }
  return agg;
}

// Errors and requests over every round that measured, ok or not (a failed round's errors are
// news); counts over the ok rounds.
void add_totals(common::MacroScenario& s, const std::vector<MacroRound>& list) {
  uint64_t errors = 0, requests = 0;
  bool any_load = false;
  for (const auto& r : list) {
    if (!r.load) continue;
    any_load = true;
    errors += r.load->errors;
    requests += r.load->requests;
    if (is_ok(r))
      for (const auto& [k, v] : r.counts) s.counts[k] += v;
  }
  if (!any_load) return;
  s.errors = errors;
  s.requests = requests;
  if (requests > 0) s.error_rate = static_cast<double>(errors) / static_cast<double>(requests);
}

// One scenario of the file; its rounds are moved into it. `id`: what the report compares per
// workload (docs/report.md), nothing for a scenario that is no target on a workload.
common::MacroScenario scenario_entry(const std::string& name, std::vector<MacroRound>& list,
                                     const ScenarioResult& r0, const Aggregate& status,
                                     int rounds_planned,
                                     const std::optional<ScenarioIdentity>& id) {
  common::MacroScenario s;
  s.name = name;
  s.group = r0.group;
  if (id) {
    s.workload = id->workload;
    s.target = id->target;
  }
  s.status = status.status;
  s.reason = status.reason;
  s.baseline = r0.baseline;
  s.latency_baseline = r0.latency_baseline;
  s.images = r0.images;
  s.expect_hit_ratio = r0.expect_hit_ratio;
  s.rounds_planned = rounds_planned;
  s.rounds_ok = static_cast<int>(std::count_if(list.begin(), list.end(), is_ok));
  if (s.rounds_ok > 0) s.medians = medians_of(list, r0);
  add_totals(s, list);
  for (const auto& r : list)
    s.artifacts.insert(s.artifacts.end(), r.artifacts.begin(), r.artifacts.end());
  s.rounds = std::move(list);
  return s;
}

}  // namespace

common::MacroResult make_macro_result(const EnvInfo& env, const CpuLayout& layout,
                                      const Options& options, const std::string& load_tool,
                                      const std::vector<ScenarioResult>& results,
                                      const std::vector<std::string>& names, bool interrupted) {
  common::MacroResult out;
  out.env = env_of(env, layout, options, load_tool);
  out.run = {options.duration_s, options.warmup_s, options.connections,    options.quick,
             options.rounds,     options.seed,     options.max_error_rate, interrupted};
  ScenarioRounds scenarios = rounds_by_scenario(results);
  const std::map<std::string, Aggregate> agg = scenario_statuses(scenarios, options);
  const std::vector<std::string> targets = known_targets(options);
  const std::vector<std::string> workloads = names_in(shipped_workloads_dir());
  for (const auto& name : names) {
    const auto it = scenarios.rounds.find(name);
    if (it == scenarios.rounds.end()) continue;
    out.scenarios.push_back(scenario_entry(name, it->second, *scenarios.first.at(name),
                                           agg.at(name), options.rounds,
                                           scenario_identity(name, targets, workloads)));
  }
  return out;
}

nlohmann::json make_macro_json(const EnvInfo& env, const CpuLayout& layout, const Options& options,
                               const std::string& load_tool,
                               const std::vector<ScenarioResult>& results,
                               const std::vector<std::string>& names, bool interrupted) {
  return common::to_json(
      make_macro_result(env, layout, options, load_tool, results, names, interrupted));
}

}  // namespace gatebench::macro
