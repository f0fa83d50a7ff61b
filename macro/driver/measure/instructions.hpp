#pragma once
// Instructions per request of the reference gateway, end to end (gatebench-macro --instructions
// N; docs/attribution.md): each scenario runs twice, the gateway with one worker under
// valgrind --tool=callgrind, while gatebench-load sends exactly N and then 2N requests on one
// connection, no warm-up. Start-up, the ready probe, cookie flows, connection set-up and shut-down
// are the same in both runs, so (I(2N) - I(N)) / N is the gateway's cost of one request.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/runtime/run_context.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {

inline constexpr const char* kInstructionsSchema = "gatebench.macro_instructions/1";

// What callgrind counts: only the event loop's per-connection work. Collection is off at start
// and toggled on for the duration of WorkerLoop::drive (every read, parse, policy decision,
// proxying, response, access-log record and close of a client runs inside it) and of SSL_new
// (the one per-connection call of on_accept outside drive). Outside stay start-up, the 100 ms
// housekeeping tick (with the access log's flush by age), idle wake-ups of epoll_wait, the
// loop's dispatch of each event and the other threads. on_client and on_upstream are inlined
// into the loop, so drive is the function that exists in the binary; on_accept is not toggled
// because it calls drive, and nested toggles switch collection off again. (Toggling
// AccessLogSink::flush as well was measured and dropped: it brings the exit's flush into the
// count, whose records depend on time just as much; docs/attribution.md.)
inline constexpr std::array<const char*, 3> kCollectOptions = {
    "--collect-atstart=no", "--toggle-collect=gatebench::gateway::WorkerLoop::drive(*",
    "--toggle-collect=SSL_new"};

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
