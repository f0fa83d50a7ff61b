// nginx combined field by field, nginx's escapes, and every error reason the format can give.
#include <gtest/gtest.h>

#include <string>

#include "micro/core/access_log/access_log.hpp"
#include "tests/micro/core/access_log/access_log_expect.hpp"

namespace gatebench::access_log {
namespace {

using testing::parse_one;
using testing::reason_of;

constexpr Format kCombined = Format::combined;

struct Parts {
  std::string ip = "203.0.113.7";
  std::string user = "alice";
  std::string time = "10/Oct/2000:13:55:36 -0700";
  std::string request = "GET /v1/items?page=2&q=x HTTP/1.1";
  std::string status = "200";
  std::string bytes = "5120";
  std::string referer = "https://ref.example/";
  std::string user_agent = "Mozilla/5.0 (X11; Linux x86_64) curl/8.5.0";

  std::string line() const {
    return ip + " - " + user + " [" + time + "] \"" + request + "\" " + status + " " + bytes +
           " \"" + referer + "\" \"" + user_agent + "\"";
  }
};

template <typename Edit>
std::string with(Edit edit) {
  Parts p;
  edit(p);
  return p.line();
}

TEST(AccessLogCombined, EveryField) {
  const auto one = parse_one(kCombined, Parts().line());
  ASSERT_TRUE(one.ok);
  const AccessLogRecord& r = one.record;
  EXPECT_EQ(r.client_ip, 0xcb007107u);
  EXPECT_EQ(r.time_us, 971211336LL * 1'000'000);
  EXPECT_EQ(r.method, Method::get);
  EXPECT_EQ(r.path, "/v1/items");
  EXPECT_EQ(r.query, "page=2&q=x");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.bytes_sent, 5120u);
  EXPECT_EQ(r.referer, "https://ref.example/");
  EXPECT_EQ(r.user_agent, "Mozilla/5.0 (X11; Linux x86_64) curl/8.5.0");
  EXPECT_EQ(r.escaped, 0);
  // What combined does not carry.
  EXPECT_EQ(r.scheme, Scheme::none);
  EXPECT_TRUE(r.host.empty());
  EXPECT_TRUE(r.rule_id.empty());
  EXPECT_EQ(r.action, Action::none);
  EXPECT_EQ(r.request_time_us, kAbsent);
  EXPECT_EQ(r.upstream_time_us, kAbsent);
}

TEST(AccessLogCombined, TimeZonesAndCalendar) {
  auto time_of = [](const char* t) {
    return parse_one(kCombined, with([&](Parts& p) { p.time = t; })).record.time_us;
  };
  EXPECT_EQ(time_of("10/Oct/2000:20:55:36 +0000"), 971211336LL * 1'000'000);
  EXPECT_EQ(time_of("29/Feb/2024:00:00:00 +0530"), 1709145000LL * 1'000'000);
  EXPECT_EQ(time_of("01/Jan/1970:00:00:00 +0000"), 0);
  EXPECT_EQ(time_of("31/Dec/1969:23:59:59 +0000"), -1'000'000);
  // The same date twice, then another one: the per-day cache must not leak across dates.
  const std::string two = with([](Parts& p) { p.time = "01/Jan/2026:00:00:01 +0000"; }) + "\n" +
                          with([](Parts& p) { p.time = "01/Jan/2026:00:00:02 +0000"; }) + "\n" +
                          with([](Parts& p) { p.time = "02/Jan/2026:00:00:02 +0100"; }) + "\n";
  AccessLogRecord r[3];
  AccessLogError e[3];
  ASSERT_EQ(parse_combined(two, r, e).records, 3u);
  EXPECT_EQ(r[1].time_us - r[0].time_us, 1'000'000);
  EXPECT_EQ(r[2].time_us - r[1].time_us, (86400 - 3600) * 1'000'000LL);
}

// A line with the previous line's date takes the cached path (clock and zone in one SWAR step
// each): it must give the same times and reject the same bad clocks and zones.
TEST(AccessLogCombined, CachedDateGivesTheSameTimes) {
  auto second_line = [](const char* t) {
    const std::string log = with([](Parts& p) { p.time = "10/Oct/2000:00:00:00 +0000"; }) + "\n" +
                            with([&](Parts& p) { p.time = t; }) + "\n";
    AccessLogRecord r[2];
    AccessLogError e[2];
    const BatchResult res = parse_combined(log, r, e);
    return std::pair{res.records == 2 ? r[1].time_us : -1,
                     res.errors == 1 ? e[0].reason : ErrorReason::empty_line};
  };
  EXPECT_EQ(second_line("10/Oct/2000:20:55:36 +0000").first, 971211336LL * 1'000'000);
  EXPECT_EQ(second_line("10/Oct/2000:13:55:36 -0700").first, 971211336LL * 1'000'000);
  EXPECT_EQ(second_line("10/Oct/2000:23:59:59 +2359").first,
            (971136000LL + 86399 - 86340) * 1'000'000);
  EXPECT_EQ(second_line("10/Oct/2000:00:00:00 -0001").first, (971136000LL + 60) * 1'000'000);
  for (const char* t :
       {"10/Oct/2000:24:00:00 -0700", "10/Oct/2000:13:60:36 -0700", "10/Oct/2000:13:55:60 -0700",
        "10/Oct/2000:13:55:36 *0700", "10/Oct/2000:13:55:36 -2400", "10/Oct/2000:13:55:36 +0060",
        "10/Oct/2000:1a:55:36 +0000", "10/Oct/2000:13;55:36 +0000", "10/Oct/2000:13:55-36 +0000",
        "10/Oct/2000 13:55:36 +0000", "10/Oct/2000:13:55:36_+0000", "10/Oct/2000:13:55:36 +01/0",
        "10/Oct/2000:/3:55:36 +0000", "10/Oct/2000:13:55:3: +0000"}) {
    EXPECT_EQ(second_line(t).second, ErrorReason::bad_time) << t;
  }
}

// The fast path caches the previous line's date, zone and the literals around them as raw
// bytes: a line that differs from it in any of them, or only in its user, must still parse as
// the careful path parses it.
TEST(AccessLogCombined, TimeCacheFollowsZoneUserAndLiterals) {
  const std::string first = with([](Parts& p) { p.time = "10/Oct/2000:00:00:00 +0000"; });
  auto after_first = [&](const std::string& line) {
    const std::string log = first + "\n" + line + "\n" + first + "\n";
    AccessLogRecord r[3];
    AccessLogError e[3];
    const BatchResult res = parse_combined(log, r, e);
    EXPECT_EQ(res.records + res.errors, 3u) << line;
    // The line after is parsed with whatever the line in between left in the cache.
    EXPECT_EQ(r[res.records - 1].time_us, 971136000LL * 1'000'000) << line;
    return std::pair{res.records == 3 ? r[1].time_us : -1,
                     res.errors == 1 ? e[0].reason : ErrorReason::empty_line};
  };
  const std::int64_t midnight = 971136000LL * 1'000'000;
  EXPECT_EQ(after_first(with([](Parts& p) { p.time = "10/Oct/2000:01:02:03 +0100"; })).first,
            midnight + (3723 - 3600) * 1'000'000LL);
  EXPECT_EQ(after_first(with([](Parts& p) { p.time = "10/Oct/2000:01:02:03 -0130"; })).first,
            midnight + (3723 + 5400) * 1'000'000LL);
  EXPECT_EQ(after_first(with([](Parts& p) { p.time = "11/Oct/2000:00:00:00 +0000"; })).first,
            midnight + 86400 * 1'000'000LL);
  for (const char* user : {"a", "alice", "bob.smith@example.com", "x-"}) {
    EXPECT_EQ(after_first(with([&](Parts& p) {
                p.user = user;
                p.time = "10/Oct/2000:23:59:59 +0000";
              })).first,
              midnight + 86399 * 1'000'000LL)
        << user;
  }
  // The same date and zone around other literals: not taken from the cache.
  std::string paren = with([](Parts& p) { p.time = "10/Oct/2000:00:00:01 +0000"; });
  paren[paren.find('[')] = '(';
  EXPECT_EQ(after_first(paren).second, ErrorReason::bad_syntax);
  std::string bracket = with([](Parts& p) { p.time = "10/Oct/2000:00:00:01 +0000"; });
  bracket[bracket.find(']')] = '}';
  EXPECT_EQ(after_first(bracket).second, ErrorReason::bad_syntax);
  std::string tab = with([](Parts& p) { p.time = "10/Oct/2000:00:00:01 +0000"; });
  tab[tab.find(" +0000")] = '\t';
  EXPECT_EQ(after_first(tab).second, ErrorReason::bad_time);
}

TEST(AccessLogCombined, RequestLineShapes) {
  auto req = [](const char* text) {
    return parse_one(kCombined, with([&](Parts& p) { p.request = text; }));
  };
  auto a = req("POST /login HTTP/2.0");
  EXPECT_EQ(a.record.method, Method::post);
  EXPECT_EQ(a.record.path, "/login");
  EXPECT_TRUE(a.record.query.empty());
  auto b = req("PROPFIND /dav/ HTTP/1.0");
  EXPECT_EQ(b.record.method, Method::other);
  auto c = req("GET /a b?c d HTTP/1.1");  // spaces in the target: nginx logs them raw
  EXPECT_EQ(c.record.path, "/a b");
  EXPECT_EQ(c.record.query, "c d");
  auto d = req("GET /? HTTP/1.1");
  EXPECT_EQ(d.record.path, "/");
  EXPECT_TRUE(d.record.query.empty());
  auto e = req("DELETE /x?a=1?b=2 HTTP/1.1");
  EXPECT_EQ(e.record.method, Method::del);
  EXPECT_EQ(e.record.query, "a=1?b=2");
}

// The fast path finds the '?' 64 bytes at a time: targets around that length, with the '?' at
// the edges of each 64-byte step, or none.
TEST(AccessLogCombined, QueryAtEachOffset) {
  for (std::size_t len = 1; len <= 140; ++len) {
    for (std::size_t at : {len, std::size_t{1}, len / 2, std::size_t{62}, std::size_t{63},
                           std::size_t{64}, std::size_t{65}, std::size_t{128}, len - 1}) {
      if (at > len || (at == 0 && len > 0)) continue;
      std::string target = "/" + std::string(len - 1, 'a');
      if (at < len) target[at] = '?';
      const auto one =
          parse_one(kCombined, with([&](Parts& p) { p.request = "GET " + target + " HTTP/1.1"; }));
      ASSERT_TRUE(one.ok) << target;
      EXPECT_EQ(one.record.path, target.substr(0, at)) << target;
      EXPECT_EQ(one.record.query, at < len ? target.substr(at + 1) : "") << target;
    }
  }
}

TEST(AccessLogCombined, NginxEscapesAndDashes) {
  const auto one = parse_one(kCombined, with([](Parts& p) {
                               p.request = "GET /a\\x22b?q=\\x5C HTTP/1.1";
                               p.user_agent = "say \\x22hi\\x22 caf\\xC3\\xA9";
                               p.referer = "-";
                             }));
  ASSERT_TRUE(one.ok);
  const AccessLogRecord& r = one.record;
  EXPECT_EQ(r.escaped, kEscPath | kEscQuery | kEscUserAgent);
  EXPECT_EQ(field_value(kCombined, r, r.path, kEscPath), "/a\"b");
  EXPECT_EQ(field_value(kCombined, r, r.query, kEscQuery), "q=\\");
  EXPECT_EQ(field_value(kCombined, r, r.user_agent, kEscUserAgent), "say \"hi\" caf\xc3\xa9");
  EXPECT_TRUE(r.referer.empty());
  EXPECT_TRUE(
      parse_one(kCombined, with([](Parts& p) { p.user_agent = "-"; })).record.user_agent.empty());
}

TEST(AccessLogCombined, EachErrorReason) {
  EXPECT_EQ(reason_of(kCombined, with([](Parts& p) { p.ip = "2001:db8::1"; })),
            ErrorReason::bad_ip);
  EXPECT_EQ(reason_of(kCombined, with([](Parts& p) { p.ip = "300.1.1.1"; })), ErrorReason::bad_ip);
  EXPECT_EQ(reason_of(kCombined, with([](Parts& p) { p.user = ""; })), ErrorReason::bad_syntax);
  EXPECT_EQ(reason_of(kCombined, with([](Parts& p) { p.user = "a b"; })), ErrorReason::bad_syntax);
  EXPECT_EQ(
      reason_of(
          kCombined,
          "203.0.113.7 x alice [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\""),
      ErrorReason::bad_syntax);
  for (const char* t :
       {"31/Feb/2000:13:55:36 -0700", "10/Okt/2000:13:55:36 -0700", "10/Oct/2000:24:00:00 -0700",
        "10/Oct/2000:13:60:36 -0700", "10/Oct/2000:13:55:60 -0700", "10/Oct/2000:13:55:36 *0700",
        "10/Oct/2000:13:55:36 -2400", "00/Oct/2000:13:55:36 -0700", "10/Oct/2000:13:55:36",
        "29/Feb/2100:00:00:00 +0000"}) {
    EXPECT_EQ(reason_of(kCombined, with([&](Parts& p) { p.time = t; })), ErrorReason::bad_time)
        << t;
  }
  for (const char* req : {"-", "GET /", "GET", "GET /x HTTP/1", "GET /x HTTPS/1.1", "GET  HTTP/1.1",
                          "GET /x HTTP/1.1 "}) {
    EXPECT_EQ(reason_of(kCombined, with([&](Parts& p) { p.request = req; })),
              ErrorReason::bad_request_line)
        << req;
  }
  for (const char* req : {"get /x HTTP/1.1", "G3T /x HTTP/1.1", "ABCDEFGHIJKLMNOPQ /x HTTP/1.1"}) {
    EXPECT_EQ(reason_of(kCombined, with([&](Parts& p) { p.request = req; })),
              ErrorReason::bad_method)
        << req;
  }
  for (const char* st : {"099", "600", "20", "-"}) {
    EXPECT_EQ(reason_of(kCombined, with([&](Parts& p) { p.status = st; })), ErrorReason::bad_status)
        << st;
  }
  for (const char* b : {"-", "1x", "99999999999999999999"}) {
    EXPECT_EQ(reason_of(kCombined, with([&](Parts& p) { p.bytes = b; })), ErrorReason::bad_bytes)
        << b;
  }
  for (const char* ua : {"a\\x4", "a\\q", "\\"}) {
    EXPECT_EQ(reason_of(kCombined, with([&](Parts& p) { p.user_agent = ua; })),
              ErrorReason::bad_escape)
        << ua;
  }
  EXPECT_EQ(reason_of(kCombined, Parts().line() + " \"-\""), ErrorReason::extra_field);
  std::string cut = Parts().line();
  cut.resize(cut.size() - 10);
  EXPECT_EQ(reason_of(kCombined, cut), ErrorReason::missing_field);
  EXPECT_EQ(reason_of(kCombined, "203.0.113.7"), ErrorReason::missing_field);
  // Cut right after the time: the same reason alone (the buffer ends there) as before a '\n'.
  const std::string head = "203.0.113.7 - alice [10/Oct/2000:13:55:36 -0700]";
  EXPECT_EQ(reason_of(kCombined, head), ErrorReason::missing_field);
  EXPECT_EQ(reason_of(kCombined, head + " "), ErrorReason::missing_field);
  EXPECT_EQ(reason_of(kCombined, head + std::string(1, '\0')), ErrorReason::bad_syntax);
  EXPECT_EQ(reason_of(kCombined, head.substr(0, head.size() - 1)), ErrorReason::missing_field);
  EXPECT_EQ(reason_of(kCombined, head.substr(0, head.size() - 2)), ErrorReason::bad_time);
  EXPECT_EQ(reason_of(kCombined, with([](Parts& p) { p.referer = "raw\"quote"; })),
            ErrorReason::bad_syntax);
}

}  // namespace
}  // namespace gatebench::access_log
