// gatecore's cache against the naive peer on generated inputs: the freshness decision on
// responses assembled from directive, date, Age, Vary and status pieces (valid, odd and broken),
// and the store on a random stream of inserts and lookups over a small key space with Vary —
// unbounded it must answer exactly as the naive map; bounded, every hit it gives must be what
// the naive map holds for that request (eviction may only turn hits into misses).
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "fixtures/rng.hpp"
#include "micro/core/cache/cache.hpp"
#include "micro/peers/cache_naive.hpp"

namespace gatebench::cache {
namespace {

constexpr std::int64_t kNow = 1'764'590'400;

std::string date(std::int64_t t) {
  char buf[29];
  format_imf_fixdate(t, buf);
  return std::string(buf, sizeof(buf));
}

template <std::size_t N>
std::string_view pick(fixtures::Rng& rng, const std::array<std::string_view, N>& items) {
  return items[rng.below(N)];
}

std::string random_directive(fixtures::Rng& rng) {
  static constexpr std::array<std::string_view, 24> kDirectives = {"max-age=60",
                                                                   "max-age=0",
                                                                   "MAX-AGE=3600",
                                                                   "max-age=\"120\"",
                                                                   "max-age=-5",
                                                                   "max-age=",
                                                                   "max-age",
                                                                   "max-age=99999999999999",
                                                                   "s-maxage=30",
                                                                   "S-Maxage=\"7\"",
                                                                   "s-maxage=x",
                                                                   "no-store",
                                                                   "private",
                                                                   "private=\"a\"",
                                                                   "no-cache",
                                                                   "No-Cache=\"set-cookie, a\"",
                                                                   "public",
                                                                   "must-revalidate",
                                                                   "immutable",
                                                                   "x-ext=\"a,b\\\"c\"",
                                                                   "stale-if-error=5",
                                                                   "max-age=\"1\\2\"",
                                                                   "max-age=00000000000000042",
                                                                   "proxy-revalidate"};
  static constexpr std::array<std::string_view, 8> kBroken = {
      "max-age=60 x", "=1", "no-store=\"", "a b", "max-age==1", "\"x\"", "a=b\"c\"", "a=\x01"};
  return std::string(rng.chance(1, 25) ? pick(rng, kBroken) : pick(rng, kDirectives));
}

std::string random_cache_control(fixtures::Rng& rng) {
  static constexpr std::array<std::string_view, 5> kSeparators = {",", ", ", " ,\t", ",,", " , "};
  std::string line = rng.chance(1, 8) ? " " : "";
  const std::size_t n = rng.below(4);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) line += pick(rng, kSeparators);
    line += random_directive(rng);
  }
  return line;
}

std::string random_date(fixtures::Rng& rng, std::int64_t around) {
  static constexpr std::array<std::string_view, 7> kBad = {"0",
                                                           "-1",
                                                           "",
                                                           "soon",
                                                           "Sun, 06 Nov 1994 08:49:37",
                                                           "Sun, 31 Nov 2025 00:00:00 GMT",
                                                           "Mon, 01 Dec 2025 25:00:00 GMT"};
  if (rng.chance(1, 6)) return std::string(pick(rng, kBad));
  const std::int64_t t = around + static_cast<std::int64_t>(rng.below(4000)) - 1000;
  std::string d = date(t);
  if (rng.chance(1, 6)) {
    // The same instant as asctime: "Mon Dec  1 12:00:00 2025".
    const std::string day = d.substr(5, 2);
    d = d.substr(0, 3) + " " + d.substr(8, 3) + " " + (day[0] == '0' ? " " + day.substr(1) : day) +
        " " + d.substr(17, 8) + " " + d.substr(12, 4);
  }
  return d;
}

struct Generated {
  ResponseContext ctx;
  peers::NaiveResponse naive;
  std::vector<std::pair<std::string, std::string>> lines;
};

