// An io_uring for one load thread: batches every connection's send and recv of an event-loop
// turn into the one system call that also waits (see docs/load.md, "I/O"). Why: on loopback the
// generator's CPU per request is mostly system calls and epoll bookkeeping around a few hundred
// bytes of TCP (a run of 2026-11-30, in the history of docs/RESULTS.md: 5.96 against 7.40 us of CPU
// per request at -t1 -c64).
#pragma once

#include <liburing.h>
#include <time.h>

#include <cstddef>
#include <cstdint>

namespace gatebench::load {

class Uring {
 public:
  // Tries to set up a ring of `entries` submission slots; ok() is false when the kernel (or a
  // seccomp filter, as in some container runtimes) refuses io_uring.
  explicit Uring(unsigned entries);
  ~Uring();
  Uring(const Uring&) = delete;
  Uring& operator=(const Uring&) = delete;

  bool ok() const { return ok_; }
  // Called once by the thread that uses the ring, before anything else.
  void start();

  // Queue operations; they reach the kernel at the next wait(). False when no submission slot
  // could be had (the ring is sized so that this does not happen).
  bool recv(int fd, char* buf, std::size_t len, std::uint64_t user_data);
  bool send(int fd, const char* data, std::size_t len, std::uint64_t user_data);
  // A readiness watch that stays armed (reports again until it posts without `more`).
  bool poll_multishot(int fd, unsigned events, std::uint64_t user_data);

  // Submits what is queued and waits until a completion other than those of the sends queued
  // since the last wait is there, or `timeout` passes; then calls on(user_data, res, more) for
  // every completion.
  //
  // Why not the first completion: a send completes while it is submitted (the request is copied
  // into the socket), so waiting for one completion returned at once with only the send's, and
  // the loop paid a second io_uring_enter per request to wait for the response (2.0 enters per
  // request at -c1 before). A send the socket cannot take at once delays the wake-up for another
  // completion until it goes out, at most until `timeout` (the loop's sweep period, 2 ms).
  template <typename F>
  void wait(const timespec& timeout, F&& on) {
    __kernel_timespec ts{timeout.tv_sec, timeout.tv_nsec};
    io_uring_cqe* cqe = nullptr;
    io_uring_submit_and_wait_timeout(&ring_, &cqe, 1 + sends_since_wait_, &ts, nullptr);
    sends_since_wait_ = 0;
    unsigned head;
    unsigned seen = 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      on(cqe->user_data, cqe->res, (cqe->flags & IORING_CQE_F_MORE) != 0);
    }
    io_uring_cq_advance(&ring_, seen);
  }

 private:
  io_uring_sqe* next_sqe();

  io_uring ring_{};
  bool ok_ = false;
  bool disabled_ = false;
  bool poll_first_ = false;
  unsigned sends_since_wait_ = 0;
};

}  // namespace gatebench::load
