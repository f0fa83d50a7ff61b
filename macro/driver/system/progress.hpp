#pragma once
// One live line per scenario on a terminal (phase, elapsed, current req/s); plain lines otherwise.
// With the run's estimate (plan_run), every line also says how long the run has left, and
// estimate_text() sets the estimate beside the wall time at the end, so each run checks it.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

namespace gatebench::macro {

// Seconds one run of a scenario is expected to take: its warm-up, its measured runs (a search
// measures several) and the time to prepare, start and stop its services; nothing for one known
// before it starts to be skipped. The overhead is common::kRoundOverheadSeconds.
double estimated_run_s(bool skipped, int measured_runs, double warmup_s, double duration_s);

// Measured runs of a max-throughput search as the estimate counts them: the capacity run and the
// bisection's rates, most of which pass at the first attempt.
inline constexpr int kEstimatedSearchRuns = 7;

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
