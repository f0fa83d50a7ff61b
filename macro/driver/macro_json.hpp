#pragma once
// macro.json, schema gatebench.macro/1 (contract in shared DESIGN.md, fields in docs/scenarios.md).
#include <nlohmann/json.hpp>
#include <vector>

#include "macro/driver/cpu_layout.hpp"
#include "macro/driver/env_info.hpp"
#include "macro/driver/options.hpp"
#include "macro/driver/scenario_result.hpp"

namespace gatebench::macro {

inline constexpr const char* kMacroSchema = "gatebench.macro/1";

// vs_nginx is the scenario's req/s over its baseline's in the same run (null when the baseline did
// not run or did not succeed).
nlohmann::json make_macro_json(const EnvInfo& env, const CpuLayout& layout, const Options& options,
                               const std::string& load_tool,
                               const std::vector<ScenarioResult>& results, bool interrupted);

}  // namespace gatebench::macro
