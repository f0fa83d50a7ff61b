// Upstream connections of one worker: their storage (recycled through a free list, so steady
// state allocates nothing) and, per configuration generation and proxy host, a LIFO stack of idle
// keep-alive connections of at most the host's pool_size.
#pragma once

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
};

// Per-worker view of one configuration generation: its upstream pools and this worker's policy
// state and memory caches per host. Requests started under an older generation finish on it; it is
// freed when the last of them is done.
struct WorkerGen {
  std::shared_ptr<const Published> pub;
  std::vector<std::vector<UpConn*>> idle;             // per host, LIFO
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
  // it otherwise.
  void release(UpConn& u, bool reusable, bool stopping);
  // An idle connection reported closure or unexpected bytes: out of its pool and closed.
  void drop_idle(UpConn& u);
  void close_idle(WorkerGen& g);

 private:
  std::vector<std::unique_ptr<UpConn>> store_;
  std::vector<UpConn*> free_;
  std::vector<UpConn*> dead_;
};

}  // namespace gatebench::gateway
