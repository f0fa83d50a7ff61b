// The response cache in the request's way (cache_flow.hpp).
#include "macro/gateway/cache_flow.hpp"

#include <algorithm>
#include <cstring>

namespace gatebench::gateway {

CacheAnswer CacheFlow::lookup(Client& c, std::uint64_t now_ms) {
  const auto host = static_cast<std::size_t>(c.conn.host);
  cache::MemoryStore* memory = c.conn.gen->memory_caches[host].get();
  RedisStore* redis = c.conn.gen->redis_caches[host];
  if (!cacheable_request(c.req())) {
    c.px.cache = CacheStatus::kBypass;
    bump(counters_.bypasses);
    return {};
  }
  if (redis != nullptr) return start_redis_lookup(c, *redis, now_ms);
  const cache::LookupResult r = memory->lookup(key_of(c), cache_now_s());
  if (r.status == cache::LookupStatus::kHit) {
    bump(counters_.hits);
    return {r.response, r.age_s, CacheStatus::kHit, true, false};
  }
  c.px.cache = CacheStatus::kMiss;
  bump(counters_.misses);
  return {};
}

void CacheFlow::unborrow_body(Client& c) {
  ClientConn& cc = c.conn;
  if (!cc.out_body_borrowed) return;
  cc.out_body_borrowed = false;
  std::vector<char>& copy = c.buffers.hit_body;
  if (copy.size() < cc.out_body.size()) copy.resize(cc.out_body.size());
  std::memcpy(copy.data(), cc.out_body.data(), cc.out_body.size());
  cc.out_body = std::string_view(copy.data(), cc.out_body.size());
}

CacheAnswer CacheFlow::stale(Client& c) {
  if (c.px.cache != CacheStatus::kMiss) return {};
  cache::MemoryStore* store =
      c.conn.gen->memory_caches[static_cast<std::size_t>(c.conn.host)].get();
  if (store == nullptr) return {};
  const cache::LookupResult r = store->lookup(key_of(c), cache_now_s());
  if (r.status != cache::LookupStatus::kStale) return {};
  bump(counters_.stale);
  return {r.response, r.age_s, CacheStatus::kStale, true, false};
}

void CacheFlow::begin_capture(Client& c) {
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
    bump(counters_.refused);
    return;
  }
  px.capture = true;
  px.cap_scan = c.rh().head_len;
}

void CacheFlow::capture_body(Client& c) {
  ProxyExchange& px = c.px;
  const BodyCursor& body = px.resp_body;
  if (!px.capture || body.scan <= px.cap_scan) return;
  px.capture = c.buffers.capture.append(
      std::string_view(c.buffers.resp.get() + px.cap_scan, body.scan - px.cap_scan));
  px.cap_scan = body.scan;
}

void CacheFlow::store_capture(Client& c) {
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
  const cache::RequestKey key = key_of(c);
  const cache::InsertStatus st =
      store->insert(key, cache::key_hash(key), c.buffers.candidate->freshness,
                    c.buffers.candidate->vary_lines(), c.buffers.capture.view(), cache_now_s());
  bump(st == cache::InsertStatus::kStored ? counters_.stored : counters_.refused);
}

// ---- Redis ------------------------------------------------------------------------------

RedisStore* CacheFlow::redis_store_for(const CacheConfig& config, int epfd) {
  for (auto& r : redis_stores_) {
    if (r->serves(config)) return r.get();
  }
  redis_stores_.push_back(std::make_unique<RedisStore>(config, epfd, redis_ready_));
  return redis_stores_.back().get();
}

CacheAnswer CacheFlow::start_redis_lookup(Client& c, RedisStore& store, std::uint64_t now_ms) {
  const cache::RequestKey key = key_of(c);
  char name[kRedisKeyLen];
  if (store.lookup(c, redis_key(cache::key_hash(key), name), now_ms)) {
    c.conn.state = CState::kCacheWait;
    // A backstop only: the lookup's own timeout resumes the request long before.
    c.conn.deadline_ms = now_ms + host_of(c).cache->redis_timeout_ms + 1000;
    return {{}, 0, CacheStatus::kNone, false, true};
  }
  bump(counters_.store_failures);
  c.px.cache = CacheStatus::kMiss;
  bump(counters_.misses);
  return {};
}

CacheAnswer CacheFlow::lookup_done(Client& c) {
  switch (c.px.redis_result) {
    case RedisResult::kValue: {
      const std::string_view value(c.buffers.redis_value.data(), c.px.redis_value_len);
      const cache::LookupResult r = redis_entry_lookup(value, key_of(c), cache_now_s());
      if (r.status == cache::LookupStatus::kHit) {
        bump(counters_.hits);
        return {r.response, r.age_s, CacheStatus::kHit, false, false};
      }
      break;
    }
    case RedisResult::kTimedOut:
      bump(counters_.store_timeouts);
      bump(counters_.store_failures);
      break;
    case RedisResult::kFailed:
      bump(counters_.store_failures);
      break;
    case RedisResult::kNone:
    case RedisResult::kNotFound:
      break;
  }
  c.px.cache = CacheStatus::kMiss;
  bump(counters_.misses);
  return {};
}

void CacheFlow::store_in_redis(Client& c, RedisStore& store) {
  const cache::RequestKey key = key_of(c);
  const CacheCandidate& cand = *c.buffers.candidate;
  cache::EntryWriter writer;
  const cache::InsertStatus st =
      writer.plan(key, cand.freshness, cand.vary_lines(), c.buffers.capture.view(), kMaxRedisEntry);
  if (st != cache::InsertStatus::kStored) {
    bump(counters_.refused);
    return;
  }
  if (redis_entry_.size() < writer.size()) redis_entry_.resize(writer.size());
  writer.write(redis_entry_.data(), cache_now_s());
  char name[kRedisKeyLen];
  store.store(redis_key(cache::key_hash(key), name),
              std::string_view(reinterpret_cast<const char*>(redis_entry_.data()), writer.size()),
              std::uint64_t{cand.freshness.ttl_s()} * 1000);
  bump(counters_.stored);
}

std::uint64_t CacheFlow::wait_ms(std::uint64_t wait, std::uint64_t now_ms) const {
  for (const auto& r : redis_stores_) {
    const std::uint64_t d = r->next_deadline_ms();
    // At least 1 ms: the coarse clock may not have reached a deadline that has passed.
    if (d != 0) wait = std::min<std::uint64_t>(wait, d > now_ms ? d - now_ms : 1);
  }
  return wait;
}

void CacheFlow::tick(std::uint64_t now_ms) {
  for (auto& r : redis_stores_) r->tick(now_ms);  // reconnects
}

}  // namespace gatebench::gateway
