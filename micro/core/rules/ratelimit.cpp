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
    : set_count_(set_count(config, kWays)), table_(set_count_ * sizeof(Set)) {
  shift_ = 64 - static_cast<unsigned>(std::countr_zero(set_count_));
  interval_ns_ = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::llround(1e9 / config.rate_per_second)));
  tolerance_ns_ = interval_ns_ * config.burst;
}

std::size_t GcraLimiter::find_way(const Set& s, std::uint32_t key) {
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

bool GcraLimiter::allow(std::uint32_t key, std::uint64_t now_ns) {
  Set& s = sets()[set_of(key)];
  // Stored times are offset by one so 0 can mean "empty" even at now_ns == 0.
  const std::uint64_t now = now_ns + 1;
  // An empty entry (TAT 0) whose key happens to equal `key` behaves exactly like a fresh one
  // (max(0, now) == now), so the key compare needs no emptiness check.
  std::size_t way = find_way(s, key);
  if (way == kWays) {
    // Replace the entry with the oldest arrival time; empty (0) and expired ones come first.
    way = 0;
    for (std::size_t i = 1; i < kWays; ++i) {
      if (s.tat[i] < s.tat[way]) way = i;
    }
    if (s.tat[way] > now) ++live_evictions_;
    s.key[way] = key;
    s.tat[way] = now;
  }
  const std::uint64_t tat = std::max(s.tat[way], now);
  if (tat - now > tolerance_ns_) return false;
  s.tat[way] = tat + interval_ns_;
  return true;
}

}  // namespace gatebench::rules
