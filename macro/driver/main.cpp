// gatebench-macro: the end-to-end scenario driver (`gatebench macro`).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "macro/common/duration.hpp"
#include "macro/common/stop_signal.hpp"
#include "macro/driver/measure/instructions.hpp"
#include "macro/driver/measure/load_fanout.hpp"
#include "macro/driver/measure/remote_sampler.hpp"
#include "macro/driver/measure/round_order.hpp"
#include "macro/driver/measure/runner.hpp"
#include "macro/driver/measure/target_check.hpp"
#include "macro/driver/output/macro_json.hpp"
#include "macro/driver/plan/hosts.hpp"
#include "macro/driver/plan/options.hpp"
#include "macro/driver/plan/plan.hpp"
#include "macro/driver/plan/scenario.hpp"
#include "macro/driver/plan/scenario_names.hpp"
#include "macro/driver/plan/targets.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/container.hpp"
#include "macro/driver/runtime/engine_service.hpp"
#include "macro/driver/runtime/kube_pod.hpp"
#include "macro/driver/runtime/remote_hosts.hpp"
#include "macro/driver/runtime/remote_service.hpp"
#include "macro/driver/system/children.hpp"
#include "macro/driver/system/env_info.hpp"
#include "macro/driver/system/progress.hpp"

namespace fs = std::filesystem;
using namespace gatebench::macro;
namespace common = gatebench::common;

namespace {

void check_cpus_exist(const CpuOverrides& overrides, int online) {
  const std::pair<const char*, const std::optional<CpuSet>*> roles[] = {
      {"load", &overrides.load}, {"backend", &overrides.backend}, {"gateway", &overrides.gateway}};
  for (const auto& [name, set] : roles) {
    if (!*set) continue;
    for (int cpu : (*set)->cpus) {
      if (cpu >= online) {
        throw gatebench::common::UsageError(std::string(name) + " CPUs: CPU " +
                                            std::to_string(cpu) + " does not exist (" +
                                            std::to_string(online) + " online)");
      }
    }
  }
}

// Every selected scenario's baseline runs too, in every round: its ratios are paired with the
// baseline measured in the same round. Returned in the scenario files' order.
std::vector<Scenario> with_baselines(const std::vector<Scenario>& all,
                                     const std::vector<Scenario>& selected) {
  std::set<std::string> names;
  for (const auto& s : selected) names.insert(s.name);
  for (const auto& s : selected) {
    if (!s.unavailable.empty()) continue;  // skipped: nothing to compare with
    for (const std::string& b : {s.baseline, s.latency_baseline}) {
      if (b.empty() || names.contains(b)) continue;
      if (std::any_of(all.begin(), all.end(), [&](const Scenario& x) { return x.name == b; }))
        names.insert(b);
    }
  }
  std::vector<Scenario> out;
  for (const auto& s : all)
    if (names.contains(s.name)) out.push_back(s);
  return out;
}

std::string cell(const std::optional<double>& value, const char* format) {
  if (!value) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, *value);
  return buf;
}