Generated random_response(fixtures::Rng& rng) {
  static constexpr std::array<std::uint16_t, 12> kStatuses = {200, 200, 200, 203, 204, 206,
                                                              302, 304, 307, 404, 500, 501};
  static constexpr std::array<std::string_view, 7> kVary = {"Accept-Encoding",
                                                            "accept-encoding, Accept-Language",
                                                            "*",
                                                            "Accept, *",
                                                            " ,Accept",
                                                            "\"a,*\"",
                                                            "a\"b,*"};
  static constexpr std::array<std::string_view, 5> kAge = {"0", "30", "5000", "x", "000000000007"};
  Generated g;
  g.ctx.method = rng.chance(1, 20)  ? Method::kOther
                 : rng.chance(1, 5) ? Method::kHead
                                    : Method::kGet;
  g.ctx.status = kStatuses[rng.below(kStatuses.size())];
  g.ctx.request_has_authorization = rng.chance(1, 8);
  const std::size_t cc_lines = rng.chance(1, 30) ? 9 : rng.below(3);
  for (std::size_t i = 0; i < cc_lines; ++i) {
    g.lines.emplace_back(rng.chance(1, 2) ? "Cache-Control" : "cache-control",
                         random_cache_control(rng));
  }
  if (rng.chance(1, 3)) g.lines.emplace_back("Date", random_date(rng, kNow - 500));
  if (rng.chance(1, 3)) g.lines.emplace_back("Expires", random_date(rng, kNow));
  if (rng.chance(1, 10)) g.lines.emplace_back("EXPIRES", random_date(rng, kNow));
  if (rng.chance(1, 5)) g.lines.emplace_back("Age", std::string(pick(rng, kAge)));
  if (rng.chance(1, 6)) g.lines.emplace_back("Vary", std::string(pick(rng, kVary)));
  if (rng.chance(1, 12)) g.lines.emplace_back("Set-Cookie", "a=1");
  if (rng.chance(1, 2)) g.lines.emplace_back("Content-Type", "text/plain");
  // Header order is free: shuffle so "first occurrence" rules see both orders.
  for (std::size_t i = g.lines.size(); i > 1; --i) std::swap(g.lines[i - 1], g.lines[rng.below(i)]);
  g.naive = {g.ctx.method, g.ctx.status, g.ctx.request_has_authorization, g.lines};
  return g;
}

TEST(CacheDifferential, FreshnessAgreesWithNaive) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/cache/freshness");
  std::array<std::size_t, 13> reasons{};
  for (int i = 0; i < 20000; ++i) {
    const Generated g = random_response(rng);
    ResponseCacheHeaders h;
    for (const auto& [name, value] : g.lines) h.add(name, value);
    const std::uint32_t ttl = rng.chance(1, 2) ? 0 : 45;
    const Freshness ours = decide(g.ctx, h, {.default_ttl_s = ttl}, kNow);
    const Freshness naive = peers::naive_decide(g.naive, ttl, kNow);
    std::string trace = "status " + std::to_string(g.ctx.status);
    for (const auto& [name, value] : g.lines) trace += "\n" + name + ": " + value;
    ASSERT_EQ(reason_name(ours.reason), reason_name(naive.reason)) << trace;
    ASSERT_EQ(ours.lifetime_s, naive.lifetime_s) << trace;
    ASSERT_EQ(ours.age_s, naive.age_s) << trace;
    ++reasons[static_cast<std::size_t>(ours.reason)];
  }
  // The generator reaches every outcome, so agreement means something for each.
  for (std::size_t r = 0; r < reasons.size(); ++r) {
    EXPECT_GT(reasons[r], 20u) << reason_name(static_cast<Reason>(r));
  }
}

TEST(CacheDifferential, DatesAgreeWithNaive) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/cache/dates");
  for (int i = 0; i < 5000; ++i) {
    const std::int64_t t =
        static_cast<std::int64_t>(rng.below(std::uint64_t{1} << 36)) - (std::int64_t{1} << 35);
    std::string d = t < -62'135'596'800 || t > 253'402'300'799 ? "0" : date(t);
    if (rng.chance(1, 4) && d.size() == 29)
      d[5 + rng.below(24)] = "0123456789 :-GMTXJ"[rng.below(18)];
    EXPECT_EQ(parse_http_date(d, kNow), peers::naive_http_date(d, kNow)) << d;
  }
}

