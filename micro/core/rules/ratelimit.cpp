#include "micro/core/rules/ratelimit.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gatebench::rules {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

// At least two sets, so set_of() never shifts by 64. Validates the config first: the table is
// built in the member initialiser list.
std::size_t set_count(const GcraConfig& config, std::size_t ways) {
  if (!(config.rate_per_second > 0)) throw std::invalid_argument("rate limit: rate must be > 0");
  if (config.table_entries == 0)
    throw std::invalid_argument("rate limit: table_entries must be > 0");
  return std::max<std::size_t>(2, std::bit_ceil((config.table_entries + ways - 1) / ways));
}

}  // namespace

ZeroedPages::ZeroedPages(std::size_t bytes) : bytes_(bytes) {
  const bool huge = bytes >= kHugePage;
  // Over-map by one huge page so a 2 MiB-aligned start lies inside; the slack is unmapped.
  const std::size_t mapped = huge ? bytes + kHugePage : std::max<std::size_t>(bytes, 1);
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  auto* base = static_cast<std::byte*>(p);
  if (huge) {
    const auto addr = reinterpret_cast<std::uintptr_t>(base);
    const std::size_t head = ((addr + kHugePage - 1) & ~(kHugePage - 1)) - addr;
    if (head > 0) ::munmap(base, head);
    if (kHugePage - head > 0) ::munmap(base + head + bytes, kHugePage - head);
    base += head;
    huge_ = ::madvise(base, bytes, MADV_HUGEPAGE) == 0;
  }
  data_ = base;
}

ZeroedPages::ZeroedPages(const ZeroedPages& other) : ZeroedPages(other.bytes_) {
  std::memcpy(data_, other.data_, bytes_);
}

ZeroedPages& ZeroedPages::operator=(const ZeroedPages& other) {
  if (this != &other) {
    ZeroedPages copy(other);
    swap(copy);
  }
  return *this;
}

ZeroedPages::ZeroedPages(ZeroedPages&& other) noexcept {
  swap(other);
}

ZeroedPages& ZeroedPages::operator=(ZeroedPages&& other) noexcept {
  ZeroedPages moved(std::move(other));
  swap(moved);
  return *this;
}

ZeroedPages::~ZeroedPages() {
  if (data_ != nullptr) ::munmap(data_, std::max<std::size_t>(bytes_, 1));
}

void ZeroedPages::prefault() {
  if (bytes_ == 0) return;
#if defined(MADV_POPULATE_WRITE)
  // Linux 5.14: faults the pages in writable (huge pages where advised) without touching them.
  if (::madvise(data_, bytes_, MADV_POPULATE_WRITE) == 0) return;
#endif
  // Older kernels: one write per 4 KiB page, of the byte already there, so any contents survive.
  auto* bytes = static_cast<volatile unsigned char*>(data_);
  for (std::size_t at = 0; at < bytes_; at += 4096) bytes[at] = bytes[at];
}

void ZeroedPages::swap(ZeroedPages& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(bytes_, other.bytes_);
  std::swap(huge_, other.huge_);
}

GcraLimiter::GcraLimiter(const GcraConfig& config)
    : set_count_(set_count(config, kWays)),
      table_(set_count_ * sizeof(Set)),
      active_sets_(std::min(set_count_, kInitialSets)) {
  shift_ = 64 - static_cast<unsigned>(std::countr_zero(active_sets_));
  interval_ns_ = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::llround(1e9 / config.rate_per_second)));
  tolerance_ns_ = interval_ns_ * config.burst;
}

std::uint64_t& GcraLimiter::claim(std::uint32_t key, std::uint64_t now) {
  for (;;) {
    Set& s = sets()[set_of(key)];
    // The oldest entry, by a tournament of masks: which way is oldest is random, and GCC turns
    // a plain min loop into a branch on it that mispredicts about every other new client.
    static_assert(kWays == 4);
    const std::uint64_t* t = s.tat;
    std::uint64_t m = -static_cast<std::uint64_t>(t[1] < t[0]);
    const std::uint64_t low01 = t[0] ^ ((t[0] ^ t[1]) & m);
    const std::uint64_t way01 = m & 1;
    m = -static_cast<std::uint64_t>(t[3] < t[2]);
    const std::uint64_t low23 = t[2] ^ ((t[2] ^ t[3]) & m);
    const std::uint64_t way23 = 2 + (m & 1);
    m = -static_cast<std::uint64_t>(low23 < low01);
    const std::uint64_t oldest = low01 ^ ((low01 ^ low23) & m);
    const auto way = static_cast<std::size_t>(way01 ^ ((way01 ^ way23) & m));
    if (oldest > now) {
      if (active_sets_ < set_count_) {
        grow(now);
        continue;
      }
      ++live_evictions_;
    }
#if defined(__SSE2__)
    // The keys as one 16-byte store: the next lookup's 16-byte load of this set is forwarded
    // from it, where a 4-byte store would stall that load until the store retires.
    const __m128i lane =
        _mm_cmpeq_epi32(_mm_setr_epi32(0, 1, 2, 3), _mm_set1_epi32(static_cast<int>(way)));
    const __m128i keys = _mm_load_si128(reinterpret_cast<const __m128i*>(s.key));
    _mm_store_si128(reinterpret_cast<__m128i*>(s.key),
                    _mm_or_si128(_mm_andnot_si128(lane, keys),
                                 _mm_and_si128(lane, _mm_set1_epi32(static_cast<int>(key)))));
#else
    s.key[way] = key;
#endif
    s.tat[way] = now;
    return s.tat[way];
  }
}

void GcraLimiter::grow(std::uint64_t now) {
  Set* const table = sets();
  const unsigned shift = shift_ - 1;
  // From the last set down: the targets 2s and 2s + 1 of set s are sets already moved (or s
  // itself, read first), so the split needs no second table.
  for (std::size_t s = active_sets_; s-- > 0;) {
    const Set old = table[s];
    Set* const halves = &table[2 * s];
    halves[0] = Set{};
    halves[1] = Set{};
    std::size_t used[2] = {0, 0};
    for (std::size_t w = 0; w < kWays; ++w) {
      if (old.tat[w] <= now) continue;  // expired or empty: the same as absent
      const std::size_t half = static_cast<std::size_t>(hash(old.key[w]) >> shift) - 2 * s;
      Set& to = halves[half];
      to.key[used[half]] = old.key[w];
      to.tat[used[half]++] = old.tat[w];
    }
  }
  active_sets_ *= 2;
  shift_ = shift;
}

}  // namespace gatebench::rules
