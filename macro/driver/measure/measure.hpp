#pragma once
// One load-generator run against the running services, with the CPU and memory of every role
// sampled while it runs and integrated over the generator's own measured window.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/results/load_result.hpp"
#include "macro/driver/runtime/run_context.hpp"
#include "macro/driver/runtime/services.hpp"
#include "macro/driver/system/proc_sampler.hpp"

namespace gatebench::macro {

struct Measurement {
  LoadResult load;
  std::string invalid;  // the generator's own verdict, empty when valid
  // CPU over the measured window; memory peaks over the whole run.
  std::optional<TreeUsage> target;
  std::map<std::string, double> cpu_by_role;  // mean CPU% of "backend", "gateway", "load"
  // CPU seconds: the same roles, "target", the whole machine's busy and idle CPU seconds
  // ("machine", "machine_idle", from /proc/stat: every process, other sessions' too), and the
  // seconds the generator's threads were running or waiting for a CPU ("load_runnable").
  std::map<std::string, double> cpu_s_by_role;
  std::vector<double> target_cpu_per_second;  // the target's CPU% in each second of the window
  // Load generators on ssh hosts: each one's CPU seconds over its whole run (docs/multi-host.md).
  std::map<std::string, double> load_host_cpu_s;
  double window_s = 0;
  // Where the window's instants come from: "load generator" (gatebench-load reports them on
  // CLOCK_MONOTONIC), "last D s before exit" (wrk reports none), "container samples" (containers,
  // sampled once a second over the generator's whole run).
  std::string window_source;
};

struct MeasureSpec {
  std::string label;  // names the artifacts load-<label>.*, samples-<label>.csv
  double duration_s = 0;
  std::optional<double> rate;  // open loop
  bool sample = true;          // false: a warm-up, nothing sampled
};

// Throws Outcome failed (the generator failed or outlived its duration by 30 s, a service died)
// or Interrupted.
Measurement measure(const ScenarioPlan& plan, const RunContext& context, const LoadPlan& load,
                    Services& services, const MeasureSpec& spec);

}  // namespace gatebench::macro