void print_table(const nlohmann::json& report) {
  std::printf("%-34s %-8s %10s %9s %9s %9s %7s %7s %6s %7s\n", "scenario", "status", "req/s",
              "p50 us", "p99 us", "p99.9 us", "CPU %", "MB", "vs ng", "errors");
  auto number = [](const nlohmann::json& j, const char* key) -> std::optional<double> {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
    return j[key].get<double>();
  };
  for (const auto& s : report["scenarios"]) {
    const auto& lat = s["latency_us"];
    std::printf("%-34s %-8s %10s %9s %9s %9s %7s %7s %6s %7s\n",
                s["name"].get<std::string>().c_str(), s["status"].get<std::string>().c_str(),
                cell(number(s, "rps"), "%.0f").c_str(), cell(number(lat, "p50"), "%.0f").c_str(),
                cell(number(lat, "p99"), "%.0f").c_str(), cell(number(lat, "p999"), "%.0f").c_str(),
                cell(number(s, "cpu_percent"), "%.0f").c_str(),
                cell(number(s, "peak_mb"), "%.1f").c_str(),
                cell(number(s, "vs_nginx") ? std::optional<double>(*number(s, "vs_nginx") * 100)
                                           : std::nullopt,
                     "%.0f%%")
                    .c_str(),
                cell(number(s, "errors"), "%.0f").c_str());
    const auto& iv = s.contains("intervals") ? s["intervals"] : nlohmann::json();
    if (iv.is_object() && iv.contains("vs_nginx") && iv["vs_nginx"].is_object()) {
      std::printf("    vs baseline %.3f [%.3f, %.3f] over %d rounds",
                  iv["vs_nginx"]["median"].get<double>(), iv["vs_nginx"]["lo"].get<double>(),
                  iv["vs_nginx"]["hi"].get<double>(), iv["vs_nginx"]["n"].get<int>());
      if (iv.contains("cpu_vs_nginx") && iv["cpu_vs_nginx"].is_object())
        std::printf("; CPU/request %.3f [%.3f, %.3f]", iv["cpu_vs_nginx"]["median"].get<double>(),
                    iv["cpu_vs_nginx"]["lo"].get<double>(), iv["cpu_vs_nginx"]["hi"].get<double>());
      std::printf("\n");
    }
    if (s["status"] != "ok") std::printf("    %s\n", s["reason"].get<std::string>().c_str());
  }
}

// The engine here that builds the images of the services on engine hosts (and of the container
// runtime): podman, the Containerfile of the source tree, $GATEBENCH_ENGINE_ARGS for its `run`s.
ContainerEngine image_builder(const std::string& name = "podman") {
  return local_engine(name);
}

// --dry-run with --hosts: every command the hosts would see, in order, per host. The same code
// as the real run records them instead of running them.
void print_remote_commands(const Placement& placement, const std::vector<ScenarioPlan>& plans,
                           const Options& options, const std::string& configs_dir) {
  bool remote_work = false;
  for (const auto& plan : plans) {
    remote_work = remote_work || plan.load.fanout;
    for (const auto& service : plan.services) remote_work = remote_work || !service.host.empty();
  }
  if (!remote_work) return;
  RemoteHosts remote(
      placement, plans.front().load.exe.empty() ? "gatebench-load" : plans.front().load.exe, true);
  remote.set_configs_dir(configs_dir);
  remote.set_image_builder(image_builder(),
                           (fs::path(options.out_dir) / "images").lexically_normal().string());
  const std::string out_dir = fs::absolute(options.out_dir).lexically_normal().string();
  for (const auto& plan : plans) {
    if (!plan.skip_reason.empty()) continue;
    std::optional<double> rate;
    if (plan.load.mode == LoadMode::rate) rate = plan.load.rate;
    std::set<std::string> service_hosts;
    auto run = [&](const std::string& label, double duration) {
      // The services' sampling loops start before the load (measure.cpp); PGID stands for the
      // groups their wrappers print.
      for (const auto& host : service_hosts) {
        const Host& on = placement.hosts.at(host);
        RemoteSampler sampler(remote.ready(on), "PGID", options.sample_interval_s,
                              remote.remote_dir(on, plan.run_dir, out_dir), plan.run_dir, label,
                              std::chrono::steady_clock::now());
        sampler.finish();
      }
      if (!plan.load.fanout) return;
      LoadFanout load(remote, plan, plan.load, out_dir, label, duration, rate);
      load.collect("");
    };
    try {
      for (const auto& service : plan.services) {
        const int timeout_s =
            scenario_container_timeout_s(plan, options.warmup_s, options.duration_s);
        if (service.host_kind == HostKind::podman && options.runtime == "kube") {
          start_engine_pod(remote, plan, service, timeout_s);
        } else if (service.host_kind == HostKind::podman) {
          start_engine_service(remote, plan, service, timeout_s);
        } else if (service.host_kind == HostKind::ssh) {
          start_remote_service(remote, plan, service);
          service_hosts.insert(service.host);
        }
      }
      if (options.warmup_s > 0) run("warmup", options.warmup_s);
      run("measure", options.duration_s);
      for (auto it = plan.services.rbegin(); it != plan.services.rend(); ++it) {
        ChildProcess never_started;
        if (it->host_kind == HostKind::ssh) stop_remote_service(remote, *it, never_started);
        if (it->host_kind == HostKind::podman)
          stop_engine_service(remote, plan, *it, never_started, options.runtime == "kube");
      }
    } catch (const Outcome& outcome) {
      std::printf("  %s: %s\n", plan.scenario.name.c_str(), outcome.reason.c_str());
    } catch (const RemoteError& e) {
      std::printf("  %s: %s\n", plan.scenario.name.c_str(), e.what());
    }
  }
  remote.close();
  std::printf("remote commands, in order (dry run: no host is contacted)\n");
  for (const auto& [name, commands] : remote.dry_log()) {
    const Host& host = placement.hosts.at(name);
    if (host.kind == HostKind::podman)
      std::printf("  host %s (podman %s):\n", name.c_str(),
                  host.url.empty() ? ("--connection " + host.connection).c_str()
                                   : ("--url " + host.url).c_str());
    else
      std::printf("  host %s (ssh %s%s, port %d):\n", name.c_str(),
                  host.user.empty() ? "" : (host.user + "@").c_str(), host.address.c_str(),
                  host.port);
    for (const auto& command : commands) std::printf("    %s\n", command.c_str());
  }
}

