// Upstream connections of one worker: their storage (recycled through a free list, so steady
// state allocates nothing) and, per configuration generation and proxy host, a LIFO stack of idle
// keep-alive connections of at most the host's pool_size.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "macro/gateway/event_tag.hpp"
#include "macro/gateway/policy.hpp"
#include "macro/gateway/shared_state.hpp"
#include "micro/core/cache/store.hpp"

namespace gatebench::gateway {

struct Client;
struct WorkerGen;
class RedisStore;

struct UpConn : Pollable {
  int fd = -1;
  Client* owner = nullptr;  // null while idle in a pool
  WorkerGen* gen = nullptr;
  int host = -1;
  bool connected = false;
  bool readable = false;
  bool writable = false;
  bool reused = false;       // taken from a pool (may have been closed by the upstream meanwhile)
  bool peer_closed = false;  // epoll reported the upstream's close (RDHUP, HUP or ERR)
  bool dead = false;
  bool in_use = false;  // counted in its generation's UpstreamUse::busy
};

// Upstream connections to one host of a generation in use by requests, and the most in use at
// once in the current and the previous peak window (WorkerLoop's kPeakWindowMs).
struct UpstreamUse {
  std::size_t busy = 0;
  std::size_t peak = 0;
  std::size_t previous_peak = 0;
  std::size_t window_peak() const { return std::max({peak, previous_peak, busy}); }
};

// Per-worker view of one configuration generation: its upstream pools and this worker's policy
// state and memory caches per host. Requests started under an older generation finish on it; it is
// freed when the last of them is done.
struct WorkerGen {
  std::shared_ptr<const Published> pub;
  std::vector<std::vector<UpConn*>> idle;             // per host, LIFO
  std::vector<UpstreamUse> use;                       // per host
  std::vector<std::unique_ptr<HostPolicy>> policies;  // per host
  // Per host, null without a memory cache: a reload starts with empty stores.
  std::vector<std::unique_ptr<cache::MemoryStore>> memory_caches;
  // Per host, null without a Redis cache: the worker's pool for that server (it outlives
  // generations, so a reload keeps the connections).
  std::vector<RedisStore*> redis_caches;
  int inflight = 0;
  bool retired = false;
};

class UpstreamConns {
 public:
  UpstreamConns() = default;
  ~UpstreamConns();  // closes every descriptor still open
  UpstreamConns(const UpstreamConns&) = delete;
  UpstreamConns& operator=(const UpstreamConns&) = delete;

  // A connection object for a new socket `fd` to `host` of `gen`.
  UpConn* open(int fd, WorkerGen* gen, int host);
  // Closes the socket; the object is reused after the next reap() (events already returned by
  // epoll_wait may still name it, and see it dead).
  void close(UpConn& u);
  void reap();

  // The most recently pooled idle connection to `host`, or null.
  static UpConn* take_idle(WorkerGen& g, int host);
  // Puts `u` back in its generation's pool when `reusable`, the generation is current, the pool
  // has room and the socket has nothing left to read (no EOF, no bytes nobody asked for); closes
  // it otherwise. The pool has room below the host's pool_size, and below the connections the
  // window's peak had in use beyond those in use now: the pool follows the requests in flight
  // (HTTP/2 streams put hundreds in flight on one worker), so a burst's connections are not
  // closed and reopened for the next one.
  void release(UpConn& u, bool reusable, bool stopping);
  // Every peak window: the window's peak becomes the previous one, and idle connections beyond
  // what release() would keep now are closed, the least recently used first.
  void next_window(WorkerGen& g);
  // An idle connection reported closure or unexpected bytes: out of its pool and closed.
  void drop_idle(UpConn& u);
  void close_idle(WorkerGen& g);

 private:
  std::vector<std::unique_ptr<UpConn>> store_;
  std::vector<UpConn*> free_;
  std::vector<UpConn*> dead_;

  // Counts `u` as in use (taken or opened for a request) in its generation's UpstreamUse.
  static void count_in_use(UpConn& u);
  // Counts `u`, when it was in use, as no longer in use.
  static void count_done(UpConn& u);
};

}  // namespace gatebench::gateway
