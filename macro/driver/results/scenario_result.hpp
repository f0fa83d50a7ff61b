#pragma once
// What one scenario produced, before it is written to macro.json.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "macro/driver/results/load_result.hpp"
#include "macro/driver/system/proc_sampler.hpp"

namespace gatebench::macro {

enum class Status { ok, skipped, failed };
std::string_view status_name(Status status);

// One round of one scenario: a start-to-stop run of its services with its measured load.
struct ScenarioResult {
  std::string name;
  std::string group;
  int round = 1;     // 1-based
  int position = 1;  // 1-based place of the scenario in that round's order
  Status status = Status::skipped;
  std::string reason;
  std::string baseline;
  std::string latency_baseline;
  std::optional<LoadResult> load;
  std::optional<TreeUsage> target;  // CPU and memory of the measured role's process trees
  std::string target_role;
  int target_cpus = 1;
  std::map<std::string, double> cpu_by_role;  // mean CPU% of each role's trees
  // CPU seconds in the window: roles, "target", "machine", "machine_idle", "machine_steal",
  // "load_runnable"
  // (Measurement).
  std::map<std::string, double> cpu_s_by_role;
  double window_s = 0;                        // the measured window
  std::string window_source;                  // see Measurement::window_source
  std::vector<double> target_cpu_per_second;  // the target's CPU% in each whole second
  std::vector<std::string> artifacts;         // relative to the results directory
  // A scenario with a cache check: the share of hits among the counted responses, and the range
  // the scenario expects of it.
  std::optional<double> hit_ratio;
  std::optional<std::pair<double, double>> expect_hit_ratio;
  nlohmann::json extra = nlohmann::json::object();  // mode-specific (rate, search steps)
  // Images under test by service: {"image", "id", "digest"} (docs/targets.md).
  nlohmann::json images = nlohmann::json::object();
};

}  // namespace gatebench::macro
