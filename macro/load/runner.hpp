// Splits the work over threads, runs the workers, shows progress, merges what they measured.
#pragma once

#include <atomic>
#include <cstdint>

#include "macro/load/options.hpp"
#include "macro/load/request_set.hpp"
#include "macro/load/stats.hpp"
#include "macro/load/url.hpp"

namespace gatebench::load {

struct RunResult {
  Stats stats;
  double elapsed_s = 0;  // the measured window (budget runs: until the last response)
  // The measured window on CLOCK_MONOTONIC, which every process of the machine shares: the driver
  // integrates the CPU it samples over exactly this interval.
  std::uint64_t window_start_ns = 0;
  std::uint64_t window_end_ns = 0;
  bool interrupted = false;
  // --start-at: how late the threads began after the requested instant (0 when on time).
  std::uint64_t start_late_ns = 0;
  const char* io = "epoll";   // what the workers used: "uring" or "epoll"
  std::uint64_t spin_ns = 0;  // the open-loop polling window used (effective_spin_ns)
  // "batch" when every worker thread ran as SCHED_BATCH (effective_sched_batch, and the kernel
  // allowed it), else "normal".
  const char* sched = "normal";
};

// `stop` may be set from a signal handler to end the run early. Throws std::runtime_error when
// a worker cannot be set up (no epoll, no TLS context).
RunResult run_load(const Options& options, const Target& target, const RequestSet& requests,
                   const std::atomic<bool>& stop);

}  // namespace gatebench::load
