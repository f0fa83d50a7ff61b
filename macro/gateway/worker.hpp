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

  // Runs the loop on the worker's thread. An exception that escapes it (nothing should) is
  // printed with the worker's index and stops the gateway gracefully with exit status 1
  // (SharedState::worker_failed) instead of std::terminate taking the process down unexplained.
  void start();
  // Builds the worker's state for a generation before it is published (WorkerLoop::prepare):
  // throws std::bad_alloc when there is no memory for it; then discard_prepared() drops it.
  void prepare(std::shared_ptr<const Published> pub);
  void discard_prepared();
  // Wakes the loop so it notices a new generation or a stop request.
  void wake();
  void join();

 private:
  int index_;
  SharedState& shared_;
  std::unique_ptr<WorkerLoop> loop_;
  std::thread thread_;
};

}  // namespace gatebench::gateway
