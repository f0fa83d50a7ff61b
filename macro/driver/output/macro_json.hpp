#pragma once
// macro.json, schema gatebench.macro/2 (common::MacroResult, fields in docs/scenarios.md): every
// round of every scenario, and per scenario the medians over its ok rounds with their intervals.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "macro/common/macro_result.hpp"
#include "macro/driver/plan/options.hpp"
#include "macro/driver/results/scenario_result.hpp"
#include "macro/driver/system/cpu_layout.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {

// `results` holds every round of every scenario; `names` the scenarios in the order to write
// them (the scenario files' order). A scenario is ok only when every round was ok and its baseline
// (when it has one other than itself, and that baseline ran) is ok; ratios are paired per round.
common::MacroResult make_macro_result(const EnvInfo& env, const CpuLayout& layout,
                                      const Options& options, const std::string& load_tool,
                                      const std::vector<ScenarioResult>& results,
                                      const std::vector<std::string>& names, bool interrupted);
// The same as macro.json holds it (common::to_json).
nlohmann::json make_macro_json(const EnvInfo& env, const CpuLayout& layout, const Options& options,
                               const std::string& load_tool,
                               const std::vector<ScenarioResult>& results,
                               const std::vector<std::string>& names, bool interrupted);

// The target and workload a scenario name stands for (docs/targets.md): <target>-<workload> for a
// known target (`targets`) and workload (`workloads`, the longest that fits), or a hand-written
// name the shipped expansions replaced (nginx-baseline: nginx x plain). None for the rest
// (ablations, direct, policy scenarios): they compare no target on a workload.
struct ScenarioIdentity {
  std::string target, workload;
};
std::optional<ScenarioIdentity> scenario_identity(const std::string& name,
                                                  const std::vector<std::string>& targets,
                                                  const std::vector<std::string>& workloads);

}  // namespace gatebench::macro
