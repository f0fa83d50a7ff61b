#pragma once
// Runs one round of one planned scenario: prepare, start services, warm up, measure with
// sampling, stop.
#include "macro/driver/plan/plan.hpp"
#include "macro/driver/results/scenario_result.hpp"
#include "macro/driver/runtime/run_context.hpp"

namespace gatebench::macro {

// Never throws for a scenario-level problem: it becomes status skipped (cannot be prepared) or
// failed (started but did not work: a service broke, the load was invalid, too many errors), and
// every process started is stopped before returning. When a stop signal arrives the result is
// failed "interrupted by signal N". What was measured is kept even when the round failed.
ScenarioResult run_scenario(const ScenarioPlan& plan, const RunContext& context);

// One line for the progress display: "ok: 75473 req/s, p99 1830 us, CPU 204%, errors 0", or
// the status and its reason.
std::string round_summary(const ScenarioResult& result);

}  // namespace gatebench::macro
