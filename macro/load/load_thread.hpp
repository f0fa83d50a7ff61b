// One load thread as the runner sees it: the HTTP/1.1 worker (worker.hpp) or the HTTP/2 one
// (h2_worker.hpp). Called once per thread and run, so the virtual calls cost nothing per request.
#pragma once

#include <cstdint>

#include "macro/load/stats.hpp"

namespace gatebench::load {

class LoadThread {
 public:
  virtual ~LoadThread() = default;
  // Runs until the window closes (or the budget is used) and in-flight requests are done or
  // timed out; returns at the latest at measure_end + timeout (+ one sweep period).
  virtual void run() = 0;
  virtual const Stats& stats() const = 0;
  // Measured responses so far (read by the progress line while the thread runs).
  virtual std::uint64_t progress() const = 0;
  virtual bool uses_uring() const = 0;
  virtual bool ran_batch() const = 0;
};

}  // namespace gatebench::load
