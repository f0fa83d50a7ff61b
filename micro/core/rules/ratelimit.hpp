// Per-client rate limiting with GCRA (the generic cell rate algorithm: one timestamp per client,
// the "theoretical arrival time") in a fixed-size, set-associative table. Memory is bounded by
// construction; when a set is full the entry with the oldest arrival time is replaced, and an
// entry whose arrival time has passed carries no information, so replacing it loses nothing.
//
//   GcraLimiter limiter({.rate_per_second = 100, .burst = 20, .table_entries = 1 << 16});
//   if (!limiter.allow(client_ip, now_ns)) reject();
//
// Not thread-safe: one limiter per worker thread (the gateway shards by worker).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gatebench::rules {

struct GcraConfig {
  double rate_per_second = 1;             // sustained rate per key, > 0
  std::uint32_t burst = 0;                // requests allowed at once above the sustained rate
  std::uint32_t table_entries = 1 << 16;  // rounded up to a multiple of kWays, power of two sets
};

// Zeroed memory in its own anonymous mapping. Mappings of 2 MiB and more are aligned to 2 MiB and
// advised onto transparent huge pages: a table touched at one random place per request spans
// more 4 KiB pages than the TLB holds, so most requests would also pay a page walk
// (docs/RESULTS.md, rate limit). Copies copy the contents. Throws std::bad_alloc when the mapping
// fails.
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

  // Throws std::invalid_argument for rate <= 0 or table_entries == 0.
  explicit GcraLimiter(const GcraConfig& config);

  // Charges one request of `key` at time `now_ns` (any monotonic clock, nanoseconds). True if
  // allowed; a refused request is not charged.
  bool allow(std::uint32_t key, std::uint64_t now_ns);

  // Hints that `key` is about to be charged (lets a batch overlap its cache misses).
  void prefetch(std::uint32_t key) const { __builtin_prefetch(&sets()[set_of(key)]); }

  std::size_t capacity() const { return set_count_ * kWays; }
  std::size_t memory_bytes() const { return set_count_ * sizeof(Set); }
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

  static std::size_t find_way(const Set& s, std::uint32_t key);

  std::size_t set_of(std::uint32_t key) const {
    // Multiplicative hash: client addresses cluster in a few prefixes, the high product bits
    // spread them over the sets.
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  Set* sets() const { return static_cast<Set*>(table_.data()); }

  std::size_t set_count_;
  ZeroedPages table_;
  unsigned shift_ = 64;
  std::uint64_t interval_ns_ = 0;   // 1 / rate
  std::uint64_t tolerance_ns_ = 0;  // burst * interval
  std::uint64_t live_evictions_ = 0;
};

}  // namespace gatebench::rules