bool write_json_file(const fs::path& path, const nlohmann::json& doc) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << doc.dump(2) << "\n";
    if (!out) {
      std::cerr << "gatebench-macro: cannot write " << tmp << "\n";
      return false;
    }
  }
  fs::rename(tmp, path);
  return true;
}

// --instructions N: each scenario's N and 2N plans, one after the other (docs/attribution.md).
int run_instructions(const Options& options, const std::vector<ScenarioPlan>& plans_n,
                     const std::vector<ScenarioPlan>& plans_2n) {
  common::install_stop_handlers();
  become_subreaper();
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  const std::string out_dir = fs::absolute(options.out_dir).lexically_normal().string();
  Progress progress(stderr, isatty(STDERR_FILENO) != 0);
  RunContext context{options, progress, out_dir};
  const std::string valgrind = Toolbox().find("valgrind").value_or("");
  std::vector<ScenarioInstructions> results;
  int exit_code = 0;
  for (std::size_t i = 0; i < plans_n.size(); ++i) {
    ScenarioInstructions r;
    if (common::stop_requested()) {
      r.name = plans_n[i].scenario.name;
      r.status = "skipped";
      r.reason = "run interrupted before this scenario";
    } else {
      progress.begin(plans_n[i].scenario.name + " (instructions)");
      r = measure_instructions(plans_n[i], plans_2n[i], context, valgrind, options.instructions,
                               options.instructions_method == "process-tree");
      progress.end(
          r.status == "ok"
              ? "ok: " + std::to_string(std::llround(r.instructions_per_request.value_or(0))) +
                    " instructions per request (" + r.method + ")"
              : r.status + ": " + r.reason);
    }
    if (r.status == "failed") exit_code = 1;
    results.push_back(std::move(r));
  }
  if (auto strays = stray_children(); !strays.empty()) {
    for (pid_t pid : strays) kill(pid, SIGKILL);
    std::cerr << "gatebench-macro: " << strays.size()
              << " stray process(es) were still running and have been killed\n";
    exit_code = 1;
  }
  const fs::path path = fs::path(out_dir) / "instructions.json";
  if (!write_json_file(path, instructions_json(collect_env_info(source_dir()), options.instructions,
                                               valgrind, results, common::stop_requested())))
    return 1;
  std::printf("%-34s %-8s %14s %9s  %s\n", "scenario", "status", "instr/req", "sys/req", "reason");
  for (const auto& r : results) {
    auto figure = [&](const std::optional<double>& v, int decimals) {
      char text[32] = "-";
      if (r.status == "ok" && v) std::snprintf(text, sizeof text, "%.*f", decimals, *v);
      return std::string(text);
    };
    std::printf("%-34s %-8s %14s %9s  %s\n", r.name.c_str(), r.status.c_str(),
                figure(r.instructions_per_request, 0).c_str(),
                figure(r.syscalls_per_request, 2).c_str(), r.reason.c_str());
  }
  std::printf("\nwrote %s\n", path.c_str());
  if (common::stop_requested()) return 128 + common::stop_signal();
  return exit_code;
}

