// Per-client rate limiting with GCRA (the generic cell rate algorithm: one timestamp per client,
// the "theoretical arrival time") in a fixed-size, set-associative table. Memory is bounded by
// construction; when a set is full the entry with the oldest arrival time is replaced, and an
// entry whose arrival time has passed carries no information, so replacing it loses nothing.
//
// The table in use grows with the clients that are live (arrival time still ahead), not with
// every client ever seen: it starts at kInitialSets sets and doubles, in place inside the mapping
// sized for table_entries, only when a set is full of live entries. Under traffic where most
// clients are idle between requests (each entry lives interval + burst * interval after its last
// charge) the sets in use stay in cache while the clients seen number millions; a table full of
// live clients grows to the configured size and behaves as a fixed one.
//
//   GcraLimiter limiter({.rate_per_second = 100, .burst = 20, .table_entries = 1 << 16});
//   if (!limiter.allow(client_ip, now_ns)) reject();
//
// Not thread-safe: one limiter per worker thread (the gateway shards by worker).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gatebench::rules {

struct GcraConfig {
  double rate_per_second = 1;             // sustained rate per key, > 0
  std::uint32_t burst = 0;                // requests allowed at once above the sustained rate
  std::uint32_t table_entries = 1 << 16;  // rounded up to a multiple of kWays, power of two sets
};

// Zeroed memory in its own anonymous mapping. Mappings of 2 MiB and more are aligned to 2 MiB and
// advised onto transparent huge pages: a table touched at one random place per request spans
// more 4 KiB pages than the TLB holds, so most requests would also pay a page walk
// (the micro suite of 2026-11-29 in the history of docs/RESULTS.md, rate limit). Copies copy the
// contents. Throws std::bad_alloc when the mapping fails.
class ZeroedPages {
 public:
  explicit ZeroedPages(std::size_t bytes);
  ZeroedPages(const ZeroedPages& other);
  ZeroedPages& operator=(const ZeroedPages& other);
  ZeroedPages(ZeroedPages&& other) noexcept;
  ZeroedPages& operator=(ZeroedPages&& other) noexcept;
  ~ZeroedPages();

  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }
  // Faults every page in now, contents unchanged, so the first touches of the memory (a request,
  // a timed loop) do not pay the page faults and, on huge pages, the zeroing of 2 MiB each.
  void prefault();
  bool huge_pages() const { return huge_; }  // madvise(MADV_HUGEPAGE) accepted

 private:
  void swap(ZeroedPages& other) noexcept;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  bool huge_ = false;
};

class GcraLimiter {
 public:
  static constexpr std::size_t kWays = 4;  // entries per 64-byte set
  // Sets in use at the start (16 KiB): a third of a 48 KiB L1 data cache, and enough that a
  // handful of live clients seldom share a set and make it grow.
  static constexpr std::size_t kInitialSets = 256;

  // Throws std::invalid_argument for rate <= 0 or table_entries == 0.
  explicit GcraLimiter(const GcraConfig& config);

  // Charges one request of `key` at time `now_ns` (a monotonic clock, nanoseconds, never going
  // back). True if allowed; a refused request is not charged. Inline: the caller's loop then
  // overlaps the cache misses of consecutive requests; a new client takes the out-of-line path.
  bool allow(std::uint32_t key, std::uint64_t now_ns) {
    Set& s = sets()[set_of(key)];
    // Stored times are offset by one so 0 can mean "empty" even at now_ns == 0.
    const std::uint64_t now = now_ns + 1;
    // An empty entry (TAT 0) whose key happens to equal `key` behaves exactly like a fresh one
    // (max(0, now) == now), so the key compare needs no emptiness check.
    const std::size_t way = find_way(s, key);
    std::uint64_t& slot = way == kWays ? claim(key, now) : s.tat[way];
    const std::uint64_t tat = std::max(slot, now);
    const bool allowed = tat - now <= tolerance_ns_;
    // Stored either way (unchanged when refused): no branch on the verdict, which an abusive
    // client makes unpredictable.
    slot = allowed ? tat + interval_ns_ : slot;
    return allowed;
  }

  // Hints that `key` is about to be charged (lets a batch overlap its cache misses).
  void prefetch(std::uint32_t key) const { __builtin_prefetch(&sets()[set_of(key)]); }

  // The bound: entries and bytes of the configured table, which the table in use never exceeds.
  std::size_t capacity() const { return set_count_ * kWays; }
  std::size_t memory_bytes() const { return set_count_ * sizeof(Set); }
  // Bytes of the table in use (grows by doubling up to memory_bytes()).
  std::size_t memory_in_use() const { return active_sets_ * sizeof(Set); }
  // The table was advised onto transparent huge pages (2 MiB and larger tables).
  bool huge_pages() const { return table_.huge_pages(); }
  // Faults the whole table in (ZeroedPages::prefault); otherwise each page is faulted by the
  // first request that lands on it.
  void prefault() { table_.prefault(); }
  // Live entries (arrival time still in the future) replaced because their set was full.
  std::uint64_t live_evictions() const { return live_evictions_; }

 private:
  struct alignas(64) Set {
    std::uint32_t key[kWays];  // first: one 16-byte compare finds the way
    std::uint64_t tat[kWays];  // theoretical arrival time + 1; 0 = empty
  };

  static std::size_t find_way(const Set& s, std::uint32_t key) {
#if defined(__SSE2__)
    static_assert(kWays == 4 && offsetof(Set, key) == 0);
    const __m128i keys = _mm_load_si128(reinterpret_cast<const __m128i*>(s.key));
    const auto mask = static_cast<unsigned>(_mm_movemask_ps(
        _mm_castsi128_ps(_mm_cmpeq_epi32(keys, _mm_set1_epi32(static_cast<int>(key))))));
    return mask == 0 ? kWays : static_cast<std::size_t>(__builtin_ctz(mask));
#else
    for (std::size_t i = 0; i < kWays; ++i) {
      if (s.key[i] == key) return i;
    }
    return kWays;
#endif
  }

  // Gives `key` an entry (TAT = now) in its set: the oldest one, after growing the table if that
  // one is live and the table can grow. Returns its TAT.
  std::uint64_t& claim(std::uint32_t key, std::uint64_t now);
  // Doubles the sets in use, in place: set s splits into 2s and 2s + 1 (the next hash bit), and
  // entries expired at `now` are dropped on the way.
  void grow(std::uint64_t now);

  static std::uint64_t hash(std::uint32_t key) {
    // Multiplicative hash: client addresses cluster in a few prefixes, the high product bits
    // spread them over the sets.
    return key * 0x9E3779B97F4A7C15ull;
  }
  std::size_t set_of(std::uint32_t key) const {
    return static_cast<std::size_t>(hash(key) >> shift_);
  }

  Set* sets() const {
    return static_cast<Set*>(table_.data());
  }

  std::size_t set_count_;           // configured: a power of two
  ZeroedPages table_;               // set_count_ sets; the first active_sets_ are in use
  std::size_t active_sets_;         // a power of two, <= set_count_
  unsigned shift_ = 64;             // 64 - log2(active_sets_)
  std::uint64_t interval_ns_ = 0;   // 1 / rate
  std::uint64_t tolerance_ns_ = 0;  // burst * interval
  std::uint64_t live_evictions_ = 0;
};

}  // namespace gatebench::rules
