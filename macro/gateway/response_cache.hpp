// The gateway's side of the response cache (docs/gateway.md "Response cache"): the request key
// taken from a parsed head, what the worker stores for a response (the head it will send, its
// status, its body) and the head of an answer from the cache. gatecore (micro/core/cache) decides
// freshness and holds the memory store; this file only fits them to the worker's heads and
// buffers. Nothing here allocates on a lookup or a hit.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "macro/gateway/config.hpp"
#include "macro/gateway/http_head.hpp"
#include "micro/core/cache/cache.hpp"

namespace gatebench::gateway {

// What X-Cache-Status says: kNone on hosts without a cache (no header).
enum class CacheStatus : std::uint8_t { kNone, kHit, kMiss, kBypass, kStale };

// "X-Cache-Status: hit\r\n" ... ("" for kNone).
std::string_view cache_status_line(CacheStatus s);

// Counters of one worker. One writer (the worker), read by the main thread at the end: relaxed
// loads and stores, no locked instruction on the request path.
struct alignas(64) CacheCounters {
  std::atomic<std::uint64_t> hits{0};
  std::atomic<std::uint64_t> misses{0};
  std::atomic<std::uint64_t> bypasses{0};
  std::atomic<std::uint64_t> stale{0};
  std::atomic<std::uint64_t> stored{0};
  std::atomic<std::uint64_t> refused{0};  // storable but the store refused it (too large ...)
  std::atomic<std::uint64_t> store_failures{0};  // Redis: lookups answered as misses (down, slow)
  std::atomic<std::uint64_t> store_timeouts{0};  // of those, the ones past redis_timeout_ms
};

inline void bump(std::atomic<std::uint64_t>& c) {
  c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// "hits=N misses=N bypasses=N stale=N stored=N refused=N store_failures=N store_timeouts=N",
// summed over `workers` counters, into out; returns the text.
std::string_view format_cache_counters(std::span<const CacheCounters> workers, std::span<char> out);

// The request as gatecore's key sees it: method, Host, target and the header lines for Vary.
class KeyHeaders {
 public:
  cache::RequestKey key(const RequestHead& req, std::string_view head);

 private:
  std::array<cache::Header, kMaxHeaderFields> lines_{};
};

// True when the request may be answered from the cache or stored: GET or HEAD without a body.
bool cacheable_request(const RequestHead& req);
bool has_authorization(const RequestHead& req, std::string_view head);

// A stored response: an 8-byte prefix (head length, status), the head the client gets without
// Age, X-Cache-Status, Connection and the empty line, then the body.
inline constexpr std::size_t kEntryPrefix = 8;

struct EntryView {
  std::uint16_t status = 0;
  std::string_view head;
  std::string_view body;
};

// False when `bytes` is not an entry this file wrote.
bool split_entry(std::string_view bytes, EntryView& out);

// A value read back from Redis for `key`: checked whole first (it comes from outside the
// process), then matched as the memory store matches its entries; kMiss when it is no entry or
// another request's.
cache::LookupResult redis_entry_lookup(std::string_view value, const cache::RequestKey& key,
                                       std::int64_t now_s);

// The head of an answer from the cache, into out: the stored head, Age, X-Cache-Status, the
// Connection line the exchange needs, the empty line. 0 when it does not fit.
std::size_t write_hit_head(char* out, std::size_t cap, std::string_view stored_head,
                           std::uint32_t age_s, CacheStatus status, bool close, bool client_http10);

// An upstream response that may be stored, examined once its head is in: the freshness decision
// and a copy of its Vary lines (the response window is reused while the body streams).
struct CacheCandidate {
  cache::Freshness freshness;
  std::array<char, 512> vary_text{};
  std::array<std::string_view, cache::ResponseCacheHeaders::kMaxLines> vary{};
  std::size_t vary_count = 0;
  std::span<const std::string_view> vary_lines() const { return {vary.data(), vary_count}; }
};

// Decides whether the response whose head is `head` (parsed into `rh`) may be stored for the
// request; fills `out` when it may. Only Content-Length framed or bodiless responses are stored
// (a chunked one would have to be re-framed for HTTP/1.0 clients).
bool examine_response(std::string_view head, const ResponseHead& rh, const RequestHead& req,
                      std::string_view req_head, std::uint32_t default_ttl_s, std::int64_t now_s,
                      CacheCandidate& out);

// The bytes of a response being stored: grown to the largest entry seen, then reused.
class CaptureBuffer {
 public:
  // Room for `n` bytes from the start; false when n is over `limit`.
  bool reset(std::size_t n, std::size_t limit);
  char* data() { return buf_.get(); }
  std::size_t capacity() const { return cap_; }
  void set_len(std::size_t n) { len_ = n; }
  // Lowers the reserved size to `n` (the exact size, once the head is written).
  void limit(std::size_t n) { reserved_ = n < reserved_ ? n : reserved_; }
  // False (and nothing appended) when it would pass the reserved size.
  bool append(std::string_view s);
  std::string_view view() const { return {buf_.get(), len_}; }

 private:
  std::unique_ptr<char[]> buf_;
  std::size_t cap_ = 0;
  std::size_t reserved_ = 0;
  std::size_t len_ = 0;
};

// Writes the entry prefix and the stored head for a response into `cap` (reserving room for
// `body_len` body bytes); false when it is larger than `max_entry_bytes`.
bool begin_entry(CaptureBuffer& cap, std::string_view head, const ResponseHead& rh,
                 SecurityHeaders sh, std::uint64_t body_len, std::size_t max_entry_bytes);

// A memory store for a host's cache settings: max_bytes of entries and at most one entry per
// KiB of it (256 .. 2^20), so its index (32 bytes per entry) stays a few percent of max_bytes.
std::unique_ptr<cache::MemoryStore> make_memory_cache(const CacheConfig& c);

// The Redis key of a request: "gbc:" and the key hash in hex. Two requests whose hashes collide
// share a key; the entry holds the whole key, so the other one reads a miss, never a wrong hit.
inline constexpr std::size_t kRedisKeyLen = 20;
std::string_view redis_key(std::uint64_t hash, char (&out)[kRedisKeyLen]);
// Largest entry written to Redis (its default proto-max-bulk-len is 512 MB; this bounds a
// worker's encoding buffer).
inline constexpr std::size_t kMaxRedisEntry = 64u << 20;

// Unix seconds, the clock of freshness and Age.
std::int64_t cache_now_s();

}  // namespace gatebench::gateway