// A small key space: few hosts (in two spellings), targets and Vary header values, so inserts
// replace, variants collide and lookups hit, miss and go stale.
struct StoreOp {
  RequestKey key;
  std::vector<Header> headers;
  std::vector<std::string_view> vary;
  std::string response;
  std::uint32_t ttl = 0;
  bool insert = false;
};

StoreOp random_op(fixtures::Rng& rng) {
  static constexpr std::array<std::string_view, 4> kHosts = {"a.test", "A.TEST", "b.test", "b.tes"};
  static constexpr std::array<std::string_view, 6> kTargets = {"/",  "/x", "/x?a=1",
                                                               "/X", "t/", "/x?a=1&b=2"};
  static constexpr std::array<std::string_view, 4> kVary = {"", "Accept-Encoding",
                                                            "accept-encoding, X-Lang", "x-lang"};
  static constexpr std::array<std::string_view, 3> kEncodings = {"gzip", "br", ""};
  StoreOp op;
  op.key.method = rng.chance(1, 4) ? Method::kHead : Method::kGet;
  op.key.host = pick(rng, kHosts);
  op.key.target = pick(rng, kTargets);
  if (rng.chance(2, 3)) op.headers.push_back({"Accept-Encoding", pick(rng, kEncodings)});
  if (rng.chance(1, 4)) op.headers.push_back({"ACCEPT-ENCODING", "gzip"});
  if (rng.chance(1, 2)) op.headers.push_back({"X-Lang", rng.chance(1, 2) ? "en" : "fr"});
  op.insert = rng.chance(1, 3);
  const std::string_view vary = pick(rng, kVary);
  if (!vary.empty()) op.vary.push_back(vary);
  op.response = "r" + std::to_string(rng.below(1000000)) + std::string(rng.below(300), 'x');
  op.ttl = static_cast<std::uint32_t>(1 + rng.below(20));
  return op;
}

TEST(CacheDifferential, StoreAgreesWithNaive) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/cache/store");
  MemoryStore ours({.max_bytes = 64 << 20, .max_entries = 4096});
  MemoryStore bounded({.max_bytes = 2048, .max_entries = 6});
  peers::NaiveCacheStore naive;
  std::array<std::size_t, 3> outcomes{};
  std::size_t bounded_hits = 0;
  std::int64_t now = kNow;
  for (int i = 0; i < 50000; ++i) {
    StoreOp op = random_op(rng);
    op.key.headers = op.headers;
    now += static_cast<std::int64_t>(rng.below(2));
    if (op.insert) {
      const Freshness f{Reason::kStorable, op.ttl, static_cast<std::uint32_t>(rng.below(op.ttl))};
      const InsertStatus a = ours.insert(op.key, f, op.vary, op.response, now);
      const InsertStatus b = naive.insert(op.key, f, op.vary, op.response, now);
      ASSERT_EQ(insert_status_name(a), insert_status_name(b)) << i;
      bounded.insert(op.key, f, op.vary, op.response, now);
      ASSERT_LE(bounded.bytes(), 2048u);
      ASSERT_LE(bounded.entries(), 6u);
      continue;
    }
    const LookupResult a = ours.lookup(op.key, now);
    const LookupResult b = naive.lookup(op.key, now);
    ASSERT_EQ(static_cast<int>(a.status), static_cast<int>(b.status)) << i;
    ASSERT_EQ(a.response, b.response) << i;
    ASSERT_EQ(a.age_s, b.age_s) << i;
    ++outcomes[static_cast<std::size_t>(a.status)];
    const LookupResult c = bounded.lookup(op.key, now);
    if (c.status != LookupStatus::kMiss) {
      ASSERT_EQ(static_cast<int>(c.status), static_cast<int>(b.status)) << i;
      ASSERT_EQ(c.response, b.response) << i;
      bounded_hits += c.status == LookupStatus::kHit;
    }
  }
  EXPECT_EQ(ours.entries(), naive.entries());
  for (const std::size_t n : outcomes) EXPECT_GT(n, 1000u);
  EXPECT_GT(bounded_hits, 100u);
  EXPECT_GT(bounded.evictions(), 1000u);
}

}  // namespace
}  // namespace gatebench::cache
