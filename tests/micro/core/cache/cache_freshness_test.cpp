// The freshness decision's rules one by one (max-age, s-maxage, Expires and Date, Age, no-store,
// private, no-cache, Authorization, Set-Cookie, Vary, status, method), Cache-Control syntax and
// HTTP dates in all three forms.
#include <gtest/gtest.h>

#include <array>
#include <initializer_list>
#include <string>
#include <utility>

#include "micro/core/cache/cache.hpp"

namespace gatebench::cache {
namespace {

constexpr std::int64_t kNow = 1'764'590'400;  // 2025-12-01T12:00:00Z

std::string date(std::int64_t t) {
  char buf[29];
  format_imf_fixdate(t, buf);
  return std::string(buf, sizeof(buf));
}

using Lines = std::initializer_list<std::pair<std::string_view, std::string_view>>;

Freshness decide_with(Lines lines, ResponseContext ctx = {}, Policy policy = {}) {
  ResponseCacheHeaders h;
  for (const auto& [name, value] : lines) h.add(name, value);
  return decide(ctx, h, policy, kNow);
}

Reason reason_of(Lines lines, ResponseContext ctx = {}, Policy policy = {}) {
  return decide_with(lines, ctx, policy).reason;
}

TEST(CacheFreshness, MaxAgeGivesTheLifetime) {
  const Freshness f = decide_with({{"Cache-Control", "max-age=60"}});
  ASSERT_TRUE(f.storable()) << reason_name(f.reason);
  EXPECT_EQ(f.lifetime_s, 60u);
  EXPECT_EQ(f.age_s, 0u);
  EXPECT_EQ(f.ttl_s(), 60u);
}

TEST(CacheFreshness, SMaxAgeWinsOverMaxAgeAndExpires) {
  const std::string later = date(kNow + 1000);
  const Freshness f = decide_with(
      {{"Expires", later}, {"Cache-Control", "max-age=10"}, {"cache-control", "S-MAXAGE=300"}});
  ASSERT_TRUE(f.storable());
  EXPECT_EQ(f.lifetime_s, 300u);
}

TEST(CacheFreshness, MaxAgeWinsOverExpires) {
  const std::string earlier = date(kNow - 10);
  EXPECT_EQ(decide_with({{"Expires", earlier}, {"Cache-Control", "max-age=30"}}).lifetime_s, 30u);
}

TEST(CacheFreshness, FirstMaxAgeIsUsed) {
  EXPECT_EQ(decide_with({{"Cache-Control", "max-age=5, max-age=500"}}).lifetime_s, 5u);
}

TEST(CacheFreshness, QuotedMaxAgeIsAccepted) {
  EXPECT_EQ(decide_with({{"Cache-Control", "max-age=\"42\""}}).lifetime_s, 42u);
}

TEST(CacheFreshness, InvalidMaxAgeIsStale) {
  for (const char* v : {"max-age=-1", "max-age=1.5", "max-age=abc", "max-age=\"4\\2\"", "max-age=0",
                        "s-maxage=x, max-age=60"}) {
    EXPECT_EQ(reason_of({{"Cache-Control", v}}), Reason::kStale) << v;
  }
}

TEST(CacheFreshness, HugeMaxAgeIsClampedTo2Pow31) {
  const Freshness f = decide_with({{"Cache-Control", "max-age=99999999999999999999"}});
  ASSERT_TRUE(f.storable());
  EXPECT_EQ(f.lifetime_s, kMaxDeltaSeconds);
}

TEST(CacheFreshness, ExpiresMinusDate) {
  const std::string d = date(kNow - 20);
  const std::string e = date(kNow + 100);
  const Freshness f = decide_with({{"Date", d}, {"Expires", e}});
  ASSERT_TRUE(f.storable());
  EXPECT_EQ(f.lifetime_s, 120u);
  EXPECT_EQ(f.age_s, 20u);  // apparent age: now - Date
  EXPECT_EQ(f.ttl_s(), 100u);
}

TEST(CacheFreshness, ExpiresWithoutDateCountsFromNow) {
  const std::string e = date(kNow + 100);
  EXPECT_EQ(decide_with({{"Expires", e}}).ttl_s(), 100u);
  EXPECT_EQ(decide_with({{"Expires", e}, {"Date", "yesterday"}}).ttl_s(), 100u);
}

TEST(CacheFreshness, InvalidOrPastExpiresIsStale) {
  const std::string past = date(kNow - 1);
  for (const std::string& v : {std::string("0"), std::string("-1"), std::string(""), past}) {
    EXPECT_EQ(reason_of({{"Expires", v}}), Reason::kStale) << v;
  }
}

TEST(CacheFreshness, AgeHeaderAndApparentAgeTakeTheLarger) {
  const std::string d = date(kNow - 5);
  EXPECT_EQ(decide_with({{"Cache-Control", "max-age=100"}, {"Age", "30"}, {"Date", d}}).age_s, 30u);
  EXPECT_EQ(decide_with({{"Cache-Control", "max-age=100"}, {"Age", "2"}, {"Date", d}}).age_s, 5u);
  EXPECT_EQ(decide_with({{"Cache-Control", "max-age=100"}, {"Age", "x"}}).age_s, 0u);
  EXPECT_EQ(reason_of({{"Cache-Control", "max-age=100"}, {"Age", "100"}}), Reason::kStale);
}

TEST(CacheFreshness, NoStorePrivateNoCacheAreNotStored) {
  EXPECT_EQ(reason_of({{"Cache-Control", "max-age=60, no-store"}}), Reason::kNoStore);
  EXPECT_EQ(reason_of({{"Cache-Control", "max-age=60"}, {"Cache-Control", "NO-STORE"}}),
            Reason::kNoStore);
  EXPECT_EQ(reason_of({{"Cache-Control", "private, max-age=60"}}), Reason::kPrivate);
  EXPECT_EQ(reason_of({{"Cache-Control", "private=\"Set-Cookie\", max-age=60"}}), Reason::kPrivate);
  EXPECT_EQ(reason_of({{"Cache-Control", "no-cache, max-age=60"}}), Reason::kNoCache);
  EXPECT_EQ(reason_of({{"Cache-Control", "no-cache=x-a, max-age=60"}}), Reason::kNoCache);
  // The most restrictive first.
  EXPECT_EQ(reason_of({{"Cache-Control", "no-cache, private, no-store"}}), Reason::kNoStore);
}

TEST(CacheFreshness, UnknownDirectivesAndEmptyElementsAreIgnored) {
  EXPECT_EQ(decide_with({{"Cache-Control", ", ,immutable, x-ext=\"a,b\" ,max-age=7,"}}).lifetime_s,
            7u);
}

TEST(CacheFreshness, MalformedCacheControlIsNotStored) {
  for (const char* v : {"max-age=60, no-store=\"", "max-age=60 x", "=60", "max-age=", "max age=6",
                        "max-age=60;", "\"no-store\""}) {
    EXPECT_EQ(reason_of({{"Cache-Control", v}}), Reason::kMalformed) << v;
  }
}

TEST(CacheFreshness, AuthorizationNeedsPublicSMaxAgeOrMustRevalidate) {
  const ResponseContext auth{Method::kGet, 200, true};
  EXPECT_EQ(reason_of({{"Cache-Control", "max-age=60"}}, auth), Reason::kAuthorization);
  for (const char* v : {"public, max-age=60", "s-maxage=60", "must-revalidate, max-age=60"}) {
    EXPECT_TRUE(decide_with({{"Cache-Control", v}}, auth).storable()) << v;
  }
}

TEST(CacheFreshness, SetCookieAndVaryStarAreNotStored) {
  EXPECT_EQ(reason_of({{"Cache-Control", "max-age=60"}, {"Set-Cookie", "a=b"}}),
            Reason::kSetCookie);
  EXPECT_EQ(reason_of({{"Cache-Control", "max-age=60"}, {"Vary", "*"}}), Reason::kVaryStar);
  EXPECT_EQ(reason_of({{"Cache-Control", "max-age=60"}, {"Vary", "Accept, *"}}), Reason::kVaryStar);
  EXPECT_TRUE(
      decide_with({{"Cache-Control", "max-age=60"}, {"Vary", "Accept-Encoding"}}).storable());
}

TEST(CacheFreshness, OnlyGetAndHead) {
  EXPECT_TRUE(
      decide_with({{"Cache-Control", "max-age=60"}}, {Method::kHead, 200, false}).storable());
  EXPECT_EQ(reason_of({{"Cache-Control", "max-age=60"}}, {Method::kOther, 200, false}),
            Reason::kMethod);
  EXPECT_EQ(method_from("GET"), Method::kGet);
  EXPECT_EQ(method_from("HEAD"), Method::kHead);
  EXPECT_EQ(method_from("get"), Method::kOther);
  EXPECT_EQ(method_from("POST"), Method::kOther);
}

TEST(CacheFreshness, StatusRules) {
  for (const std::uint16_t s : {200, 203, 204, 301, 302, 307, 404, 410, 501}) {
    EXPECT_TRUE(decide_with({{"Cache-Control", "max-age=60"}}, {Method::kGet, s, false}).storable())
        << s;
  }
  for (const std::uint16_t s : {100, 201, 206, 304, 400, 500, 503}) {
    EXPECT_EQ(reason_of({{"Cache-Control", "max-age=60"}}, {Method::kGet, s, false}),
              Reason::kStatus)
        << s;
  }
  // Without an explicit lifetime only the heuristically cacheable statuses take the default.
  const Policy p{.default_ttl_s = 30};
  EXPECT_EQ(decide_with({}, {Method::kGet, 404, false}, p).lifetime_s, 30u);
  EXPECT_EQ(reason_of({}, {Method::kGet, 302, false}, p), Reason::kStatus);
}

TEST(CacheFreshness, DefaultTtlOnlyWithoutExplicitLifetime) {
  EXPECT_EQ(reason_of({}), Reason::kNoLifetime);
  EXPECT_EQ(decide_with({{"Cache-Control", "public"}}, {}, {.default_ttl_s = 9}).lifetime_s, 9u);
  EXPECT_EQ(reason_of({{"Cache-Control", "max-age=0"}}, {}, {.default_ttl_s = 9}), Reason::kStale);
}

TEST(CacheFreshness, TooManyLinesAreNotStored) {
  ResponseCacheHeaders h;
  for (std::size_t i = 0; i <= ResponseCacheHeaders::kMaxLines; ++i) h.add("Vary", "Accept");
  h.add("Cache-Control", "max-age=60");
  EXPECT_TRUE(h.overflow);
  EXPECT_EQ(decide({}, h, {}, kNow).reason, Reason::kTooManyLines);
}

TEST(CacheFreshness, OtherHeadersAreIgnored) {
  ResponseCacheHeaders h;
  h.add("Content-Type", "text/plain");
  h.add("Cache-Controls", "no-store");
  h.add("X-Cache-Control", "no-store");
  h.add("CACHE-CONTROL", "max-age=1");
  EXPECT_EQ(h.cache_control().size(), 1u);
  EXPECT_TRUE(decide({}, h, {}, kNow).storable());
}

TEST(CacheVaryNames, TokensOverLines) {
  std::array<std::string_view, 4> out;
  const std::array<std::string_view, 2> lines = {" Accept-Encoding ,, accept", "X-A"};
  const auto n = vary_names(lines, out);
  ASSERT_TRUE(n);
  ASSERT_EQ(*n, 3u);
  EXPECT_EQ(out[0], "Accept-Encoding");
  EXPECT_EQ(out[1], "accept");
  EXPECT_EQ(out[2], "X-A");
  const std::array<std::string_view, 1> bad = {"Accept Encoding"};
  EXPECT_FALSE(vary_names(bad, out));
  const std::array<std::string_view, 1> many = {"a,b,c,d,e"};
  EXPECT_FALSE(vary_names(many, out));
}

TEST(CacheHttpDate, ThreeForms) {
  const std::int64_t t = 784111777;  // 1994-11-06T08:49:37Z
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", kNow), t);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", kNow), t);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994", kNow), t);
  EXPECT_EQ(parse_http_date("Sun Nov 16 08:49:37 1994", kNow), t + 10 * 86400);
  EXPECT_EQ(date(t), "Sun, 06 Nov 1994 08:49:37 GMT");
}

