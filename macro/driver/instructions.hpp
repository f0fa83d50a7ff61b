#pragma once
// Instructions per request of the reference gateway, end to end (gatebench-macro --instructions
// N; docs/attribution.md): each scenario runs twice, the gateway with one worker under
// valgrind --tool=callgrind, while gatebench-load sends exactly N and then 2N requests on one
// connection, no warm-up. Start-up, the ready probe, cookie flows, connection set-up and shut-down
// are the same in both runs, so (I(2N) - I(N)) / N is the gateway's cost of one request.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "macro/driver/env_info.hpp"
#include "macro/driver/plan.hpp"
#include "macro/driver/run_context.hpp"

namespace gatebench::macro {

inline constexpr const char* kInstructionsSchema = "gatebench.macro_instructions/1";

struct InstructionRun {  // one gateway process under callgrind
  uint64_t requests = 0;
  double instructions = 0;  // callgrind's total Ir of the gateway process
  std::string callgrind_file;
};

struct ScenarioInstructions {
  std::string name;
  std::string status = "ok";  // ok | skipped | failed
  std::string reason;
  std::vector<InstructionRun> runs;  // N, then 2N
  double per_request = 0;            // (I(2N) - I(N)) / N, when ok
};

// The total Ir of a callgrind output file ("summary:", else "totals:"); throws Outcome failed.
double callgrind_file_instructions(const std::string& file);

// Measures one scenario from its two plans (made with out directories for N and 2N requests).
// Never throws for a scenario-level problem (skipped / failed with a reason); every process it
// started is stopped before it returns.
ScenarioInstructions measure_instructions(const ScenarioPlan& plan_n, const ScenarioPlan& plan_2n,
                                          const RunContext& context, const std::string& valgrind,
                                          uint64_t n);

nlohmann::json instructions_json(const EnvInfo& env, uint64_t n, const std::string& valgrind,
                                 const std::vector<ScenarioInstructions>& results,
                                 bool interrupted);

}  // namespace gatebench::macro
