// The connection lifecycle both workers share (HTTP/1.1 in worker.*, HTTP/2 in h2_worker.*): a
// slot's socket from the non-blocking connect through the TLS handshake (offering the slot's last
// session again, tls_client.*) to its close, the epoll registrations that report each step, the
// connects and handshakes it counts, the error class of a set-up that ran out of time, and the
// back-off after a failed one. What a connection carries once it is open is the worker's.
#pragma once

#include <openssl/ssl.h>
#include <sys/epoll.h>
#include <time.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "macro/load/options.hpp"
#include "macro/load/stats.hpp"
#include "macro/load/tls_client.hpp"
#include "macro/load/url.hpp"
#include "macro/load/worker_plan.hpp"

namespace gatebench::load {

inline constexpr std::uint64_t kSweepNs = 2'000'000;     // timeout and back-off resolution
inline constexpr std::uint64_t kBackoffNs = 10'000'000;  // after a failed connect or handshake

// Where a connection slot's transport is.
enum class Phase : std::uint8_t {
  kClosed,
  kBackoff,  // a connect or handshake failed: the next one waits until retry_ns
  kConnecting,
  kHandshaking,
  kOpen,     // the worker's protocol runs on it
  kDraining  // closed, but ring operations of the old socket may still write its buffer
};

// One connection slot's transport.
struct Transport {
  std::uint32_t index = 0;       // the slot's place in its worker (epoll data, TLS session slot)
  std::uint32_t generation = 0;  // tells stale events of a previous socket apart
  int fd = -1;
  Phase phase = Phase::kClosed;
  std::uint32_t events = 0;       // what epoll watches for on fd
  std::uint64_t deadline_ns = 0;  // connect and handshake (the worker may reuse it once open)
  std::uint64_t retry_ns = 0;     // kBackoff: when to connect again
  std::unique_ptr<SSL, SslDeleter> ssl;
};

// What a step of the set-up came to.
enum class SetUp : std::uint8_t {
  kOpen,                  // the transport is open (TLS: the handshake is done and counted)
  kWaiting,               // a handshake step waits for the socket (watched for what it needs)
  kConnectFailed,         // the connect failed
  kTlsFailed,             // the TLS set-up or handshake failed
  kNoApplicationProtocol  // the server refused every protocol offered by ALPN
};

// The error a slot fails with when its deadline passes: the set-up step it was in, else a
// request's timeout.
inline ErrorClass overdue_error(Phase phase) {
  return phase == Phase::kConnecting    ? ErrorClass::kConnect
         : phase == Phase::kHandshaking ? ErrorClass::kTls
                                        : ErrorClass::kTimeout;
}

// Epoll data of a slot's events: the socket's generation above the slot's index.
inline std::uint64_t event_key(std::uint32_t index, std::uint32_t generation) {
  return (static_cast<std::uint64_t>(generation) << 32) | index;
}
inline std::uint32_t event_index(std::uint64_t key) {
  return static_cast<std::uint32_t>(key & 0xffffffffu);
}
inline std::uint32_t event_generation(std::uint64_t key) {
  return static_cast<std::uint32_t>(key >> 32);
}

// One thread's connector: its epoll set and TLS context, for `slots` connection slots.
class Connector {
 public:
  // `h2`: TLS offers only h2 by ALPN. Throws std::runtime_error when epoll or TLS cannot be set up.
  Connector(const Options& options, const Target& target, const WorkerPlan& plan, Stats& stats,
            std::size_t slots, bool h2);
  ~Connector();
  Connector(const Connector&) = delete;
  Connector& operator=(const Connector&) = delete;

  int epoll_fd() const { return epoll_fd_; }
  bool tls() const { return tls_ != nullptr; }

  // Starts the slot's non-blocking connect (kConnecting, watched until writable); false when it
  // failed at once (nothing is left open).
  bool open(Transport& t);
  // The connecting socket reported: counts the connect inside the window; a plain socket is then
  // open, a TLS one starts its handshake.
  SetUp connected(Transport& t, std::uint64_t now);
  // One handshake step (kHandshaking); a finished handshake is counted, full or resumed.
  SetUp handshake(Transport& t);
  // Watches the socket for `events` (epoll_ctl only when they change).
  void watch(Transport& t, std::uint32_t events) {
    if (t.events != events) modify(t, events);
  }
  // Stops watching the socket (its traffic goes elsewhere, e.g. an io_uring).
  void unwatch(Transport& t);
  // Closes the socket: TLS ends with close_notify when `clean` and sessions are resumed (see
  // end_tls); `shut_down` first ends operations that hold the socket open past close(). The
  // slot is kClosed with a new generation.
  void close(Transport& t, bool clean, bool shut_down = false);
  // After a failed connect or handshake (the socket closed): kBackoff for kBackoffNs.
  static void back_off(Transport& t, std::uint64_t now) {
    t.phase = Phase::kBackoff;
    t.retry_ns = now + kBackoffNs;
  }
  // Waits until `timeout` at most; the events are in events()[0, n).
  int wait(const timespec& timeout) { return wait_epoll(epoll_fd_, events_, timeout, precise_); }
  // Takes what is ready without waiting (the ring's watch on the epoll set reported).
  int poll();
  const epoll_event& event(int i) const { return events_[static_cast<std::size_t>(i)]; }

 private:
  void modify(Transport& t, std::uint32_t events);

  const Target& target_;
  const WorkerPlan& plan_;
  Stats& stats_;
  int epoll_fd_ = -1;
  bool precise_ = true;  // epoll_pwait2 (see wait_epoll)
  std::vector<epoll_event> events_;
  std::unique_ptr<TlsClient> tls_;
};

}  // namespace gatebench::load
