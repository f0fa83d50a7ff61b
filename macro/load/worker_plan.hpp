// What one load thread is asked to do (its share of connections, rate and budget, the window)
// and what every kind of worker (HTTP/1.1 in worker.*, HTTP/2 in h2_worker.*) records the same
// way, so that both produce the figures docs/load.md defines with one set of rules.
#pragma once

#include <sys/epoll.h>
#include <time.h>

#include <cstdint>
#include <vector>

#include "fixtures/rng.hpp"
#include "macro/load/request_set.hpp"
#include "macro/load/stats.hpp"

namespace gatebench::load {

// Times are CLOCK_MONOTONIC nanoseconds.
std::uint64_t monotonic_ns();

inline constexpr std::uint64_t kSecondNs = 1'000'000'000;

struct WorkerPlan {
  int index = 0;
  int connections = 1;
  std::uint64_t start_ns = 0;          // warm-up (or measurement) begins
  std::uint64_t measure_start_ns = 0;  // = start_ns + warm-up
  std::uint64_t measure_end_ns = 0;    // no request starts at or after this
  double rate = 0;                     // this thread's share of --rate; 0: closed loop
  std::uint64_t phase_ns = 0;          // offset of this thread's schedule (interleaves threads)
  std::uint64_t budget = 0;            // this thread's share of --requests-total; 0: none
  std::uint64_t spin_ns = 0;           // open loop: poll for this long before a due send
  bool rebase_pace = false;            // open loop: re-base the schedule at the first response
  bool sched_batch = false;            // run the thread as SCHED_BATCH
};

// The thread's template choices: one seeded stream per thread index, the same for both kinds of
// worker, so a run's request mix does not depend on its protocol.
fixtures::Rng worker_rng(const WorkerPlan& plan);

// Open loop: the intended send time of schedule slot k, and the first slot due at or after t.
std::uint64_t intended_ns(const WorkerPlan& plan, std::uint64_t k);
std::uint64_t first_slot_at(const WorkerPlan& plan, std::uint64_t t);

// The per-second entry of the window that time `now` falls in (times after the window count in
// its last second).
SecondStats& second_at(Stats& stats, const WorkerPlan& plan, std::uint64_t now);

// A failure at `now`; ignored before the window.
void record_error(Stats& stats, const WorkerPlan& plan, ErrorClass error, std::uint64_t now);
// A completed TLS handshake at `now`; ignored before the window.
void record_handshake(Stats& stats, const WorkerPlan& plan, bool resumed, std::uint64_t now);
// A response to a measured request of template `tmpl` that started (closed loop) or was due
// (open loop) at `start_ns`, was handed to its connection at `sent_ns` and completed at `now`.
void record_response(Stats& stats, const WorkerPlan& plan, const RequestSet& requests,
                     std::uint32_t tmpl, int status, std::uint64_t start_ns, std::uint64_t sent_ns,
                     std::uint64_t now);

// Timer slack of 1 ns (open-loop sends are due to the microsecond) and, when the plan asks,
// SCHED_BATCH for the calling thread. Returns whether the thread runs as SCHED_BATCH.
bool apply_thread_policy(const WorkerPlan& plan);

// epoll_pwait2 (nanosecond timeout), or epoll_wait where the kernel lacks it (`precise` then
// becomes false and stays so).
int wait_epoll(int epoll_fd, std::vector<epoll_event>& events, const timespec& timeout,
               bool& precise);

// Sleeps until `until_ns`.
void sleep_until(std::uint64_t until_ns);

}  // namespace gatebench::load
