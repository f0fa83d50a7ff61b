#pragma once
// Exact cost per request of a scenario's system under test, end to end (gatebench-macro
// --instructions N; docs/attribution.md): each scenario runs twice, its gateway-role services
// under valgrind --tool=callgrind --trace-children=yes --trace-syscalls=yes, while
// gatebench-load sends exactly N and then 2N requests on one connection, paced, no warm-up.
// Start-up, the ready probe, cookie flows, connection set-up and shut-down are the same in both
// runs, so (X(2N) - X(N)) / N is the cost of one request, in instructions and in system calls.
// Two methods: "toggle" counts the reference gateway's event loop only (the default for
// gatebench-gateway); "process-tree" counts everything every process of the gateway-role
// services executes (nginx's master and workers, haproxy, any target), each process into its
// own callgrind.out.<pid> and valgrind.<pid>.log, summed over the tree.
#include <array>
#include <cstdint>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "macro/common/macro_instructions.hpp"
#include "macro/driver/plan/plan.hpp"
#include "macro/driver/runtime/run_context.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {

inline constexpr const char* kInstructionsSchema = common::kMacroInstructionsSchema;

// What callgrind counts in the toggle method: only the event loop's per-connection work. Collection
// is off at start and toggled on for the duration of WorkerLoop::drive (every read, parse, policy
// decision, proxying, response, access-log record and close of a client runs inside it) and of
// SSL_new (the one per-connection call of on_accept outside drive). Outside stay start-up, the 100
// ms housekeeping tick (with the access log's flush by age), idle wake-ups of epoll_wait, the
// loop's dispatch of each event and the other threads. on_client and on_upstream are inlined
// into the loop, so drive is the function that exists in the binary; on_accept is not toggled
// because it calls drive, and nested toggles switch collection off again. (Toggling
// AccessLogSink::flush as well was measured and dropped: it brings the exit's flush into the
// count, whose records depend on time just as much; docs/attribution.md.)
inline constexpr std::array<const char*, 3> kCollectOptions = {
    "--collect-atstart=no", "--toggle-collect=gatebench::gateway::WorkerLoop::drive(*",
    "--toggle-collect=SSL_new"};

using ScenarioInstructions = common::MacroScenarioCount;

// Calls that wait for an event or for time: how many a run makes follows wall time (timers,
// idle wake-ups, a worker blocked while another serves), not requests, so they are counted
// apart from the calls a request makes (docs/attribution.md).
inline constexpr std::array<std::string_view, 17> kWaitSyscalls = {
    "epoll_wait",  "epoll_pwait",     "epoll_pwait2",  "poll",
    "ppoll",       "select",          "pselect6",      "nanosleep",
    "futex",       "wait4",           "waitid",        "pause",
    "sched_yield", "clock_nanosleep", "rt_sigsuspend", "rt_sigtimedwait",
    "io_getevents"};
bool is_wait_syscall(std::string_view name);

// Calls the kernel answers from the vDSO without entering it, natively; valgrind runs them as
// system calls (the guest gets no vDSO), so its trace lists them, 8 per request of the
// reference gateway. Left out of both counts; syscalls_by_name still lists them.
inline constexpr std::array<std::string_view, 5> kVdsoCalls = {"clock_gettime", "gettimeofday",
                                                               "time", "getcpu", "clock_getres"};
bool is_vdso_call(std::string_view name);

// System calls of one valgrind --trace-syscalls=yes log (one process), by name without "sys_".
// Each call counts once: a blocking call's "... [async] --> ..." completion line is not a second
// call. Lines of valgrind's own messages are ignored. `would_block`, when given, gets the calls
// of each name that failed with EAGAIN (Failure(0xb), on the call's line, on its continuation
// line or on its async completion): a nonblocking read or accept that found nothing yet. How
// many a run makes follows timing, not requests: whether the next request had already arrived
// when the previous response was written (docs/attribution.md).
std::map<std::string, uint64_t> count_syscalls(
    std::istream& valgrind_log, std::map<std::string, uint64_t>* would_block = nullptr);

// The files of one run's process tree in `dir`: callgrind.out.<pid> and valgrind.<pid>.log,
// sorted by name.
struct TreeFiles {
  std::vector<std::string> callgrind, logs;
};
TreeFiles tree_files(const std::string& dir);

// A run's totals over its tree: Ir summed over the callgrind files (each must be complete), the
// system calls summed over the logs (without kVdsoCalls; waits, and calls that failed with
// EAGAIN, apart: both are counted in wait_syscalls). A forked child's callgrind
// file starts with its parent's counts at the fork (callgrind does not reset them), so the master's
// start-up is in the sum once per worker: the same in the N and the 2N run, it cancels in the
// difference. Throws Outcome failed naming the file.
common::MacroCountRun tree_totals(const TreeFiles& files, uint64_t requests);

// Per request from the N and 2N runs: instructions, calls without the waiting ones, and those.
void set_per_request(ScenarioInstructions& s);

// The total Ir of a callgrind output file ("summary:", else "totals:"); throws Outcome failed.
double callgrind_file_instructions(const std::string& file);

// Measures one scenario from its two plans (made with out directories for N and 2N requests).
// `process_tree`: measure the reference gateway by its process tree too (otherwise it is
// toggled). Never throws for a scenario-level problem (skipped / failed with a reason); every
// process it started is stopped before it returns.
ScenarioInstructions measure_instructions(const ScenarioPlan& plan_n, const ScenarioPlan& plan_2n,
                                          const RunContext& context, const std::string& valgrind,
                                          uint64_t n, bool process_tree = false);

nlohmann::json instructions_json(const EnvInfo& env, uint64_t n, const std::string& valgrind,
                                 const std::vector<ScenarioInstructions>& results,
                                 bool interrupted);

}  // namespace gatebench::macro
