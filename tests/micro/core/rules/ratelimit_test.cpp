// GCRA limiter: the sustained rate and the burst as configured, bounded memory, eviction,
// agreement with the unbounded-map GCRA while no live entry is evicted, copies, and the table's
// zeroed, huge-page mapping.
#include "micro/core/rules/ratelimit.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <utility>

#include "fixtures/rng.hpp"
#include "micro/peers/rules_naive.hpp"

namespace gatebench::rules {
namespace {

TEST(RateLimit, BurstThenSustainedRate) {
  GcraLimiter limiter({.rate_per_second = 10, .burst = 4, .table_entries = 64});
  int allowed = 0;
  for (int i = 0; i < 20; ++i) allowed += limiter.allow(7, 0);
  EXPECT_EQ(allowed, 5);  // 1 + burst at once
  // 10 r/s: one more every 100 ms.
  EXPECT_FALSE(limiter.allow(7, 99'000'000));
  EXPECT_TRUE(limiter.allow(7, 100'000'000));
  EXPECT_FALSE(limiter.allow(7, 100'000'000));
  // Other keys are independent.
  EXPECT_TRUE(limiter.allow(8, 100'000'000));
  // After a long pause the full burst is back, not more.
  allowed = 0;
  for (int i = 0; i < 20; ++i) allowed += limiter.allow(7, 60'000'000'000);
  EXPECT_EQ(allowed, 5);
}

TEST(RateLimit, OverASecondAllowsRatePlusBurst) {
  GcraLimiter limiter({.rate_per_second = 1000, .burst = 10, .table_entries = 64});
  int allowed = 0;
  for (std::uint64_t t = 0; t < 1'000'000'000; t += 100'000)
    allowed += limiter.allow(1, t);  // 10k r/s offered
  EXPECT_GE(allowed, 1000);
  EXPECT_LE(allowed, 1011);
}

TEST(RateLimit, BoundedMemoryAndEviction) {
  GcraLimiter limiter({.rate_per_second = 1, .burst = 0, .table_entries = 1000});
  EXPECT_EQ(limiter.capacity(), 1024u);
  EXPECT_EQ(limiter.memory_bytes(), 256u * 64u);
  for (std::uint32_t k = 0; k < 100000; ++k) EXPECT_TRUE(limiter.allow(k, 0));
  EXPECT_EQ(limiter.memory_bytes(), 256u * 64u);
  EXPECT_GT(limiter.live_evictions(), 90000u);  // every key is live for a second
  // Expired entries are replaced without counting as live evictions.
  GcraLimiter fresh({.rate_per_second = 1000, .burst = 0, .table_entries = 8});
  for (std::uint32_t k = 0; k < 1000; ++k) fresh.allow(k, std::uint64_t{k} * 10'000'000);
  EXPECT_EQ(fresh.live_evictions(), 0u);
}

TEST(RateLimit, KeyZeroAndTimeZeroAreOrdinary) {
  GcraLimiter limiter({.rate_per_second = 1, .burst = 0, .table_entries = 8});
  EXPECT_TRUE(limiter.allow(0, 0));
  EXPECT_FALSE(limiter.allow(0, 0));
  EXPECT_TRUE(limiter.allow(0, 1'000'000'000));
}

TEST(RateLimit, RejectsBadConfig) {
  EXPECT_THROW(GcraLimiter({.rate_per_second = 0}), std::invalid_argument);
  EXPECT_THROW(GcraLimiter({.rate_per_second = 1, .burst = 0, .table_entries = 0}),
               std::invalid_argument);
}

TEST(RateLimit, AgreesWithUnboundedGcra) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/ratelimit");
  for (std::uint32_t burst : {0u, 3u, 50u}) {
    GcraLimiter limiter({.rate_per_second = 2000, .burst = burst, .table_entries = 1 << 16});
    peers::NaiveGcra naive(2000, burst);
    std::uint64_t now = 0;
    std::size_t refused = 0;
    for (int i = 0; i < 300000; ++i) {
      now += rng.below(20'000);  // ~100k r/s over 200 keys: ~500 r/s each on average, bursty
      const auto key = static_cast<std::uint32_t>(rng.zipf(200));
      const bool got = limiter.allow(key, now);
      ASSERT_EQ(got, naive.allow(key, now)) << i;
      refused += !got;
    }
    EXPECT_EQ(limiter.live_evictions(), 0u);
    EXPECT_GT(refused, 1000u);
  }
}

TEST(RateLimit, GrowingKeepsEveryLiveClient) {
  // 16,384 sets at most; 256 in use at the start.
  GcraLimiter limiter({.rate_per_second = 1000, .burst = 0, .table_entries = 1 << 16});
  const std::size_t initial = limiter.memory_in_use();
  EXPECT_EQ(initial, GcraLimiter::kInitialSets * 64);
  // 100,000 clients 100 us apart, each live for 1 ms: 10 live at once, so the table in use stays
  // at its initial size however many clients it has seen.
  for (std::uint32_t k = 0; k < 100000; ++k)
    ASSERT_TRUE(limiter.allow(k + 1'000'000, std::uint64_t{k} * 100'000));
  EXPECT_LE(limiter.memory_in_use(), 2 * initial);
  // 3,000 clients at one instant, key 0 among them: all live, so the table grows (several
  // doublings) and every one of them keeps its charge through the moves.
  const std::uint64_t t = 20'000'000'000;
  for (std::uint32_t k = 0; k < 3000; ++k) ASSERT_TRUE(limiter.allow(k, t)) << k;
  EXPECT_GE(limiter.memory_in_use(), 3000u / GcraLimiter::kWays * 64);
  EXPECT_LE(limiter.memory_in_use(), limiter.memory_bytes());
  for (std::uint32_t k = 0; k < 3000; ++k) ASSERT_FALSE(limiter.allow(k, t)) << k;
  for (std::uint32_t k = 0; k < 3000; ++k) ASSERT_TRUE(limiter.allow(k, t + 1'000'000)) << k;
  EXPECT_EQ(limiter.live_evictions(), 0u);
}

TEST(RateLimit, AgreesWithUnboundedGcraWhileGrowing) {
  // 50 r/s with a burst of 2: each client stays live for up to 60 ms, so thousands are live at
  // once and the table doubles several times during the run.
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/ratelimit/grow");
  GcraLimiter limiter({.rate_per_second = 50, .burst = 2, .table_entries = 1 << 18});
  peers::NaiveGcra naive(50, 2);
  std::uint64_t now = 0;
  std::size_t refused = 0;
  for (int i = 0; i < 300000; ++i) {
    now += rng.below(2'000);
    const auto key = static_cast<std::uint32_t>(rng.zipf(5000));
    const bool got = limiter.allow(key, now);
    ASSERT_EQ(got, naive.allow(key, now)) << i;
    refused += !got;
  }
  EXPECT_EQ(limiter.live_evictions(), 0u);
  EXPECT_GE(limiter.memory_in_use(), 4 * GcraLimiter::kInitialSets * 64);
  EXPECT_GT(refused, 1000u);
}

TEST(RateLimit, ACopyCarriesTheStateAndIsIndependent) {
  GcraLimiter a({.rate_per_second = 1, .burst = 1, .table_entries = 1 << 18});  // 4 MiB table
  EXPECT_TRUE(a.allow(5, 0));
  EXPECT_TRUE(a.allow(5, 0));
  GcraLimiter b = a;
  EXPECT_FALSE(b.allow(5, 0));  // the copy remembers the two charges
  EXPECT_TRUE(b.allow(6, 0));
  EXPECT_TRUE(a.allow(6, 0));  // and charging the copy left the original alone
  GcraLimiter c = std::move(b);
  EXPECT_TRUE(c.allow(6, 0));  // the move keeps b's state: 6's second charge, then none
  EXPECT_FALSE(c.allow(6, 0));
  EXPECT_EQ(c.memory_bytes(), a.memory_bytes());
}

TEST(ZeroedPages, LargeMappingsAreZeroAlignedAndAdvisedOntoHugePages) {
  constexpr std::size_t kBytes = std::size_t{6} << 20;
  ZeroedPages pages(kBytes);
  ASSERT_EQ(pages.size(), kBytes);
  const auto* bytes = static_cast<const unsigned char*>(pages.data());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(bytes) % (std::size_t{2} << 20), 0u);
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < kBytes; i += 4096) nonzero += bytes[i] != 0;
  EXPECT_EQ(nonzero, 0u);
  // madvise(MADV_HUGEPAGE) fails only on kernels built without transparent huge pages.
  if (std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r")) {
    std::fclose(f);
    EXPECT_TRUE(pages.huge_pages());
  }
  static_cast<unsigned char*>(pages.data())[kBytes - 1] = 7;
  const ZeroedPages copy = pages;
  EXPECT_EQ(static_cast<const unsigned char*>(copy.data())[kBytes - 1], 7);
  EXPECT_NE(copy.data(), pages.data());
  const ZeroedPages small(100);  // below 2 MiB: plain pages
  EXPECT_FALSE(small.huge_pages());
  EXPECT_EQ(static_cast<const unsigned char*>(small.data())[99], 0);
}

}  // namespace
}  // namespace gatebench::rules
