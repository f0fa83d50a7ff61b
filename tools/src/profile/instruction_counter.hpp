// Instructions per iteration of one Google Benchmark benchmark, deterministically, under
// callgrind, although Google Benchmark 1.7.1 cannot fix the iteration count from the command line.
//
// Method: callgrind dumps its counters right after State::StartKeepRunning() returns and right
// before State::FinishKeepRunning() starts, so every other dump holds exactly one timed loop
// (`for (auto _ : state)`) and nothing of the benchmark's setup. With a large
// --benchmark_min_time, Google Benchmark's iteration search runs the loop 1, 10, 100, 1000 times
// (it multiplies by 10 while a run takes < 10% of min_time), so the loop dumps are known
// iteration counts. Instructions per iteration = (L(1000) - L(100)) / 900, which cancels the
// constant loop entry/exit cost. The process is killed after the last needed dump. A
// consistency check against (L(100) - L(10)) / 90 detects a broken x10 sequence (a benchmark
// with explicit Iterations()/MinTime()). A benchmark too heavy for 1000 iterations within the
// instruction budget stops at 100 (slope from 10 -> 100, check from 1 -> 10).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tools/src/results/results.hpp"

namespace gatebench::tools {

struct InstructionOptions {
  std::string bench;                    // gatebench-micro
  std::vector<std::string> bench_args;  // more gatebench-micro arguments (--input KIND=FILE)
  std::string valgrind = "valgrind";
  // --benchmark_min_time. Huge on purpose: the x10 search only holds while a run takes < 10% of
  // it, and the process is killed after the last needed dump, so it is never waited for.
  double min_time = 1e6;
  int points = 4;             // loop runs used: 1, 10, ..., 10^(points-1) iterations
  int min_points = 3;         // fewer loop runs than this is an error
  double budget = 2e9;        // stop before a loop run predicted above this many instructions
  double consistency = 0.20;  // allowed relative gap between the two slope estimates
  double timeout_seconds = 600.0;
  std::string work_dir;  // callgrind files go here (kept for inspection)
};

// Names selected by a Google Benchmark filter regex (--benchmark_list_tests).
std::vector<std::string> list_benchmarks(const std::string& bench, const std::string& filter);

// Anchored, escaped regex matching exactly `name`.
std::string exact_filter(const std::string& name);

// Runs `name` alone under callgrind and returns the loop dump files (dump 2k = loop run k, of
// 10^(k-1) iterations while the x10 search holds). Kills the process after the last needed dump.
struct LoopDumps {
  std::string dir;
  std::vector<std::string> files;
  std::vector<double> iterations;
  bool exited_early = false;  // the benchmark ended before opt.points loop runs
  bool over_budget = false;   // stopped early: the next loop run would exceed opt.budget
  bool timed_out = false;
  std::string unsupported;  // valgrind hit an instruction it cannot decode (e.g. AVX-512)
};
LoopDumps collect_loop_dumps(const std::string& name, const InstructionOptions& opt);

// Items per iteration of every benchmark `filter` selects (absent: the benchmark errored), from one
// short native run of `bench` (Google Benchmark JSON: items_per_second × CPU time per iteration,
// rounded to a whole count; 1 for a benchmark that counts no items). callgrind kills the counted
// process before Google Benchmark reports, so the count itself cannot carry them.
std::map<std::string, double> items_per_iteration(const std::string& bench,
                                                  const std::string& filter);

// On failure the returned count has per_iteration = 0 and detail["error"] set.
InstructionCount count_instructions(const std::string& name, const InstructionOptions& opt);

}  // namespace gatebench::tools
