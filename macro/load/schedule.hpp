// A load thread's run as both workers (HTTP/1.1 in worker.*, HTTP/2 in h2_worker.*) drive it:
// whether a request may start (the window and the budget), the open-loop schedule of intended
// send times (re-based once with --rebase-pace), when the loop stops and how long it may wait,
// when the sweep of deadlines is due, and the open-loop slots that were never sent. One set of
// rules, so both protocols measure the same window the same way (docs/load.md, "Method").
#pragma once

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "macro/load/connection.hpp"
#include "macro/load/worker_plan.hpp"

namespace gatebench::load {

class Schedule {
 public:
  // `timeout_ns`: what requests in flight at the end of the window may still take; `stop`: the
  // run's stop flag (SIGINT, SIGTERM).
  Schedule(const WorkerPlan& plan, std::uint64_t timeout_ns, const std::atomic<bool>& stop);

  bool open_loop() const { return plan_.rate > 0; }
  // No request starts any more (the window is over, the budget used, the run stopped).
  bool stopping() const { return stopping_; }
  void stop() { stopping_ = true; }

  // Closed loop: whether a request may start at `now`.
  bool can_issue(std::uint64_t now) const {
    if (stopping_ || now >= plan_.measure_end_ns) return false;
    return plan_.budget == 0 || now < plan_.measure_start_ns || issued_measured_ < plan_.budget;
  }
  // A request inside the window started (it counts against the budget).
  void count_measured() { issued_measured_ += 1; }

  // Open loop: the intended send time of the next slot.
  std::uint64_t next_due() const { return intended_ns(plan_, next_k_) + shift_ns_; }
  // Open loop: whether the next slot may go out at `now` (it is due, inside the window, within
  // the budget); its intended time in `when`. take() moves on to the slot after it.
  bool due(std::uint64_t now, std::uint64_t& when) const {
    if (stopping_) return false;
    when = next_due();
    if (when > now || when >= plan_.measure_end_ns) return false;
    return plan_.budget == 0 || when < plan_.measure_start_ns || issued_measured_ < plan_.budget;
  }
  void take() { next_k_ += 1; }
  // A response completed at `now`. With --rebase-pace in open loop the first one moves the
  // schedule so that the next slot is due one interval after it at the earliest: the slots that
  // fell due while the first connection was set up (a TLS handshake under valgrind took
  // seconds) are not sent back to back.
  void on_response(std::uint64_t now) {
    if (rebase_pending_) rebase(now);
  }

  // The loop's turn at `now`: the run stops taking new requests at the end of the window, on the
  // stop flag or when the budget is used; false when the loop ends (stopping, and nothing is in
  // flight or the requests in flight ran out of time).
  bool keep_running(std::uint64_t now, std::size_t in_flight) {
    if (!stopping_ && (now >= plan_.measure_end_ns || stop_.load(std::memory_order_relaxed) ||
                       (plan_.budget != 0 && issued_measured_ >= plan_.budget)))
      begin_stopping(now);
    return !(stopping_ && (in_flight == 0 || now >= hard_end_ns_));
  }
  // Whether the sweep of deadlines is due at `now` (every kSweepNs from start()).
  bool sweep_due(std::uint64_t now) {
    if (now < next_sweep_) return false;
    next_sweep_ = now + kSweepNs;
    return true;
  }
  // The loop begins at `now`.
  void start(std::uint64_t now) { next_sweep_ = now + kSweepNs; }
  // How long the loop may wait at `now`: until the next sweep and the end of the window (or of
  // the drain), and in open loop, when a connection is free (`can_send`), until shortly before
  // the next slot is due: timer wake-ups arrive some microseconds late, and open-loop latency
  // counts every one of them, so the loop polls for the last plan.spin_ns.
  timespec wait_for(std::uint64_t now, bool can_send) const {
    std::uint64_t wake = std::min(next_sweep_, stopping_ ? hard_end_ns_ : plan_.measure_end_ns);
    if (plan_.rate > 0 && !stopping_ && can_send) {
      const std::uint64_t due = next_due();
      wake = std::min(wake, due > now + plan_.spin_ns ? due - plan_.spin_ns : now);
    }
    const std::uint64_t wait = wake > now ? wake - now : 0;
    return timespec{static_cast<time_t>(wait / kSecondNs), static_cast<long>(wait % kSecondNs)};
  }
  // Open loop without a budget, run to its end: the slots whose intended time fell in the window
  // but that were never sent (`issued`: the measured requests sent); 0 otherwise.
  std::uint64_t missed(std::uint64_t issued) const;

 private:
  void rebase(std::uint64_t now);
  void begin_stopping(std::uint64_t now);

  const WorkerPlan& plan_;
  const std::atomic<bool>& stop_;
  std::uint64_t timeout_ns_;
  std::uint64_t hard_end_ns_;   // no request is waited for after this
  std::uint64_t next_k_ = 0;    // open loop: next schedule slot
  std::uint64_t shift_ns_ = 0;  // --rebase-pace: how far the schedule moved at the first response
  std::uint64_t issued_measured_ = 0;
  std::uint64_t next_sweep_ = 0;
  bool stopping_ = false;
  bool rebase_pending_ = false;
};

}  // namespace gatebench::load
