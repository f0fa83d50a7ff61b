// The cache's per-request calls allocate nothing: key hashing, the freshness decision and store
// lookups (hits, misses, Vary comparisons, stale entries). Insert is allowed its one block.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "micro/core/cache/cache.hpp"
#include "tests/micro/allocation_counter.hpp"

namespace gatebench::cache {
namespace {

using gatebench::testing::g_allocations;

constexpr std::int64_t kNow = 1'764'590'400;

TEST(CacheAllocation, LookupsAndDecisionsAllocateNothing) {
  MemoryStore store({.max_bytes = 1 << 20, .max_entries = 1024});
  std::vector<std::string> targets;
  for (int i = 0; i < 512; ++i) targets.push_back("/static/" + std::to_string(i) + ".css?v=2");
  const std::array<Header, 2> headers = {Header{"Accept-Encoding", "gzip"},
                                         Header{"User-Agent", "bench"}};
  const std::array<std::string_view, 1> vary = {"Accept-Encoding"};
  for (std::size_t i = 0; i < targets.size(); i += 2) {
    const RequestKey key{Method::kGet, "Example.test", targets[i], headers};
    ASSERT_EQ(
        store.insert(key, {Reason::kStorable, i % 4 == 0 ? 60u : 1u, 0}, vary, "response", kNow),
        InsertStatus::kStored);
  }
  const std::array<Header, 1> other = {Header{"Accept-Encoding", "br"}};
  const std::size_t before = g_allocations.load();
  std::size_t hits = 0, stale = 0, misses = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    for (const std::span<const Header> h :
         {std::span<const Header>(headers), std::span<const Header>(other)}) {
      const RequestKey key{Method::kGet, "example.TEST", targets[i], h};
      const LookupResult r = store.lookup(key, key_hash(key), kNow + 5);
      hits += r.status == LookupStatus::kHit;
      stale += r.status == LookupStatus::kStale;
      misses += r.status == LookupStatus::kMiss;
    }
  }
  ResponseCacheHeaders h;
  h.add("Cache-Control", "public, max-age=600, s-maxage=60");
  h.add("Date", "Mon, 01 Dec 2025 11:59:30 GMT");
  h.add("Expires", "Mon, 01 Dec 2025 13:00:00 GMT");
  h.add("Vary", "Accept-Encoding");
  const Freshness f = decide({Method::kGet, 200, true}, h, {}, kNow);
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_EQ(hits, 128u);
  EXPECT_EQ(stale, 128u);
  EXPECT_EQ(misses, 768u);
  EXPECT_TRUE(f.storable());
}

}  // namespace
}  // namespace gatebench::cache