// Every --place rule the hosts file alone cannot check. Throws common::UsageError.
void check_placement(const Options& o, const Placement& placement) {
  if ((placement.remote_load() || placement.roles.at("load").size() > 1) && o.load != "gatebench")
    throw gatebench::common::UsageError(
        "--place: the load on other or several hosts needs --load gatebench (--start-at)");
  // A Pod needs an engine to play it: here or a podman host, not a bare ssh host.
  if (o.runtime == "kube")
    for (const auto& [role, names] : placement.roles)
      for (const auto& name : names)
        if (role != "load" && placement.hosts.at(name).kind == HostKind::ssh)
          throw gatebench::common::UsageError("--place: " + role + "=" + name +
                                              ": --runtime kube runs the services as Pods " +
                                              "here or on podman hosts, not on ssh hosts");
}

// --target: the targets' expansions join the scenarios (one with a shipped scenario's name, such
// as nginx-https-keepalive, replaces it: it was asked for by target) and are selected beside
// --scenarios; the baselines' expansions join unselected, with_baselines adds them.
void add_targets(const Options& o, const std::string& scenario_dir, std::vector<Scenario>& all,
                 std::vector<std::string>& names) {
  TargetRun run = target_scenarios(o.targets, o.workloads, shipped_workloads_dir(), scenario_dir);
  std::set<std::string> expanded;
  for (const auto& s : run.scenarios) expanded.insert(s.name);
  std::erase_if(all, [&](const Scenario& s) { return expanded.contains(s.name); });
  for (auto& s : run.scenarios) all.push_back(std::move(s));
  std::stable_sort(all.begin(), all.end(), [](const Scenario& a, const Scenario& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  names.insert(names.end(), run.selected.begin(), run.selected.end());
}

// What a run reads before it starts anything. Filled in place (the plans may point into the
// placement), never copied.
struct RunSetup {
  std::optional<Options> options;
  std::vector<std::vector<ScenarioPlan>> rounds;  // the plans of each round
  CpuLayout layout;
  std::optional<HostsFile> hosts_file;
  std::optional<Placement> placement;
  std::string configs_dir;
};

// The command line, the scenarios, the hosts file and every round's plans. An exit status when
// the run ends here (--help, --list, --instructions, bad input), nothing when it goes on.
std::optional<int> read_setup(const std::vector<std::string>& args, RunSetup& setup) {
  try {
    setup.options = parse_options(args);
    if (!setup.options) {
      std::cout << help_text();
      return 0;
    }
    const Options& o = *setup.options;
    const std::string scenario_dir = o.scenario_dir.empty()
                                         ? (fs::path(source_dir()) / "macro" / "scenarios").string()
                                         : o.scenario_dir;
    setup.configs_dir =
        fs::absolute(fs::path(scenario_dir) / "configs").lexically_normal().string();
    std::vector<Scenario> all = load_scenarios(scenario_dir);
    std::vector<std::string> names = o.scenarios;
    if (!o.targets.empty()) add_targets(o, scenario_dir, all, names);
    // A wrapped run (a profile) is about the named scenarios only: no baseline is added.
    std::vector<Scenario> selected = o.gateway_wrapper.empty()
                                         ? with_baselines(all, select_scenarios(all, names))
                                         : select_scenarios(all, names);
    if (!o.print_scenario.empty()) {
      std::cout << scenario_file_object(scenario_dir, o.print_scenario).dump(2) << "\n";
      return 0;
    }
    if (o.list) {
      for (const auto& s : all) std::printf("%-34s %s\n", s.name.c_str(), s.description.c_str());
      return 0;
    }
    check_cpus_exist(o.cpus, online_cpus());
    setup.layout = make_cpu_layout(online_cpus(), o.cpus);
    Toolbox tools(o.bin_dir);
    if (o.instructions > 0 && !o.dry_run) {
      // No baselines: counts are each scenario's own, not ratios to nginx.
      const auto chosen = select_scenarios(all, o.scenarios);
      const std::string configs = (fs::path(scenario_dir) / "configs").string();
      auto plans = [&](uint64_t count) {
        return make_plans(chosen, o, setup.layout, tools, configs,
                          (fs::path(o.out_dir) / ("requests-" + std::to_string(count))).string());
      };
      auto n = plans(o.instructions);
      auto n2 = plans(2 * o.instructions);
      return run_instructions(o, n, n2);
    }
    if (!o.hosts_file.empty()) {
      setup.hosts_file = load_hosts(o.hosts_file);
      setup.placement = make_placement(&*setup.hosts_file, o.place);
      check_placement(o, *setup.placement);
    }
    // Every round's plans are made up front, so a template error stops the run before it starts.
    for (int r = 1; r <= o.rounds; ++r) {
      setup.rounds.push_back(make_plans(
          selected, o, setup.layout, tools, (fs::path(scenario_dir) / "configs").string(),
          (fs::path(o.out_dir) / ("round-" + std::to_string(r))).string(),
          setup.placement ? &*setup.placement : nullptr));
      for (auto& plan : setup.rounds.back()) wrap_gateway_services(plan, o.gateway_wrapper);
    }
  } catch (const gatebench::common::UsageError& e) {
    std::cerr << "gatebench-macro: " << e.what() << "\n";
    return gatebench::common::kUsageExit;
  }
  return std::nullopt;
}

// What one round of a plan is expected to take (system/progress.hpp).
double plan_estimate_s(const ScenarioPlan& plan, const Options& options) {
  if (!plan.skip_reason.empty()) return 0;
  RunShape shape;
  shape.services = static_cast<int>(plan.services.size());
  shape.prepare_steps = static_cast<int>(plan.prepare.size());
  shape.containers = options.runtime != "process" ||
                     std::any_of(plan.services.begin(), plan.services.end(),
                                 [](const ServicePlan& s) { return !s.image.empty(); });
  shape.measured_runs = plan.load.mode == LoadMode::search ? kSearchRuns : 1;
  return estimated_run_s(shape, options.warmup_s, options.duration_s);
}

// The whole run's: every round of every plan, and the driver's own set-up and report.
double run_estimate_s(const RunSetup& setup) {
  double total = kDriverOverheadS;
  for (const auto& round : setup.rounds)
    for (const auto& plan : round) total += plan_estimate_s(plan, *setup.options);
  return total;
}

// The versions of the programs the plans start here and load with (env.versions): services on
// other hosts and images are left out (the image ID says what an image is).
std::map<std::string, std::string> program_versions(const std::vector<ScenarioPlan>& plans) {
  std::map<std::string, std::string> out;
  auto add = [&](const std::string& exe) {
    const std::string name = fs::path(exe).filename().string();
    if (exe.empty() || out.count(name) > 0) return;
    if (auto version = program_version(exe)) out[name] = *version;
  };
  for (const auto& plan : plans) {
    if (!plan.skip_reason.empty()) continue;
    for (const auto& service : plan.services)
      if (service.image.empty() && service.host.empty()) add(service.exe);
    add(plan.load.exe);
  }
  return out;
}

// --dry-run: the plans, each round's order and the remote commands; nothing is started.
void print_dry_run(const RunSetup& setup, const std::string& load_tool) {
  const Options& options = *setup.options;
  const CpuLayout& layout = setup.layout;
  const auto& rounds = setup.rounds;
  std::printf(
      "plan (dry run: nothing is started)\n  cpus online %d; pinning load=%s backend=%s "
      "gateway=%s\n  runtime %s, load generator %s, %d connections, warm-up %gs, "
      "measured %gs, %d round(s), seed %llu\n",
      layout.online_cpus, layout.load.empty() ? "-" : layout.load.to_string().c_str(),
      layout.backend.empty() ? "-" : layout.backend.to_string().c_str(),
      layout.gateway.empty() ? "-" : layout.gateway.to_string().c_str(), options.runtime.c_str(),
      load_tool.c_str(), options.connections, options.warmup_s, options.duration_s, options.rounds,
      static_cast<unsigned long long>(options.seed));
  // gatebench run reads this line for its own estimate (tools/src/command_run.cpp).
  std::printf("  estimated %.1f s (%s): %zu scenarios x %d rounds\n", run_estimate_s(setup),
              gatebench::common::duration_text(run_estimate_s(setup)).c_str(), rounds[0].size(),
              options.rounds);
  for (int r = 1; r <= options.rounds; ++r) {
    std::printf("  round %d:", r);
    for (int i : round_order(static_cast<int>(rounds[0].size()), options.seed, r))
      std::printf(" %s", rounds[0][static_cast<std::size_t>(i)].scenario.name.c_str());
    std::printf("\n");
  }
  std::printf("\n");
  for (const auto& plan : rounds[0]) std::printf("%s\n", describe_plan(plan, options).c_str());
  if (setup.placement && !rounds[0].empty())
    print_remote_commands(*setup.placement, rounds[0], options, setup.configs_dir);
}

// Every round, each in its own order of the scenarios; after a stop signal the rest are
// recorded as skipped.
std::vector<ScenarioResult> run_rounds(const RunSetup& setup, RunContext& context) {
  const Options& options = *setup.options;
  std::vector<ScenarioResult> results;
  for (int r = 1; r <= options.rounds; ++r) {
    const auto& plans = setup.rounds[static_cast<std::size_t>(r - 1)];
    const auto order = round_order(static_cast<int>(plans.size()), options.seed, r);
    for (std::size_t k = 0; k < order.size(); ++k) {
      const ScenarioPlan& plan = plans[static_cast<std::size_t>(order[k])];
      ScenarioResult result;
      if (common::stop_requested()) {
        result.name = plan.scenario.name;
        result.group = plan.scenario.group;
        result.baseline = plan.scenario.baseline;
        result.latency_baseline = plan.scenario.latency_baseline;
        result.status = Status::skipped;
        result.reason = "run interrupted before this scenario";
      } else {
        context.progress.begin(options.rounds > 1
                                   ? plan.scenario.name + " (round " + std::to_string(r) + "/" +
                                         std::to_string(options.rounds) + ")"
                                   : plan.scenario.name,
                               plan_estimate_s(plan, options));
        result = run_scenario(plan, context);
        context.progress.end(round_summary(result));
      }
      result.round = r;
      result.position = static_cast<int>(k) + 1;
      results.push_back(std::move(result));
    }
  }
  return results;
}

// After the rounds: the other hosts' machines into `env`, then anything the clean-up missed
// (containers here or on engine hosts, stray processes) removed. 1 when something was left, else 0.
int sweep_after_rounds(std::optional<RemoteHosts>& remote, const RunSetup& setup,
                       const RunContext& context, EnvInfo& env) {
  int exit_code = 0;
  if (remote) {
    env.hosts = remote->host_envs(env);
    // A container the clean-up missed on an engine host is removed now and makes the run fail.
    if (const auto left = remote->sweep_containers(); !left.empty()) {
      std::cerr << "gatebench-macro: container(s) were left and have been removed:";
      for (const auto& name : left) std::cerr << " " << name;
      std::cerr << "\n";
      exit_code = 1;
    }
    remote->close();
  }
  if (context.engine != nullptr && !setup.rounds.empty() && !setup.rounds[0].empty()) {
    // A container the clean-up missed is removed now and makes the run fail.
    auto left = list_containers(*context.engine, container_prefix());
    for (const auto& name : left) remove_container(*context.engine, name);
    if (!left.empty()) {
      std::cerr << "gatebench-macro: " << left.size()
                << " container(s) were left and have been removed\n";
      exit_code = 1;
    }
  }
  // Anything still attached to the driver at this point escaped its process group.
  if (auto strays = stray_children(); !strays.empty()) {
    for (pid_t pid : strays) kill(pid, SIGKILL);
    std::cerr << "gatebench-macro: " << strays.size()
              << " stray process(es) were still running and have been killed\n";
    exit_code = 1;
  }
  return exit_code;
}

int run(const std::vector<std::string>& args) {
  const auto start = std::chrono::steady_clock::now();
  RunSetup setup;
  if (const auto done = read_setup(args, setup)) return *done;
  const Options& options = *setup.options;
  const std::string load_tool = options.load == "gatebench" ? "gatebench-load" : options.load;
  if (options.detect > 0)
    std::cout << detect_text(options, setup.rounds[0].size(), run_estimate_s(setup)) << std::flush;
  if (options.dry_run) {
    print_dry_run(setup, load_tool);
    return 0;
  }

  common::install_stop_handlers();
  become_subreaper();
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec) {
    std::cerr << "gatebench-macro: cannot create " << options.out_dir << ": " << ec.message()
              << "\n";
    return 1;
  }
  const std::string out_dir = fs::absolute(options.out_dir).lexically_normal().string();
  EnvInfo env = collect_env_info(source_dir());
  if (!setup.rounds.empty()) env.versions = program_versions(setup.rounds[0]);
  Progress progress(stderr, isatty(STDERR_FILENO) != 0);
  RunContext context{options, progress, out_dir};
  ContainerEngine engine;
  if (options.runtime != "process") {
    // kube: the manifests are played by the local podman.
    engine = image_builder(options.runtime == "kube" ? "podman" : options.runtime);
    context.engine = &engine;
    if (options.runtime == "kube" && !options.dry_run)
      for (const auto& pod : remove_orphan_pods(engine))
        std::cerr << "gatebench-macro: removed pod " << pod
                  << " of a driver that is no longer running\n";
    // docker has no run --timeout: what a killed driver left is removed here instead.
    if (options.runtime == "docker" && !options.dry_run &&
        engine_unreachable("docker", engine.exe).empty())
      for (const auto& name : remove_orphan_containers(engine))
        std::cerr << "gatebench-macro: removed container " << name
                  << " of a driver that is no longer running\n";
  }

  std::optional<RemoteHosts> remote;
  if (setup.placement) {
    remote.emplace(*setup.placement, Toolbox(options.bin_dir).find("gatebench-load").value_or(""),
                   false);
    remote->set_configs_dir(setup.configs_dir);
    remote->set_image_builder(image_builder(), (fs::path(out_dir) / "images").string());
    context.remote = &*remote;
  }

  std::vector<std::string> names;
  for (const auto& plan : setup.rounds[0]) names.push_back(plan.scenario.name);
  // The estimate before anything starts (issue 40), and beside the wall time at the end.
  const double estimate_s = run_estimate_s(setup);
  std::cerr << "gatebench-macro: " << names.size() << " scenarios x " << options.rounds
            << " rounds, estimated " << gatebench::common::duration_text(estimate_s) << "\n";
  progress.plan_run(estimate_s, start);
  const std::vector<ScenarioResult> results = run_rounds(setup, context);
  int exit_code = sweep_after_rounds(remote, setup, context, env);

  nlohmann::json report = make_macro_json(env, setup.layout, options, load_tool, results, names,
                                          common::stop_requested());
  // A scenario is failed when a round failed or its baseline did (make_macro_json decides).
  for (const auto& s : report["scenarios"])
    if (s["status"] == "failed") exit_code = 1;
  std::cerr << "gatebench-macro: " << progress.estimate_text() << "\n";
  const fs::path report_path = fs::path(out_dir) / "macro.json";
  if (!write_json_file(report_path, report)) return 1;
  print_table(report);
  std::printf("\nwrote %s\n", report_path.c_str());
  if (common::stop_requested()) return 128 + common::stop_signal();
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    // `target check FILE`: the one subcommand (docs/targets.md).
    if (!args.empty() && args[0] == "target") {
      try {
        return target_command({args.begin() + 1, args.end()});
      } catch (const gatebench::common::UsageError& e) {
        std::cerr << "gatebench-macro target: " << e.what() << "\n";
        return gatebench::common::kUsageExit;
      }
    }
    return run(args);
  } catch (const std::exception& e) {
    std::cerr << "gatebench-macro: " << e.what() << "\n";
    return 1;
  }
}
