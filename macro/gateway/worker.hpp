// One gateway worker: a thread with its own epoll loop, its own SO_REUSEPORT listening sockets
// and its own upstream keep-alive pools. Workers share nothing mutable but the published
// configuration (read on reload only), so the request path takes no lock.
//
// Why raw epoll rather than Asio: the request path is a handful of non-blocking syscalls
// (read, writev, read, writev) driven by edge-triggered readiness flags; owning the loop lets
// each connection keep its buffers and parser state for its whole life with no per-request
// allocation, no completion-handler objects, and no epoll_ctl after registration
// (measurements in docs/gateway.md).
#pragma once

#include <cstdint>
#include <memory>
#include <thread>

#include "macro/gateway/shared_state.hpp"

namespace gatebench::gateway {

class WorkerLoop;

class Worker {
 public:
  // Opens the listening sockets (throws std::runtime_error naming the address on failure).
  Worker(int index, SharedState& shared);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void start();
  // Wakes the loop so it notices a new generation or a stop request.
  void wake();
  void join();

 private:
  std::unique_ptr<WorkerLoop> loop_;
  std::thread thread_;
};

}  // namespace gatebench::gateway
