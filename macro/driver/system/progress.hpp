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

// The overheads, measured on 2 shared vCPUs (debug build; 33 runs of 11 scenarios, two searches
// of 18 load runs each, 4 runs under podman): with processes, a scenario of two services and
// two load runs took 1.0 s beyond its warm-up and measured time, one of three services and a TLS
// certificate 1.4 s, every further load run of a search 0.3 s; under podman the same four runs
// took 19 s more, 1.9 s per container.
inline constexpr double kLoadRunOverheadS = 0.3;
inline constexpr double kServiceOverheadS = 0.2;
inline constexpr double kPrepareOverheadS = 0.2;
// Creating, starting and removing one container beyond a process's start and stop.
inline constexpr double kContainerOverheadS = 1.9;

// Measured runs of a max-throughput search as the estimate counts them: the capacity run and
// about five rates until the bracket is within 5%, half of them failing once and measured again
// (measure/search.hpp). A search whose every rate fails runs kSearchMaxRuns (17).
inline constexpr int kEstimatedSearchRuns = 9;

class Progress {
 public:
  Progress(std::FILE* out, bool live) : out_(out), live_(live) {}

  // The whole run's estimate, from now: begin() then shows the time left.
  void plan_run(double estimate_s);
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
