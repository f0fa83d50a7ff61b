// The bounded in-memory response store of one gateway worker: key -> stored response bytes with
// an expiry, CLOCK eviction under a byte bound and an entry bound.
//
//   MemoryStore store({.max_bytes = 64 << 20, .max_entries = 100'000});
//   const std::uint64_t h = key_hash(key);
//   LookupResult r = store.lookup(key, h, now_s);
//   if (r.status == LookupStatus::kHit) send(r.response, r.age_s);
//   else if (storable) store.insert(key, h, freshness, headers.vary(), response, now_s);
//
// Contract: no I/O, no threads, no locks: one store per worker (docs/cache.md says why). lookup
// allocates nothing; insert allocates the entry's one block (a miss already paid an upstream
// round trip). A hit is only ever a response stored for the same method, the same host (ASCII
// case-insensitive), the same target (byte for byte) and, when the response named Vary headers,
// the same values of those request headers (missing differs from empty). One variant per key:
// storing another variant replaces the previous one. The view a lookup returns stays valid until
// the next insert or erase on this store.
//
// Bounds: the bytes of all entries (a fixed header, host, target, Vary names and values, response)
// never exceed max_bytes, and there are at most max_entries; an insert evicts until the new entry
// fits. The index (16 bytes per slot, at most half full) is allocated once in the constructor
// and counted by memory_bytes(), not by max_bytes; the allocator's per-block overhead neither.
//
// Eviction is CLOCK: a hit sets the entry's referenced bit (in the index slot the lookup has
// already loaded, so a hit writes no other line); the hand sweeps the index, clearing set bits,
// and evicts the first entry whose bit is clear. New entries start unreferenced, so a key seen
// once is evicted at the hand's next pass, before any key that was hit. Expired entries are
// kept (a lookup reports them as kStale: the caller may serve one while the upstream is down)
// until replaced or evicted; a stale lookup does not set the bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "micro/core/cache/entry.hpp"
#include "micro/core/cache/freshness.hpp"
#include "micro/core/cache/key.hpp"

namespace gatebench::cache {

struct StoreLimits {
  std::size_t max_bytes = 64u << 20;
  std::size_t max_entries = 65536;
  std::size_t max_entry_bytes = 8u << 20;  // one entry's bytes at most (capped by max_bytes)
};

class MemoryStore {
 public:
  // The entry format's bounds (entry.hpp).
  static constexpr std::size_t kMaxVaryNames = cache::kMaxVaryNames;
  static constexpr std::size_t kMaxKeyPart = cache::kMaxKeyPart;
  static constexpr std::size_t kMaxVaryName = cache::kMaxVaryName;
  static constexpr std::size_t kMaxVaryValue = cache::kMaxVaryValue;

  // Throws std::invalid_argument when max_bytes, max_entries or max_entry_bytes is 0, or
  // max_entries is over 2^30 (configuration time only).
  explicit MemoryStore(const StoreLimits& limits);

  LookupResult lookup(const RequestKey& key, std::int64_t now_s) noexcept {
    return lookup(key, key_hash(key), now_s);
  }
  // `hash` must be key_hash(key): the caller may have computed it already.
  LookupResult lookup(const RequestKey& key, std::uint64_t hash, std::int64_t now_s) noexcept;

  // Stores `response` for `key` (replacing whatever the key held) when `freshness` is storable.
  // vary_lines: the response's Vary lines (ResponseCacheHeaders::vary()); the values of those
  // headers are taken from key.headers.
  InsertStatus insert(const RequestKey& key, std::uint64_t hash, const Freshness& freshness,
                      std::span<const std::string_view> vary_lines, std::string_view response,
                      std::int64_t now_s);
  InsertStatus insert(const RequestKey& key, const Freshness& freshness,
                      std::span<const std::string_view> vary_lines, std::string_view response,
                      std::int64_t now_s) {
    return insert(key, key_hash(key), freshness, vary_lines, response, now_s);
  }

  // Removes the key's entry whatever its Vary values; false when there was none.
  bool erase(const RequestKey& key) noexcept;

  std::size_t entries() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return bytes_; }  // entry bytes, <= limits().max_bytes
  std::size_t memory_bytes() const noexcept;             // entry bytes + the index
  const StoreLimits& limits() const noexcept { return limits_; }
  std::uint64_t evictions() const noexcept { return evictions_; }

 private:
  struct Slot {
    std::uint64_t tag = 0;  // hash with the top bit as CLOCK's referenced bit
    std::unique_ptr<std::byte[]> block;
  };

  // Index of the slot holding the key's entry (any variant), or npos.
  std::size_t find(const RequestKey& key, std::uint64_t hash) const noexcept;
  void erase_at(std::size_t i) noexcept;
  void evict_one() noexcept;

  StoreLimits limits_;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t hand_ = 0;
  std::size_t count_ = 0;
  std::size_t bytes_ = 0;
  std::uint64_t evictions_ = 0;
};

}  // namespace gatebench::cache