TEST(CacheHttpDate, Rfc850YearWithinFiftyYears) {
  // From 2025: "75" is 2075 (50 years ahead), "76" is 1976.
  EXPECT_EQ(parse_http_date("Thursday, 01-Jan-76 00:00:00 GMT", kNow), 189302400);
  EXPECT_EQ(parse_http_date("Tuesday, 01-Jan-75 00:00:00 GMT", kNow), 3313526400);
}

TEST(CacheHttpDate, RoundTripsOverCenturies) {
  for (std::int64_t t = -2'208'988'800; t < 4'102'444'800; t += 86'399 * 37 + 11) {
    EXPECT_EQ(parse_http_date(date(t), kNow), t) << date(t);
  }
}

TEST(CacheHttpDate, InvalidDates) {
  for (const char* v : {"",
                        "0",
                        "Sun, 06 Nov 1994 08:49:37",
                        "Sun, 06 Nov 1994 08:49:37 UTC",
                        "Sun, 6 Nov 1994 08:49:37 GMT",
                        "Sun,  06 Nov 1994 08:49:37 GMT",
                        "sun, 06 Nov 1994 08:49:37 GMT",
                        "Xyz, 06 Nov 1994 08:49:37 GMT",
                        "Sun, 31 Nov 1994 08:49:37 GMT",
                        "Sun, 29 Feb 1900 08:49:37 GMT",
                        "Sun, 06 Nov 1994 24:00:00 GMT",
                        "Sun, 06 Nov 1994 08:60:00 GMT",
                        "Sun, 06 Nov 1994 08:49:61 GMT",
                        " Sun, 06 Nov 1994 08:49:37 GMT",
                        "Sun, 06 Nov 1994 08:49:37 GMT ",
                        "Sun, 06 Nov 1994 08:49:37 GMTX",
                        "Sun, 06-Nov-94 08:49:37 GMT",
                        "Sunday, 06-Nov-1994 08:49:37 GMT",
                        "Sun Nov 6 08:49:37 1994",
                        "Sun Nov  6 08:49:37 94"}) {
    EXPECT_FALSE(parse_http_date(v, kNow)) << v;
  }
  EXPECT_EQ(parse_http_date("Sat, 29 Feb 2020 00:00:00 GMT", kNow), 1582934400);
}

TEST(CacheDeltaSeconds, DigitsOnly) {
  std::uint32_t v = 7;
  EXPECT_TRUE(parse_delta_seconds("0", v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(parse_delta_seconds("2147483647", v));
  EXPECT_EQ(v, 2147483647u);
  EXPECT_TRUE(parse_delta_seconds("2147483649", v));
  EXPECT_EQ(v, kMaxDeltaSeconds);
  for (const char* bad : {"", "+1", "-1", " 1", "1 ", "1e3", "0x10"}) {
    EXPECT_FALSE(parse_delta_seconds(bad, v)) << bad;
  }
}

}  // namespace
}  // namespace gatebench::cache
