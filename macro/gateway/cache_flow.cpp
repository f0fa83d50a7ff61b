// The response cache in the request's way (docs/gateway.md "Response cache"): after the policy
// let a request through, a fresh stored response answers it without the upstream; a miss goes
// upstream and a storable response is copied as it streams to the client, then stored; when the
// upstream fails, an expired entry is served instead of the error (stale).
#include <cstring>
#include <span>

#include "macro/gateway/worker_loop.hpp"

namespace gatebench::gateway {

bool WorkerLoop::answer_from_cache(Client& c) {
  const auto host = static_cast<std::size_t>(c.conn.host);
  cache::MemoryStore* memory = c.conn.gen->memory_caches[host].get();
  RedisStore* redis = c.conn.gen->redis_caches[host];
  if (memory == nullptr && redis == nullptr) return false;
  if (!cacheable_request(c.req())) {
    c.px.cache = CacheStatus::kBypass;
    bump(cache_counters_.bypasses);
    return false;
  }
  if (redis != nullptr) return start_redis_lookup(c, *redis);
  const cache::RequestKey key =
      key_headers_.key(c.req(), std::string_view(c.buffers.in.get(), c.req().head_len));
  const cache::LookupResult r = memory->lookup(key, cache_now_s());
  if (r.status == cache::LookupStatus::kHit) {
    bump(cache_counters_.hits);
    serve_entry(c, r.response, r.age_s, CacheStatus::kHit, true);
    return true;
  }
  c.px.cache = CacheStatus::kMiss;
  bump(cache_counters_.misses);
  return false;
}

void WorkerLoop::serve_entry(Client& c, std::string_view entry, std::uint32_t age_s,
                             CacheStatus status, bool borrowed) {
  ClientConn& cc = c.conn;
  EntryView e;
  if (!split_entry(entry, e)) {
    respond(c, 500, "text/plain", "bad cache entry\n", {});
    return;
  }
  take_response_buffers(c);
  cc.out_len = write_hit_head(c.buffers.out.get(), kOutCap, e.head, age_s, status, cc.close_after,
                              c.req().minor_version == 0);
  if (cc.out_len == 0) {
    respond(c, 500, "text/plain", "cache entry head too large\n", {});
    return;
  }
  cc.out_sent = 0;
  cc.out_body = e.body;
  cc.out_body_borrowed = borrowed && !e.body.empty();
  c.px.cache = status;
  c.log.status = e.status;
  cc.state = CState::kLocal;
  cc.deadline_ms = now_ms_ + cfg().send_timeout_ms;
}

// The store's view dies with the next insert on this worker: before the loop serves another
// connection, what is left of the body moves into the connection's own buffer (grown once).
void WorkerLoop::unborrow_body(Client& c) {
  ClientConn& cc = c.conn;
  if (!cc.out_body_borrowed) return;
  cc.out_body_borrowed = false;
  std::vector<char>& copy = c.buffers.hit_body;
  if (copy.size() < cc.out_body.size()) copy.resize(cc.out_body.size());
  std::memcpy(copy.data(), cc.out_body.data(), cc.out_body.size());
  cc.out_body = std::string_view(copy.data(), cc.out_body.size());
}

bool WorkerLoop::serve_stale(Client& c) {
  if (c.px.cache != CacheStatus::kMiss) return false;
  cache::MemoryStore* store =
      c.conn.gen->memory_caches[static_cast<std::size_t>(c.conn.host)].get();
  if (store == nullptr) return false;
  const cache::RequestKey key =
      key_headers_.key(c.req(), std::string_view(c.buffers.in.get(), c.req().head_len));
  const cache::LookupResult r = store->lookup(key, cache_now_s());
  if (r.status != cache::LookupStatus::kStale) return false;
  bump(cache_counters_.stale);
  serve_entry(c, r.response, r.age_s, CacheStatus::kStale, true);
  return true;
}

void WorkerLoop::begin_capture(Client& c) {
  ProxyExchange& px = c.px;
  if (px.cache != CacheStatus::kMiss) return;
  const HostConfig& host = host_of(c);
  std::unique_ptr<CacheCandidate>& cand = c.buffers.candidate;
  if (!cand) cand = std::make_unique<CacheCandidate>();
  const std::string_view head(c.buffers.resp.get(), c.rh().head_len);
  if (!examine_response(head, c.rh(), c.req(),
                        std::string_view(c.buffers.in.get(), c.req().head_len),
                        host.cache->default_ttl_s, cache_now_s(), *cand)) {
    return;
  }
  const std::uint64_t body_len = c.rh().body == BodyKind::kLength ? c.rh().content_length : 0;
  if (!begin_entry(c.buffers.capture, head, c.rh(), host.security_headers, body_len,
                   host.cache->max_entry_bytes)) {
    bump(cache_counters_.refused);
    return;
  }
  px.capture = true;
  px.cap_scan = c.rh().head_len;
}

void WorkerLoop::capture_body(Client& c) {
  ProxyExchange& px = c.px;
  const BodyCursor& body = px.resp_body;
  if (!px.capture || body.scan <= px.cap_scan) return;
  px.capture = c.buffers.capture.append(
      std::string_view(c.buffers.resp.get() + px.cap_scan, body.scan - px.cap_scan));
  px.cap_scan = body.scan;
}

void WorkerLoop::store_capture(Client& c) {
  ProxyExchange& px = c.px;
  if (!px.capture) return;
  px.capture = false;
  const auto host = static_cast<std::size_t>(c.conn.host);
  if (RedisStore* redis = c.conn.gen->redis_caches[host]) {
    store_in_redis(c, *redis);
    return;
  }
  cache::MemoryStore* store = c.conn.gen->memory_caches[host].get();
  if (store == nullptr) return;
  const cache::RequestKey key =
      key_headers_.key(c.req(), std::string_view(c.buffers.in.get(), c.req().head_len));
  const cache::InsertStatus st =
      store->insert(key, cache::key_hash(key), c.buffers.candidate->freshness,
                    c.buffers.candidate->vary_lines(), c.buffers.capture.view(), cache_now_s());
  bump(st == cache::InsertStatus::kStored ? cache_counters_.stored : cache_counters_.refused);
}

// ---- Redis ------------------------------------------------------------------------------

RedisStore* WorkerLoop::redis_store_for(const CacheConfig& config) {
  for (auto& r : redis_stores_) {
    if (r->serves(config)) return r.get();
  }
  redis_stores_.push_back(std::make_unique<RedisStore>(config, epfd_, redis_ready_));
  return redis_stores_.back().get();
}

bool WorkerLoop::start_redis_lookup(Client& c, RedisStore& store) {
  const cache::RequestKey key =
      key_headers_.key(c.req(), std::string_view(c.buffers.in.get(), c.req().head_len));
  char name[kRedisKeyLen];
  if (store.lookup(c, redis_key(cache::key_hash(key), name), now_ms_)) {
    c.conn.state = CState::kCacheWait;
    // A backstop only: the lookup's own timeout resumes the request long before.
    c.conn.deadline_ms = now_ms_ + host_of(c).cache->redis_timeout_ms + 1000;
    return true;
  }
  bump(cache_counters_.store_failures);
  c.px.cache = CacheStatus::kMiss;
  bump(cache_counters_.misses);
  return false;
}

void WorkerLoop::resume_after_lookup(Client& c) {
  if (c.conn.dead || c.conn.state != CState::kCacheWait) return;
  switch (c.px.redis_result) {
    case RedisResult::kValue: {
      const std::string_view value(c.buffers.redis_value.data(), c.px.redis_value_len);
      const cache::RequestKey key =
          key_headers_.key(c.req(), std::string_view(c.buffers.in.get(), c.req().head_len));
      const cache::LookupResult r = redis_entry_lookup(value, key, cache_now_s());
      if (r.status == cache::LookupStatus::kHit) {
        bump(cache_counters_.hits);
        serve_entry(c, r.response, r.age_s, CacheStatus::kHit, false);
        drive(c);
        return;
      }
      break;
    }
    case RedisResult::kTimedOut:
      bump(cache_counters_.store_timeouts);
      bump(cache_counters_.store_failures);
      break;
    case RedisResult::kFailed:
      bump(cache_counters_.store_failures);
      break;
    case RedisResult::kNone:
    case RedisResult::kNotFound:
      break;
  }
  c.px.cache = CacheStatus::kMiss;
  bump(cache_counters_.misses);
  start_proxy(c);
  drive(c);
}

void WorkerLoop::store_in_redis(Client& c, RedisStore& store) {
  const cache::RequestKey key =
      key_headers_.key(c.req(), std::string_view(c.buffers.in.get(), c.req().head_len));
  const CacheCandidate& cand = *c.buffers.candidate;
  cache::EntryWriter writer;
  const cache::InsertStatus st =
      writer.plan(key, cand.freshness, cand.vary_lines(), c.buffers.capture.view(), kMaxRedisEntry);
  if (st != cache::InsertStatus::kStored) {
    bump(cache_counters_.refused);
    return;
  }
  if (redis_entry_.size() < writer.size()) redis_entry_.resize(writer.size());
  writer.write(redis_entry_.data(), cache_now_s());
  char name[kRedisKeyLen];
  store.store(redis_key(cache::key_hash(key), name),
              std::string_view(reinterpret_cast<const char*>(redis_entry_.data()), writer.size()),
              std::uint64_t{cand.freshness.ttl_s()} * 1000);
  bump(cache_counters_.stored);
}

void WorkerLoop::run_redis() {
  for (auto& r : redis_stores_) {
    const std::uint64_t d = r->next_deadline_ms();
    if (d != 0 && d <= now_ms_) r->tick(now_ms_);
  }
  // Resuming a request can queue commands, and writing them can fail lookups (a lost
  // connection): until both are done.
  do {
    redis_batch_.swap(redis_ready_);
    for (Client* c : redis_batch_) resume_after_lookup(*c);
    redis_batch_.clear();
    for (auto& r : redis_stores_) r->flush();
  } while (!redis_ready_.empty());
}

}  // namespace gatebench::gateway
