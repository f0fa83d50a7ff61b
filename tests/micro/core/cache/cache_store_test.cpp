// The memory store: hits only for the request an entry was stored for (method, host, target,
// Vary values), expiry, replacement, the byte and entry bounds under CLOCK eviction, and the
// error paths of insert and of the limits.
#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "micro/core/cache/cache.hpp"

namespace gatebench::cache {
namespace {

constexpr std::int64_t kNow = 1'764'590'400;

Freshness fresh(std::uint32_t lifetime, std::uint32_t age = 0) {
  return {Reason::kStorable, lifetime, age};
}

RequestKey get(std::string_view host, std::string_view target,
               std::span<const Header> headers = {}) {
  return {Method::kGet, host, target, headers};
}

TEST(CacheStore, HitReturnsTheStoredResponseAndAge) {
  MemoryStore store({});
  ASSERT_EQ(
      store.insert(get("a.test", "/x?y=1"), fresh(60, 5), {}, "HTTP/1.1 200 OK\r\n\r\nhi", kNow),
      InsertStatus::kStored);
  const LookupResult r = store.lookup(get("a.test", "/x?y=1"), kNow + 10);
  ASSERT_EQ(r.status, LookupStatus::kHit);
  EXPECT_EQ(r.response, "HTTP/1.1 200 OK\r\n\r\nhi");
  EXPECT_EQ(r.age_s, 15u);
  EXPECT_EQ(store.entries(), 1u);
}

TEST(CacheStore, HostIsCaseInsensitiveTargetIsNot) {
  MemoryStore store({});
  store.insert(get("Example.TEST", "/Path"), fresh(60), {}, "r", kNow);
  EXPECT_EQ(store.lookup(get("example.test", "/Path"), kNow).status, LookupStatus::kHit);
  EXPECT_EQ(store.lookup(get("EXAMPLE.test", "/Path"), kNow).status, LookupStatus::kHit);
  EXPECT_EQ(store.lookup(get("example.test", "/path"), kNow).status, LookupStatus::kMiss);
  EXPECT_EQ(store.lookup(get("example.test", "/Path?"), kNow).status, LookupStatus::kMiss);
  EXPECT_EQ(store.lookup(get("example.tes", "t/Path"), kNow).status, LookupStatus::kMiss);
  EXPECT_EQ(key_hash(get("Example.TEST", "/Path")), key_hash(get("example.test", "/Path")));
  EXPECT_NE(key_hash(get("example.tes", "t/Path")), key_hash(get("example.test", "/Path")));
}

TEST(CacheStore, MethodIsPartOfTheKey) {
  MemoryStore store({});
  store.insert(get("a", "/"), fresh(60), {}, "get", kNow);
  RequestKey head = get("a", "/");
  head.method = Method::kHead;
  EXPECT_EQ(store.lookup(head, kNow).status, LookupStatus::kMiss);
  store.insert(head, fresh(60), {}, "head", kNow);
  EXPECT_EQ(store.lookup(head, kNow).response, "head");
  EXPECT_EQ(store.lookup(get("a", "/"), kNow).response, "get");
  RequestKey post = get("a", "/");
  post.method = Method::kOther;
  EXPECT_EQ(store.insert(post, fresh(60), {}, "post", kNow), InsertStatus::kBadKey);
  EXPECT_EQ(store.lookup(post, kNow).status, LookupStatus::kMiss);
}

TEST(CacheStore, VaryValuesMustMatch) {
  MemoryStore store({});
  const std::array<Header, 2> gzip = {Header{"Accept-Encoding", "gzip"}, Header{"X-Other", "1"}};
  const std::array<std::string_view, 1> vary = {"accept-encoding"};
  store.insert(get("a", "/", gzip), fresh(60), vary, "gzipped", kNow);
  EXPECT_EQ(store.lookup(get("a", "/", gzip), kNow).response, "gzipped");
  const std::array<Header, 1> upper = {Header{"ACCEPT-ENCODING", "gzip"}};
  EXPECT_EQ(store.lookup(get("a", "/", upper), kNow).status, LookupStatus::kHit);
  const std::array<Header, 1> br = {Header{"Accept-Encoding", "br"}};
  EXPECT_EQ(store.lookup(get("a", "/", br), kNow).status, LookupStatus::kMiss);
  EXPECT_EQ(store.lookup(get("a", "/"), kNow).status, LookupStatus::kMiss);  // absent
  const std::array<Header, 1> empty = {Header{"Accept-Encoding", ""}};
  EXPECT_EQ(store.lookup(get("a", "/", empty), kNow).status, LookupStatus::kMiss);
  const std::array<Header, 2> twice = {Header{"Accept-Encoding", "gzip"},
                                       Header{"Accept-Encoding", "gzip"}};
  EXPECT_EQ(store.lookup(get("a", "/", twice), kNow).status, LookupStatus::kMiss);
}

TEST(CacheStore, VaryOnAbsentHeaderAndOnSeveralLines) {
  MemoryStore store({});
  const std::array<std::string_view, 2> vary = {"Accept-Language", "X-A, x-b"};
  const std::array<Header, 3> h = {Header{"x-a", "1"}, Header{"X-B", "2"}, Header{"x-a", "3"}};
  store.insert(get("a", "/", h), fresh(60), vary, "v", kNow);
  EXPECT_EQ(store.lookup(get("a", "/", h), kNow).status, LookupStatus::kHit);
  // The same combined value "1, 3" split otherwise is the same field value (RFC 9110 5.3).
  const std::array<Header, 2> combined = {Header{"X-A", "1, 3"}, Header{"x-b", "2"}};
  EXPECT_EQ(store.lookup(get("a", "/", combined), kNow).status, LookupStatus::kHit);
  const std::array<Header, 4> with_language = {Header{"x-a", "1"}, Header{"X-B", "2"},
                                               Header{"x-a", "3"}, Header{"Accept-Language", "en"}};
  EXPECT_EQ(store.lookup(get("a", "/", with_language), kNow).status, LookupStatus::kMiss);
  const std::array<Header, 2> missing_b = {Header{"x-a", "1"}, Header{"x-a", "3"}};
  EXPECT_EQ(store.lookup(get("a", "/", missing_b), kNow).status, LookupStatus::kMiss);
}

TEST(CacheStore, OneVariantPerKey) {
  MemoryStore store({});
  const std::array<std::string_view, 1> vary = {"Accept-Encoding"};
  const std::array<Header, 1> gzip = {Header{"Accept-Encoding", "gzip"}};
  const std::array<Header, 1> br = {Header{"Accept-Encoding", "br"}};
  store.insert(get("a", "/", gzip), fresh(60), vary, "gzip", kNow);
  store.insert(get("a", "/", br), fresh(60), vary, "br", kNow);
  EXPECT_EQ(store.entries(), 1u);
  EXPECT_EQ(store.lookup(get("a", "/", gzip), kNow).status, LookupStatus::kMiss);
  EXPECT_EQ(store.lookup(get("a", "/", br), kNow).response, "br");
}

TEST(CacheStore, ExpiredEntriesAreStaleUntilReplaced) {
  MemoryStore store({});
  store.insert(get("a", "/"), fresh(10, 3), {}, "old", kNow);
  EXPECT_EQ(store.lookup(get("a", "/"), kNow + 6).status, LookupStatus::kHit);
  const LookupResult stale = store.lookup(get("a", "/"), kNow + 7);
  EXPECT_EQ(stale.status, LookupStatus::kStale);
  EXPECT_EQ(stale.response, "old");
  EXPECT_EQ(stale.age_s, 10u);
  store.insert(get("a", "/"), fresh(10), {}, "new", kNow + 7);
  EXPECT_EQ(store.entries(), 1u);
  EXPECT_EQ(store.lookup(get("a", "/"), kNow + 8).response, "new");
}

TEST(CacheStore, EraseRemovesTheKey) {
  MemoryStore store({});
  store.insert(get("a", "/1"), fresh(60), {}, "1", kNow);
  store.insert(get("a", "/2"), fresh(60), {}, "2", kNow);
  EXPECT_TRUE(store.erase(get("a", "/1")));
  EXPECT_FALSE(store.erase(get("a", "/1")));
  EXPECT_EQ(store.lookup(get("a", "/1"), kNow).status, LookupStatus::kMiss);
  EXPECT_EQ(store.lookup(get("a", "/2"), kNow).response, "2");
  EXPECT_EQ(store.entries(), 1u);
}

TEST(CacheStore, InsertErrors) {
  MemoryStore store({.max_bytes = 4096, .max_entries = 16, .max_entry_bytes = 1024});
  EXPECT_EQ(store.insert(get("a", "/"), {Reason::kNoStore, 0, 0}, {}, "r", kNow),
            InsertStatus::kNotStorable);
  EXPECT_EQ(store.insert(get("a", "/"), fresh(60), {}, std::string(1024, 'x'), kNow),
            InsertStatus::kTooLarge);
  const std::string long_host(MemoryStore::kMaxKeyPart + 1, 'h');
  EXPECT_EQ(store.insert(get(long_host, "/"), fresh(60), {}, "r", kNow), InsertStatus::kBadKey);
  for (const std::string_view v :
       {std::string_view("*"), std::string_view("a b"), std::string_view("a,b,c,d,e,f,g,h,i"),
        std::string_view("a;b")}) {
    const std::array<std::string_view, 1> vary = {v};
    EXPECT_EQ(store.insert(get("a", "/"), fresh(60), vary, "r", kNow), InsertStatus::kBadVary) << v;
  }
  const std::string long_name(MemoryStore::kMaxVaryName + 1, 'n');
  const std::array<std::string_view, 1> vary_long = {long_name};
  EXPECT_EQ(store.insert(get("a", "/"), fresh(60), vary_long, "r", kNow), InsertStatus::kBadVary);
  const std::string long_value(MemoryStore::kMaxVaryValue + 1, 'v');
  const std::array<Header, 1> h = {Header{"X-A", long_value}};
  const std::array<std::string_view, 1> vary_a = {"X-A"};
  EXPECT_EQ(store.insert(get("a", "/", h), fresh(60), vary_a, "r", kNow), InsertStatus::kBadVary);
  EXPECT_EQ(store.entries(), 0u);
  EXPECT_EQ(store.bytes(), 0u);
  EXPECT_EQ(insert_status_name(InsertStatus::kBadVary), "bad-vary");
}

TEST(CacheStore, LimitsAreChecked) {
  EXPECT_THROW(MemoryStore({.max_bytes = 0}), std::invalid_argument);
  EXPECT_THROW(MemoryStore({.max_entries = 0}), std::invalid_argument);
  EXPECT_THROW(MemoryStore({.max_entry_bytes = 0}), std::invalid_argument);
  EXPECT_THROW(MemoryStore({.max_entries = (std::size_t{1} << 30) + 1}), std::invalid_argument);
  const MemoryStore capped({.max_bytes = 100, .max_entries = 4, .max_entry_bytes = 1000});
  EXPECT_EQ(capped.limits().max_entry_bytes, 100u);
}

TEST(CacheStore, ByteBoundHoldsUnderEviction) {
  constexpr std::size_t kMax = 64 * 1024;
  MemoryStore store({.max_bytes = kMax, .max_entries = 100000});
  std::vector<std::string> targets;
  for (int i = 0; i < 5000; ++i) {
    targets.push_back("/item/" + std::to_string(i));
    const std::string body(static_cast<std::size_t>(i % 700), 'b');
    ASSERT_EQ(store.insert(get("a", targets.back()), fresh(60), {}, body, kNow),
              InsertStatus::kStored);
    ASSERT_LE(store.bytes(), kMax);
    // The entry just stored is always there.
    ASSERT_EQ(store.lookup(get("a", targets.back()), kNow).response, body);
  }
  EXPECT_GT(store.evictions(), 4000u);
  std::size_t present = 0;
  for (const std::string& t : targets) {
    present += store.lookup(get("a", t), kNow).status == LookupStatus::kHit;
  }
  EXPECT_EQ(present, store.entries());
}

TEST(CacheStore, EntryBoundHoldsUnderEviction) {
  MemoryStore store({.max_bytes = 1 << 20, .max_entries = 10});
  for (int i = 0; i < 100; ++i) {
    store.insert(get("a", "/" + std::to_string(i)), fresh(60), {}, "r", kNow);
    ASSERT_LE(store.entries(), 10u);
  }
  EXPECT_EQ(store.entries(), 10u);
  EXPECT_EQ(store.evictions(), 90u);
}

TEST(CacheStore, ClockKeepsEntriesThatWereHit) {
  MemoryStore store({.max_bytes = 1 << 20, .max_entries = 8});
  for (int i = 0; i < 8; ++i)
    store.insert(get("a", "/" + std::to_string(i)), fresh(60), {}, "r", kNow);
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(store.lookup(get("a", "/" + std::to_string(i)), kNow).status, LookupStatus::kHit);
  }
  // Four new keys evict four entries that were never hit (old or new), never one that was.
  for (int i = 8; i < 12; ++i)
    store.insert(get("a", "/" + std::to_string(i)), fresh(60), {}, "r", kNow);
  EXPECT_EQ(store.entries(), 8u);
  EXPECT_EQ(store.evictions(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(store.lookup(get("a", "/" + std::to_string(i)), kNow).status, LookupStatus::kHit)
        << i;
  }
}

TEST(CacheStore, MemoryBytesCountsTheIndex) {
  const MemoryStore store({.max_bytes = 1 << 20, .max_entries = 1000});
  EXPECT_EQ(store.memory_bytes(), 2048u * 16u);
}

}  // namespace
}  // namespace gatebench::cache
