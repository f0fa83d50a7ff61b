// The response cache in the request's way (docs/gateway.md "Response cache"): after the policy
// let a request through, a fresh stored response answers it without the upstream; a miss goes
// upstream and a storable response is copied as it streams to the client, then stored; when the
// upstream fails, an expired entry is served instead of the error (stale). The part owns the
// worker's cache counters, the key's header names, and the Redis pools with their ready list; the
// memory stores live in the configuration generation (WorkerGen). The worker's request machine
// sends what the part finds (CacheAnswer) and resumes a request whose Redis lookup is done.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "macro/gateway/connection.hpp"
#include "macro/gateway/redis_store.hpp"
#include "macro/gateway/response_cache.hpp"

namespace gatebench::gateway {

// What the cache has for a request: an entry to serve (status kHit or kStale), a Redis lookup
// under way (`waiting`: the client is in kCacheWait), or nothing (status kNone).
struct CacheAnswer {
  std::string_view entry;
  std::uint32_t age_s = 0;
  CacheStatus status = CacheStatus::kNone;
  // `entry` is the memory store's view, valid until the worker's next insert (unborrow_body).
  bool borrowed = false;
  bool waiting = false;
};

class CacheFlow {
 public:
  explicit CacheFlow(CacheCounters& counters) : counters_(counters) {}
  CacheFlow(const CacheFlow&) = delete;
  CacheFlow& operator=(const CacheFlow&) = delete;

  // Whether the host of the request has a cache (memory or Redis): most have none, and they pay
  // these two loads and no call.
  static bool caches(const Client& c) {
    const auto host = static_cast<std::size_t>(c.conn.host);
    return c.conn.gen->memory_caches[host] != nullptr || c.conn.gen->redis_caches[host] != nullptr;
  }
  // A request the policy let through to a host that caches: a fresh entry of the memory store,
  // or a Redis lookup started; bypasses and misses are counted and marked on the request
  // (c.px.cache).
  CacheAnswer lookup(Client& c, std::uint64_t now_ms);
  // The upstream failed for a request that missed: the memory store's expired entry, if any.
  CacheAnswer stale(Client& c);
  // The Redis lookup of a request in kCacheWait is done (c.px.redis_result): its entry, or
  // nothing (a miss, counted).
  CacheAnswer lookup_done(Client& c);

  // A missed request's response: examined once its head is parsed, copied as its body goes to
  // the client, stored when it is complete.
  void begin_capture(Client& c);
  void capture_body(Client& c);
  void store_capture(Client& c);
  // The store's view dies with the next insert on this worker: before the loop serves another
  // connection, what is left of a borrowed body moves into the connection's own buffer.
  static void unborrow_body(Client& c);

  // The worker's pool for a Redis cache (one per server and settings; it outlives generations),
  // registered with the worker's epoll instance `epfd`.
  RedisStore* redis_store_for(const CacheConfig& config, int epfd);
  bool has_redis() const { return !redis_stores_.empty(); }
  // `wait`, or less when a Redis lookup's deadline comes first (at least 1 ms).
  std::uint64_t wait_ms(std::uint64_t wait, std::uint64_t now_ms) const;
  // Reconnects Redis pools that are due.
  void tick(std::uint64_t now_ms);
  // After a batch of events or a tick: lookups past their deadline fail, each request whose
  // lookup is done goes to `resume`, queued commands go out. Resuming a request can queue
  // commands, and writing them can fail lookups (a lost connection): until both are done.
  template <class Resume>
  void run_redis(std::uint64_t now_ms, Resume&& resume) {
    for (auto& r : redis_stores_) {
      const std::uint64_t d = r->next_deadline_ms();
      if (d != 0 && d <= now_ms) r->tick(now_ms);
    }
    do {
      redis_batch_.swap(redis_ready_);
      for (Client* c : redis_batch_) resume(*c);
      redis_batch_.clear();
      for (auto& r : redis_stores_) r->flush();
    } while (!redis_ready_.empty());
  }

 private:
  CacheAnswer start_redis_lookup(Client& c, RedisStore& store, std::uint64_t now_ms);
  void store_in_redis(Client& c, RedisStore& store);
  cache::RequestKey key_of(Client& c) {
    return key_headers_.key(c.req(), std::string_view(c.buffers.in.get(), c.req().head_len));
  }

  CacheCounters& counters_;
  KeyHeaders key_headers_;
  std::vector<Client*> redis_ready_;  // before redis_stores_: their destructors may touch it
  std::vector<Client*> redis_batch_;
  std::vector<std::unique_ptr<RedisStore>> redis_stores_;
  std::vector<std::byte> redis_entry_;  // an entry being encoded for SET
};

}  // namespace gatebench::gateway
