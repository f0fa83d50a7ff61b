// What the main thread publishes to the workers: the current configuration generation (config
// plus the TLS context built from it) and the stop request. Workers read it only when the
// generation number changes (after SIGHUP), never per request.
#pragma once

#include <openssl/ssl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <memory>
#include <mutex>

#include "macro/gateway/calibrate.hpp"
#include "macro/gateway/config.hpp"
#include "macro/gateway/response_cache.hpp"

namespace gatebench::gateway {

struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;

// One configuration generation. Immutable once published; shared by every worker.
struct Published {
  std::shared_ptr<const Config> config;
  SslCtxPtr tls;  // null when no https listener
  std::uint64_t generation = 0;
};

class SharedState {
 public:
  void publish(std::shared_ptr<const Published> p) {
    std::lock_guard<std::mutex> lock(mu_);
    current_ = std::move(p);
    generation_.store(current_->generation, std::memory_order_release);
  }
  std::shared_ptr<const Published> current() const {
    std::lock_guard<std::mutex> lock(mu_);
    return current_;
  }
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // Mixes of calibration work per parsed request (calibrate.hpp); set before the workers start.
  std::uint32_t calibrate_mixes = 0;
  // Study-only injected costs (calibrate.hpp) and the descriptor `write` writes to.
  StudyInjections study_inject;
  int study_null_fd = -1;

  // Client connections per worker the open-file limit leaves room for (each may hold an upstream
  // connection too), set before the workers start; the effective cap is the lower of this and
  // limits.max_connections_per_worker.
  std::uint32_t descriptor_connection_cap = UINT32_MAX;

  // Cache counters, one slot per worker (index), allocated before the workers start.
  std::unique_ptr<CacheCounters[]> cache_counters;
  std::size_t cache_counter_slots = 0;

  void request_stop() { stopping_.store(true, std::memory_order_release); }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }

  // A worker's loop ended with an exception: the gateway stops (the main thread, in sigwait,
  // is woken by a SIGTERM to the process) and exits 1.
  void fail_worker() {
    worker_failed_.store(true, std::memory_order_release);
    ::kill(::getpid(), SIGTERM);
  }
  bool worker_failed() const { return worker_failed_.load(std::memory_order_acquire); }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const Published> current_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> worker_failed_{false};
};

}  // namespace gatebench::gateway
