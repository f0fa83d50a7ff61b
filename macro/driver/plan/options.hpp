#pragma once
// Command line of gatebench-macro (`gatebench macro`), validated before anything starts.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "macro/common/detectable.hpp"
#include "macro/driver/system/cpu_layout.hpp"

namespace gatebench::macro {

struct Options {
  std::vector<std::string> scenarios;  // empty: every scenario file
  double duration_s = 20;
  double warmup_s = 5;
  int connections = 64;
  int threads = 0;  // 0: one per load CPU (1 when not pinned)
  bool quick = false;
  int rounds = 5;                 // every selected scenario, baselines included, once per round
  uint64_t seed = 1;              // of each round's order
  double max_error_rate = 0.001;  // a round above it failed
  bool dry_run = false;
  std::string out_dir = "macro-results";
  std::string runtime = "process";
  std::string load = "gatebench";
  std::string scenario_dir;  // empty: <source>/macro/scenarios
  std::string bin_dir;       // empty: see Toolbox
  int port_offset = 0;
  double rate = 0;        // 0: the scenario's rate
  double slo_p99_us = 0;  // 0: the scenario's objective
  double sample_interval_s = 0.25;
  CpuOverrides cpus;
  bool list = false;
  // > 0: instead of timed rounds, instructions per request under callgrind, from runs of exactly
  // N and 2N requests (macro/driver/measure/instructions.hpp).
  uint64_t instructions = 0;
  // "auto": the reference gateway's event loop toggled, other targets by their process tree;
  // "process-tree": every target by its process tree (measure/instructions.hpp).
  std::string instructions_method = "auto";
  // Roles on other hosts (docs/multi-host.md): the hosts file and "role=host[+host],...".
  std::string hosts_file;
  std::string place;
  // Workload x target (docs/targets.md): --target FILE|NAME (repeatable) and --workloads a,b.
  std::vector<std::string> targets;
  std::vector<std::string> workloads;  // empty: every workload
  // --detect P: the rounds were chosen to catch a P rise of CPU per request (docs/gating.md);
  // 0 when not given.
  double detect = 0;
  common::RoundsForChange detect_plan;
  // --gateway-wrapper 'CMD ...': every local gateway-role service runs as CMD ... EXE ARGS
  // (`gatebench profile --scenario` puts perf record there); {scenario} and {service} in a word
  // become the scenario's and the service's names. Empty: run as planned.
  std::vector<std::string> gateway_wrapper;
  // --print-scenario NAME: print that scenario as a scenario file holds it and exit (a name of
  // names.json expanded from its target and workload); empty: run.
  std::string print_scenario;
};

// Parses argv without argv[0]; nothing when --help was asked. Throws common::UsageError.
// Durations use the common syntax (macro/common/duration.hpp).
std::optional<Options> parse_options(const std::vector<std::string>& args);
std::string help_text();

// What --detect chose, for `scenario_runs` scenarios (baselines included) per round: the rounds,
// the line for compare, and the time the run will take (`estimate_s`, the run's estimate from
// its plans, as the dry run and the run print it).
std::string detect_text(const Options& o, std::size_t scenario_runs, double estimate_s);

}  // namespace gatebench::macro
