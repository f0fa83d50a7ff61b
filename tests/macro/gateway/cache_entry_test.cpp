// The gateway's cache pieces without a network: the stored head and entry of an upstream
// response, the head of a hit, the Redis key, the counters line, and the check a value read back
// from Redis passes before it is used.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "macro/gateway/response_cache.hpp"
#include "micro/core/cache/entry.hpp"

namespace gw = gatebench::gateway;
namespace cache = gatebench::cache;

namespace {

constexpr std::string_view kUpstream =
    "HTTP/1.1 200 OK\r\nAge: 5\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\n"
    "Cache-Control: max-age=60\r\nContent-Length: 3\r\n\r\nok\n";

gw::ResponseHead parsed(std::string_view text) {
  gw::ResponseHead rh;
  EXPECT_EQ(gw::parse_response_head(text, 16384, false, rh), gw::HeadStatus::kComplete);
  return rh;
}

TEST(CacheEntry, StoredHeadDropsAgeAndHopByHopAndAddsSecurityHeaders) {
  const gw::ResponseHead rh = parsed(kUpstream);
  gw::CaptureBuffer cap;
  ASSERT_TRUE(gw::begin_entry(cap, kUpstream, rh, gw::SecurityHeaders::kBasic, 3, 1 << 20));
  ASSERT_TRUE(cap.append("ok\n"));
  EXPECT_FALSE(cap.append("x"));  // no more than the announced body
  gw::EntryView e;
  ASSERT_TRUE(gw::split_entry(cap.view(), e));
  EXPECT_EQ(e.status, 200);
  EXPECT_EQ(e.body, "ok\n");
  const std::string head(e.head);
  EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("Cache-Control: max-age=60\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Length: 3\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("X-Frame-Options: SAMEORIGIN\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("Age:"), std::string::npos) << head;
  EXPECT_EQ(head.find("X-Hop"), std::string::npos) << head;
  EXPECT_EQ(head.find("Connection"), std::string::npos) << head;
  EXPECT_EQ(head.find("\r\n\r\n"), std::string::npos) << head;  // the hit adds the end
}

TEST(CacheEntry, EntryLargerThanTheLimitIsRefused) {
  const gw::ResponseHead rh = parsed(kUpstream);
  gw::CaptureBuffer cap;
  EXPECT_FALSE(gw::begin_entry(cap, kUpstream, rh, gw::SecurityHeaders::kOff, 3, 64));
  EXPECT_TRUE(gw::begin_entry(cap, kUpstream, rh, gw::SecurityHeaders::kOff, 3, 4096));
}

TEST(CacheEntry, HitHeadStatesAgeStatusAndConnection) {
  char out[256];
  const std::string_view stored = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n";
  std::size_t n =
      gw::write_hit_head(out, sizeof out, stored, 42, gw::CacheStatus::kHit, false, false);
  EXPECT_EQ(std::string_view(out, n),
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nAge: 42\r\nX-Cache-Status: hit\r\n\r\n");
  n = gw::write_hit_head(out, sizeof out, stored, 0, gw::CacheStatus::kStale, false, true);
  EXPECT_EQ(std::string_view(out, n),
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nAge: 0\r\nX-Cache-Status: stale\r\n"
            "Connection: keep-alive\r\n\r\n");
  n = gw::write_hit_head(out, sizeof out, stored, 1, gw::CacheStatus::kHit, true, false);
  EXPECT_NE(std::string_view(out, n).find("Connection: close\r\n\r\n"), std::string_view::npos);
  EXPECT_EQ(gw::write_hit_head(out, 40, stored, 1, gw::CacheStatus::kHit, false, false), 0u);
}

TEST(CacheEntry, RedisKeyIsThePrefixAndSixteenHexDigits) {
  char name[gw::kRedisKeyLen];
  EXPECT_EQ(gw::redis_key(0x0123456789abcdefULL, name), "gbc:0123456789abcdef");
  EXPECT_EQ(gw::redis_key(~0ULL, name), "gbc:ffffffffffffffff");
}

TEST(CacheEntry, CountersAreSummedOverWorkers) {
  std::array<gw::CacheCounters, 2> w;
  gw::bump(w[0].hits);
  gw::bump(w[1].hits);
  gw::bump(w[1].store_failures);
  char text[256];
  EXPECT_EQ(gw::format_cache_counters(w, text),
            "hits=2 misses=0 bypasses=0 stale=0 stored=0 refused=0 store_failures=1 "
            "store_timeouts=0");
}

// Bytes from Redis are checked whole: every truncation and every changed length is refused.
TEST(CacheEntry, ValuesFromOutsideAreValidatedWhole) {
  const std::array<cache::Header, 2> headers = {cache::Header{"Accept-Encoding", "gzip"},
                                                cache::Header{"Accept", "text/html"}};
  const cache::RequestKey key{cache::Method::kGet, "A.Test", "/p?q=1", headers};
  const std::array<std::string_view, 1> vary = {"accept-encoding, accept, x-absent"};
  cache::Freshness f;
  f.lifetime_s = 60;
  cache::EntryWriter w;
  ASSERT_EQ(w.plan(key, f, vary, "response bytes", 1 << 20), cache::InsertStatus::kStored);
  std::vector<std::byte> bytes(w.size());
  w.write(bytes.data(), 1000);
  ASSERT_TRUE(cache::entry_valid(bytes));
  ASSERT_TRUE(cache::entry_primary_matches(bytes.data(), key));
  const cache::LookupResult r = cache::entry_lookup(bytes.data(), key, 1010);
  EXPECT_EQ(r.status, cache::LookupStatus::kHit);
  EXPECT_EQ(r.response, "response bytes");
  EXPECT_EQ(r.age_s, 10u);
  EXPECT_EQ(cache::entry_lookup(bytes.data(), key, 1060).status, cache::LookupStatus::kStale);
  const std::array<cache::Header, 1> other = {cache::Header{"Accept-Encoding", "br"}};
  EXPECT_EQ(
      cache::entry_lookup(bytes.data(), {cache::Method::kGet, "a.test", "/p?q=1", other}, 1010)
          .status,
      cache::LookupStatus::kMiss);
  EXPECT_FALSE(cache::entry_primary_matches(bytes.data(),
                                            {cache::Method::kHead, "a.test", "/p?q=1", headers}));
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(cache::entry_valid(std::span<const std::byte>(bytes.data(), n))) << n;
  }
  // The header's lengths (size, response, vary, host, target) at offsets 16..31 and the Vary
  // count at 33: raising any byte of them breaks the sum or the Vary walk.
  for (std::size_t off = 16; off < 34; ++off) {
    if (off == 32) continue;  // the method: GET + 1 is HEAD, a valid entry of another key
    std::vector<std::byte> bad = bytes;
    bad[off] = static_cast<std::byte>(static_cast<unsigned>(bad[off]) + 1);
    EXPECT_FALSE(cache::entry_valid(bad)) << off;
  }
  std::vector<std::byte> bad_method = bytes;
  bad_method[32] = std::byte{2};
  EXPECT_FALSE(cache::entry_valid(bad_method));
}

// An age origin far from now (any 64-bit number in a Redis value) gives the oldest or no age,
// never a signed overflow (redis_value_fuzz found `now - INT64_MIN`).
TEST(CacheEntry, ExtremeAgeOriginFromOutsideSaturates) {
  const cache::RequestKey key{cache::Method::kGet, "a.test", "/p", {}};
  cache::Freshness f;
  f.lifetime_s = 60;
  cache::EntryWriter w;
  ASSERT_EQ(w.plan(key, f, {}, "response bytes", 1 << 20), cache::InsertStatus::kStored);
  std::vector<std::byte> bytes(w.size());
  w.write(bytes.data(), 1000);
  const std::string_view value(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  constexpr std::size_t kAgeOrigin = 8;  // after the expiry, in the entry's header
  const auto with_origin = [&](std::int64_t origin) {
    std::memcpy(bytes.data() + kAgeOrigin, &origin, sizeof origin);
    return gw::redis_entry_lookup(value, key, 1010);
  };
  cache::LookupResult r = with_origin(std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(r.status, cache::LookupStatus::kHit);
  EXPECT_EQ(r.age_s, std::numeric_limits<std::uint32_t>::max());
  r = with_origin(std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(r.status, cache::LookupStatus::kHit);
  EXPECT_EQ(r.age_s, 0u);
  EXPECT_EQ(with_origin(1000).age_s, 10u);
  EXPECT_EQ(gw::redis_entry_lookup(value.substr(1), key, 1010).status, cache::LookupStatus::kMiss);
}

}  // namespace
