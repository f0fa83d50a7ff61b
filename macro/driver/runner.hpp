#pragma once
// Runs one planned scenario: prepare, start services, warm up, measure with sampling, stop.
#include <string>

#include "macro/driver/container.hpp"
#include "macro/driver/options.hpp"
#include "macro/driver/plan.hpp"
#include "macro/driver/progress.hpp"
#include "macro/driver/scenario_result.hpp"

namespace gatebench::macro {

struct RunContext {
  const Options& options;
  Progress& progress;
  std::string out_dir;                      // absolute; artifacts are listed relative to it
  const ContainerEngine* engine = nullptr;  // null: process runtime
};

// Prefix of every container name this driver process starts ("gb-<pid>-").
std::string container_prefix();

// Never throws for a scenario-level problem: it becomes status skipped (cannot be prepared) or
// failed (started but did not work), and every process started is stopped before returning. When a
// stop signal arrives the result is failed "interrupted by signal N".
ScenarioResult run_scenario(const ScenarioPlan& plan, const RunContext& context);

}  // namespace gatebench::macro
