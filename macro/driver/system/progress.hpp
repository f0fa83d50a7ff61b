#pragma once
// One live line per scenario on a terminal (phase, elapsed, current req/s); plain lines otherwise.
// With the run's estimate (plan_run), every line also says how long the run has left, and
// estimate_text() sets the estimate beside the wall time at the end, so each run checks it.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

namespace gatebench::macro {

// What the estimate of one scenario run counts, from its plan.
struct RunShape {
  int services = 0;         // started and stopped
  int prepare_steps = 0;    // a TLS certificate, a token, ...
  bool containers = false;  // the services run in containers (podman, kube, an image)
  int measured_runs = 1;    // a search measures several
};

// Seconds one run of a scenario is expected to take: its warm-up and measured load runs, each
// with the start of the load generator and the reading of its result, and the time to prepare,
// start and stop its services. Skipped scenarios count nothing (the caller leaves them out).
double estimated_run_s(const RunShape& shape, double warmup_s, double duration_s);

// The overheads, from the release build's files of a ci/bench run on a quiet 2-vCPU machine
// (e354c9f, load average 0.1 at the start; 33 runs of the 11 seed scenarios at --quick: 109.0 s,
// 3.30 s per run of 1 s warm-up + 2 s measured). In each run directory the files' times show a
// service ready 0.03-0.07 s after its spawn, a load run of D seconds written D + 0.04 s after
// its command and the next one spawned 0.02 s later, the last service stopped 0.03 s after the
// measured run, a TLS certificate in 0.01 s. Overheads measured on a loaded machine are higher
// (a debug build on 2 shared vCPUs took 1.0-1.4 s per run instead of 0.3 s): the progress line
// scales the time left by the pace of the runs done.
inline constexpr double kLoadRunOverheadS = 0.06;
inline constexpr double kServiceOverheadS = 0.05;
inline constexpr double kPrepareOverheadS = 0.02;
// Writing a run's inputs, the port checks, the clean-up and the list of its artifacts.
inline constexpr double kScenarioOverheadS = 0.05;
// Creating, starting and removing one container beyond a process's start and stop (4 runs
// under podman took 19 s more than as processes, debug build on 2 shared vCPUs).
inline constexpr double kContainerOverheadS = 1.9;
// The driver before the first run (the plans, the programs' versions) and after the last (the
// report): 0.24 s and 0.03 s in the same ci/bench run.
inline constexpr double kDriverOverheadS = 0.3;

class Progress {
 public:
  Progress(std::FILE* out, bool live) : out_(out), live_(live) {}

  // The whole run's estimate, from `start` (the driver's own start: the estimate counts its set-up
  // too): begin() then shows the time left.
  void plan_run(double estimate_s,
                std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now());
  // estimate_s: this scenario run's share of the plan, counted as done at end().
  void begin(const std::string& scenario, double estimate_s = 0);
  void phase(const std::string& phase, double planned_s = 0);
  // Live mode only: rewrites the line; plain mode stays quiet between phases.
  void tick(double elapsed_s, std::optional<double> rps);
  void end(const std::string& summary);
  // "estimated 4.0 min, took 4.2 min (+5%)"; "" without plan_run().
  std::string estimate_text() const;

 private:
  void draw(const std::string& text);
  double elapsed_s() const;
  // What is left of the plan, scaled by how long the runs done so far took against theirs.
  double left_s() const;
  std::FILE* out_;
  bool live_;
  std::string scenario_;
  std::string phase_;
  double planned_s_ = 0;
  double estimate_s_ = 0;       // the whole run's
  double done_estimate_s_ = 0;  // the estimates of the scenario runs ended
  double current_estimate_s_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gatebench::macro
