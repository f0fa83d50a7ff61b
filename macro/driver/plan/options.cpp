#include "macro/driver/plan/options.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "macro/common/command_line.hpp"
#include "macro/common/duration.hpp"
#include "macro/common/usage_error.hpp"

namespace gatebench::macro {

std::string help_text() {
  return R"(usage: gatebench-macro [options]        (also: gatebench macro [options])

Runs end-to-end scenarios (macro/scenarios/*.json, format in docs/scenarios.md): backend, gateway
or baseline, warm-up, measured load with CPU/memory sampling, in rounds; writes OUT/macro.json
(schema gatebench.macro/2) and the raw artifacts next to it (OUT/round-R/<scenario>/).

  --scenarios a,b       run only these (a group name such as latency-at-rate selects its parts)
  --list                print the scenarios and exit
  --print-scenario NAME print scenario NAME as a scenario file (JSON) and exit: a name of
                        names.json expanded from its target and workload, or a file's content
  --duration D          measured run per scenario (default 20s; 500ms, 1m, bare number = s)
  --warmup D            warm-up before it, not measured (default 5s; 0 = none)
  --connections N       load connections (default 64)
  --threads N           load threads (default: one per load CPU, 1 when not pinned)
  --rounds N            run every selected scenario N times, in a different seeded order each
                        round; each scenario's baseline is added and runs in every round, and
                        ratios are paired within a round (default 5; 3 with --quick)
  --detect P            choose the rounds to catch a rise of P (e.g. 5%) in a scenario's CPU
                        per request 95% of the time, from the per-round spread of
                        docs/gating.md's study; prints the rounds, the --cpu-threshold for
                        gatebench compare and the time the run will take (not with --rounds)
  --seed N              seed of the rounds' orders (default 1)
  --max-error-rate R    a round with more errors than this share of its requests fails
                        (default 0.1%; 0.5% or 0.005; expected statuses are not errors)
  --quick               smoke runs for CI: 1s warm-up, 2s measured, 16 connections, 3 rounds;
                        macro.json says run.quick and its figures are marked as smoke figures
  --rate R              req/s for open-loop scenarios (default: the scenario's, 10000)
  --slo-p99 D           p99 objective of max-throughput (default: the scenario's)
  --dry-run             print the plan (commands, pinning, ports) and start nothing
  --out DIR             results directory (default macro-results)
  --runtime R           process (default), podman (services in containers) or kube (each
                        service a Kubernetes Pod manifest, played with podman kube play), see
                        docs/containers.md; docker: as podman, through the docker client
                        and the engine of DOCKER_HOST
  --load L              gatebench (gatebench-load, default), or wrk or h2load (nghttp2's,
                        HTTP/2 and keep-alive HTTP/1.1) to cross-check it
  --scenario-dir DIR    scenario files (default: this checkout's macro/scenarios)
  --bin-dir DIR         where gatebench-load/-gateway/-control are (default: the build tree)
  --port-offset N       add N to every scenario port (parallel runs, tests)
  --load-cpus L, --backend-cpus L, --gateway-cpus L
                        pin a role to CPUs (taskset syntax, e.g. 2-3); also from the
                        environment GATEBENCH_LOAD_CPUS, GATEBENCH_BACKEND_CPUS,
                        GATEBENCH_GATEWAY_CPUS. Default layout: <4 CPUs not pinned;
                        4-7: load 0, backend 1, gateway 2..n-1; >=8: load 0-1, backend 2-3,
                        gateway 4..n-1.
  --sample-interval D   /proc sampling period during the measured run (default 250ms)
  --instructions N      instead of timed rounds: run each selected scenario twice with its
                        gateway-role services (the reference gateway with 1 worker) under
                        valgrind --tool=callgrind while gatebench-load sends exactly N, then 2N
                        requests on one connection, and write OUT/instructions.json
                        (gatebench.macro_instructions/1) with instructions and system calls per
                        request = (X(2N) - X(N)) / N (docs/attribution.md)
  --instructions-method auto|process-tree
                        auto (default): the reference gateway's event loop only (toggled),
                        other targets by their whole process tree; process-tree: every
                        target by its process tree
  --target FILE|NAME    run every workload (macro/workloads) this target offers, each beside
                        its baseline (nginx on the same workload), as scenarios <target>-<workload>;
                        NAME is a shipped target (macro/targets/NAME.json); repeatable; without
                        --scenarios only these run (docs/targets.md)
  --workloads a,b       only these workloads of --target
  --hosts FILE          hosts a run may use: local, or reached over ssh (JSON,
                        docs/multi-host.md)
  --place SPEC          put roles on hosts of --hosts: load=a+b,gateway=here,... (roles load,
                        backend, gateway, control; the load on several hosts starts at one
                        instant and the results are merged; unplaced roles run here)
  --gateway-wrapper 'CMD ...'
                        run every gateway-role service of this machine as CMD ... EXE ARGS
                        (words split on spaces; {scenario} and {service} in a word become
                        the names), e.g. 'perf record -o /tmp/{scenario}.data --' (what
                        gatebench profile --scenario does); baselines are not added, and the
                        CPU and memory figures include the wrapper's
  -h, --help            this text

Exit status: 0 every scenario ok or skipped; 1 a scenario failed; 2 bad options or scenario
file (nothing started); 128+N interrupted by signal N (everything stopped, partial macro.json).
)";
}

namespace {

using common::UsageError;

CpuSet parse_cpus(const std::string& text, const std::string& what) {
  try {
    return parse_cpu_set(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(what + ": " + e.what());
  }
}

// "a,b" -> {a, b}; empty items are dropped.
std::vector<std::string> comma_list(const std::string& list) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// --detect P: the rounds per side from the study's per-round spread at the run's measured time.
void set_detect(const common::CommandLine& line, Options& o) {
  const std::string v = *line.value("detect");
  const bool pct = v.ends_with("%");
  const double p = common::parse_number(pct ? v.substr(0, v.size() - 1) : v, "--detect");
  if (!(p > 0 && p < 100))
    throw UsageError("--detect: expected a change like 5% (more than 0, less than 100%), got '" +
                     v + "'");
  if (line.given("rounds")) throw UsageError("--detect: chooses the rounds; not with --rounds");
  if (o.instructions > 0)
    throw UsageError("--detect: not with --instructions (counts have no rounds)");
  const double measured = line.given("duration") ? o.duration_s
                          : o.quick              ? common::kStudyMeasuredSeconds
                                                 : o.duration_s;
  o.detect = p / 100;
  o.detect_plan = common::rounds_for_cpu_change(o.detect, measured);
  if (o.detect_plan.rounds == 0)
    throw UsageError("--detect " + v + ": more than 1000 rounds per side would be needed");
  o.rounds = static_cast<int>(o.detect_plan.rounds);
}

// The command line's options, each a value or a flag.
common::CommandLine command_line(const std::vector<std::string>& args) {
  using common::flag_option;
  using common::value_option;
  return common::CommandLine(args, {value_option("scenarios"),
                                    flag_option("list"),
                                    value_option("duration"),
                                    value_option("warmup"),
                                    value_option("connections"),
                                    value_option("threads"),
                                    value_option("rounds"),
                                    value_option("seed"),
                                    value_option("max-error-rate"),
                                    flag_option("quick"),
                                    value_option("rate"),
                                    value_option("slo-p99"),
                                    flag_option("dry-run"),
                                    value_option("out"),
                                    value_option("runtime"),
                                    value_option("load"),
                                    value_option("scenario-dir"),
                                    value_option("bin-dir"),
                                    value_option("port-offset"),
                                    value_option("load-cpus"),
                                    value_option("backend-cpus"),
                                    value_option("gateway-cpus"),
                                    value_option("sample-interval"),
                                    value_option("instructions"),
                                    value_option("instructions-method"),
                                    value_option("hosts"),
                                    value_option("place"),
                                    value_option("target"),
                                    value_option("workloads"),
                                    value_option("detect"),
                                    value_option("gateway-wrapper"),
                                    value_option("print-scenario"),
                                    flag_option("help", 'h')});
}

// $GATEBENCH_LOAD_CPUS, $GATEBENCH_BACKEND_CPUS, $GATEBENCH_GATEWAY_CPUS (the options win).
void read_cpu_env(Options& o) {
  for (const char* name :
       {"GATEBENCH_LOAD_CPUS", "GATEBENCH_BACKEND_CPUS", "GATEBENCH_GATEWAY_CPUS"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    CpuSet set = parse_cpus(value, name);
    std::string_view n(name);
    if (n == "GATEBENCH_LOAD_CPUS") o.cpus.load = set;
    if (n == "GATEBENCH_BACKEND_CPUS") o.cpus.backend = set;
    if (n == "GATEBENCH_GATEWAY_CPUS") o.cpus.gateway = set;
  }
}

// What is measured and how: the scenarios, the times, the load and the rounds.
void read_measure_options(const common::CommandLine& line, Options& o) {
  if (auto list = line.value("scenarios")) {
    o.scenarios = comma_list(*list);
    if (o.scenarios.empty()) throw UsageError("--scenarios: expected names separated by commas");
  }
  o.list = line.flag("list");
  if (auto d = line.duration_s("duration")) {
    if (*d < 0.1) throw UsageError("--duration: must be at least 100ms");
    o.duration_s = *d;
  }
  o.warmup_s = line.duration_s("warmup").value_or(o.warmup_s);
  o.connections = static_cast<int>(line.integer("connections", 1, 100000).value_or(o.connections));
  o.threads = static_cast<int>(line.integer("threads", 1, 1024).value_or(o.threads));
  o.quick = line.flag("quick");
  o.rounds = static_cast<int>(line.integer("rounds", 1, 1000).value_or(o.rounds));
  o.seed = static_cast<uint64_t>(line.integer("seed", 0, 2147483647).value_or(1));
  if (auto v = line.value("max-error-rate")) {
    // A share: "0.1%" or 0.001.
    const bool pct = v->ends_with("%");
    const double rate =
        common::parse_number(pct ? v->substr(0, v->size() - 1) : *v, "--max-error-rate");
    if (rate < 0 || rate > (pct ? 100 : 1)) {
      throw UsageError("--max-error-rate: expected a share like 0.1% or 0.001, got '" + *v + "'");
    }
    o.max_error_rate = pct ? rate / 100 : rate;
  }
  if (auto rate = line.number("rate")) {
    if (*rate <= 0 || *rate > 1e8) throw UsageError("--rate: must be in (0, 1e8] requests/s");
    o.rate = *rate;
  }
  if (auto slo = line.duration_s("slo-p99")) {
    if (*slo <= 0) throw UsageError("--slo-p99: must be positive");
    o.slo_p99_us = *slo * 1e6;
  }
}

// Where the run goes and what it runs with: output, runtime, generator, binaries, CPUs.
void read_run_options(const common::CommandLine& line, Options& o) {
  o.dry_run = line.flag("dry-run");
  o.out_dir = line.value_or("out", o.out_dir);
  if (o.out_dir.empty()) throw UsageError("--out: needs a directory");
  o.runtime = line.choice("runtime", {"process", "podman", "kube", "docker"}).value_or(o.runtime);
  o.load = line.choice("load", {"gatebench", "wrk", "h2load"}).value_or(o.load);
  o.scenario_dir = line.value_or("scenario-dir", "");
  o.bin_dir = line.value_or("bin-dir", "");
  o.port_offset = static_cast<int>(line.integer("port-offset", -60000, 60000).value_or(0));
  if (auto v = line.value("load-cpus")) o.cpus.load = parse_cpus(*v, "--load-cpus");
  if (auto v = line.value("backend-cpus")) o.cpus.backend = parse_cpus(*v, "--backend-cpus");
  if (auto v = line.value("gateway-cpus")) o.cpus.gateway = parse_cpus(*v, "--gateway-cpus");
  if (auto interval = line.duration_s("sample-interval")) {
    if (*interval < 0.01) throw UsageError("--sample-interval: must be at least 10ms");
    o.sample_interval_s = *interval;
  }
}

// The counting mode (--instructions) and the other hosts (--hosts, --place).
void read_instructions_and_hosts(const common::CommandLine& line, Options& o) {
  o.instructions = static_cast<uint64_t>(line.integer("instructions", 1, 100'000'000).value_or(0));
  if (o.instructions > 0 && line.given("load") && o.load != "gatebench")
    throw UsageError("--instructions: needs --load gatebench (exact request counts)");
  if (o.instructions > 0 && o.runtime != "process")
    throw UsageError("--instructions: needs --runtime process (valgrind runs the gateway)");
  o.instructions_method =
      line.choice("instructions-method", {"auto", "process-tree"}).value_or("auto");
  if (line.given("instructions-method") && o.instructions == 0)
    throw UsageError("--instructions-method: only with --instructions N");
  o.hosts_file = line.value_or("hosts", "");
  o.place = line.value_or("place", "");
  if (line.given("hosts") && o.hosts_file.empty()) throw UsageError("--hosts: needs a file");
  if (line.given("place") && o.place.empty()) throw UsageError("--place: needs ROLE=HOST,...");
  if (!o.place.empty() && o.hosts_file.empty()) throw UsageError("--place: needs --hosts FILE");
  if (!o.hosts_file.empty() &&
      (o.instructions > 0 || (o.runtime != "process" && o.runtime != "kube")))
    throw UsageError("--hosts: only with --runtime process or kube and without --instructions");
}

// Targets and their workloads, --detect, the gateway's wrapper, --print-scenario.
void read_targets_and_extras(const common::CommandLine& line, Options& o) {
  o.targets = line.values("target");
  for (const auto& t : o.targets)
    if (t.empty()) throw UsageError("--target: needs a target file or name");
  if (auto list = line.value("workloads")) {
    o.workloads = comma_list(*list);
    if (o.workloads.empty()) throw UsageError("--workloads: expected names separated by commas");
    if (o.targets.empty()) throw UsageError("--workloads: needs --target");
  }
  if (line.given("detect")) set_detect(line, o);
  if (auto wrapper = line.value("gateway-wrapper")) {
    for (std::size_t start = 0; start < wrapper->size();) {
      std::size_t space = wrapper->find(' ', start);
      if (space == std::string::npos) space = wrapper->size();
      if (space > start) o.gateway_wrapper.push_back(wrapper->substr(start, space - start));
      start = space + 1;
    }
    if (o.gateway_wrapper.empty()) throw UsageError("--gateway-wrapper: needs a command");
    if (o.instructions > 0 || o.runtime != "process" || !o.hosts_file.empty())
      throw UsageError(
          "--gateway-wrapper: only with --runtime process, without --instructions and --hosts");
  }
  if (auto name = line.value("print-scenario")) {
    if (name->empty()) throw UsageError("--print-scenario: needs a scenario name");
    o.print_scenario = *name;
  }
}

// --quick: the CI's short rounds, where no explicit value says otherwise.
void apply_quick(const common::CommandLine& line, Options& o) {
  if (!o.quick) return;
  // CI: seconds per scenario, but explicit values still win. The warm-up stays: the first
  // second of a fresh proxy is connection and upstream-pool set-up, not its steady state.
  if (!line.given("duration")) o.duration_s = 2;
  if (!line.given("warmup")) o.warmup_s = 1;
  if (!line.given("connections")) o.connections = 16;
  if (!line.given("rounds") && !line.given("detect")) o.rounds = 3;
}

}  // namespace

std::optional<Options> parse_options(const std::vector<std::string>& args) {
  const common::CommandLine line = command_line(args);
  if (line.flag("help")) return std::nullopt;
  line.expect_no_positionals();
  Options o;
  read_cpu_env(o);
  read_measure_options(line, o);
  read_run_options(line, o);
  read_instructions_and_hosts(line, o);
  read_targets_and_extras(line, o);
  apply_quick(line, o);
  return o;
}

std::string detect_text(const Options& o, std::size_t scenario_runs, double estimate_s) {
  const auto& p = o.detect_plan;
  const double seconds = estimate_s;
  // The mean of one scenario run (a search takes longer than a closed-loop run).
  const double per_round =
      scenario_runs > 0 && o.rounds > 0
          ? estimate_s / (static_cast<double>(scenario_runs) * static_cast<double>(o.rounds))
          : 0.0;
  const bool lowered = p.line < common::kDefaultCpuLine - 1e-9;
  char text[768];
  std::snprintf(
      text, sizeof text,
      "--detect %s: %d rounds per side; gate with gatebench compare --cpu-threshold %.1f%%%s.\n"
      "  A %s rise of CPU per request shows as %s of cpu_vs_load, which spreads by %.1f%% per "
      "round\n  (docs/gating.md's study, scaled to %.0f s measured): caught 95%% of the time.\n"
      "  %zu scenario runs x %d rounds x %.1f s = about %s.\n",
      common::percent_text(o.detect).c_str(), o.rounds, p.line * 100,
      lowered ? " (below the default 5%: an unchanged scenario passes it at most 1% of the time)"
              : "",
      common::percent_text(o.detect).c_str(), common::percent_text(p.seen_change).c_str(),
      common::study_round_spread(o.duration_s) * 100, o.duration_s, scenario_runs, o.rounds,
      per_round, common::duration_text(seconds).c_str());
  return text;
}

}  // namespace gatebench::macro
