// JSON lines field by field: the documented key order (fast path), any other order and
// whitespace, nulls, escapes, unknown keys, and every error reason the format can give.
#include <gtest/gtest.h>

#include <string>

#include "micro/core/access_log/access_log.hpp"
#include "tests/micro/core/access_log/access_log_expect.hpp"

namespace gatebench::access_log {
namespace {

using testing::parse_one;
using testing::reason_of;

constexpr Format kJsonl = Format::jsonl;

const char* const kKeys[15] = {"time",          "client",     "method",  "scheme", "host",
                               "path",          "query",      "status",  "bytes",  "request_time",
                               "upstream_time", "user_agent", "referer", "rule",   "action"};

// Values (already JSON) in key order; edit one, drop one, reorder or add whitespace.
struct Obj {
  std::string v[15] = {"1764443039.123",
                       "\"203.0.113.7\"",
                       "\"GET\"",
                       "\"https\"",
                       "\"api.example.com\"",
                       "\"/v1/items\"",
                       "\"page=2\"",
                       "200",
                       "5120",
                       "0.012",
                       "0.010",
                       "\"curl/8.5.0\"",
                       "\"https://ref.example/\"",
                       "\"r-12\"",
                       "\"block\""};
  std::string line(const char* sep = ",", const char* colon = ":", int skip = -1,
                   bool reverse = false) const {
    std::string s = "{";
    bool first = true;
    for (int k = 0; k < 15; ++k) {
      const int i = reverse ? 14 - k : k;
      if (i == skip) continue;
      if (!first) s += sep;
      first = false;
      s += '"';
      s += kKeys[i];
      s += '"';
      s += colon;
      s += v[i];
    }
    s += '}';
    return s;
  }
};

std::string with(int field, std::string value) {
  Obj o;
  o.v[field] = std::move(value);
  return o.line();
}

TEST(AccessLogJsonl, EveryField) {
  const auto one = parse_one(kJsonl, Obj().line());
  ASSERT_TRUE(one.ok);
  const AccessLogRecord& r = one.record;
  EXPECT_EQ(r.time_us, 1764443039123000);
  EXPECT_EQ(r.client_ip, 0xcb007107u);
  EXPECT_EQ(r.method, Method::get);
  EXPECT_EQ(r.scheme, Scheme::https);
  EXPECT_EQ(r.host, "api.example.com");
  EXPECT_EQ(r.path, "/v1/items");
  EXPECT_EQ(r.query, "page=2");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.bytes_sent, 5120u);
  EXPECT_EQ(r.request_time_us, 12000);
  EXPECT_EQ(r.upstream_time_us, 10000);
  EXPECT_EQ(r.user_agent, "curl/8.5.0");
  EXPECT_EQ(r.referer, "https://ref.example/");
  EXPECT_EQ(r.rule_id, "r-12");
  EXPECT_EQ(r.action, Action::block);
  EXPECT_EQ(r.escaped, 0);
}

TEST(AccessLogJsonl, AnyOrderAndWhitespaceGiveTheSameRecord) {
  const auto base = parse_one(kJsonl, Obj().line());
  const AccessLogRecord& canonical = base.record;
  for (const std::string& line :
       {Obj().line(",", ":", -1, true), Obj().line(" ,\t", " : "),
        std::string(" ").append(Obj().line()).append(" \r"), Obj().line(", ", ": ")}) {
    const auto one = parse_one(kJsonl, line);
    ASSERT_TRUE(one.ok) << line;
    EXPECT_TRUE(one.record == canonical) << line;
  }
}

TEST(AccessLogJsonl, NullsAndEmptyStrings) {
  for (int f : {4, 5, 6, 11, 12, 13}) {
    for (const char* v : {"null", "\"\""}) {
      const auto one = parse_one(kJsonl, with(f, v));
      ASSERT_TRUE(one.ok) << f << v;
    }
  }
  EXPECT_TRUE(parse_one(kJsonl, with(13, "null")).record.rule_id.empty());
  EXPECT_EQ(parse_one(kJsonl, with(9, "null")).record.request_time_us, kAbsent);
  EXPECT_EQ(parse_one(kJsonl, with(10, "null")).record.upstream_time_us, kAbsent);
  EXPECT_EQ(parse_one(kJsonl, with(14, "null")).record.action, Action::none);
  EXPECT_EQ(parse_one(kJsonl, with(14, "\"-\"")).record.action, Action::none);
  // In JSON "-" is just a string.
  EXPECT_EQ(parse_one(kJsonl, with(5, "\"-\"")).record.path, "-");
}

TEST(AccessLogJsonl, EscapesStayRawAndAreFlagged) {
  const std::pair<int, std::uint8_t> fields[] = {{4, kEscHost},     {5, kEscPath},
                                                 {6, kEscQuery},    {11, kEscUserAgent},
                                                 {12, kEscReferer}, {13, kEscRuleId}};
  const std::string raw = R"(q\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800x)";
  for (const auto& [f, bit] : fields) {
    const auto one = parse_one(kJsonl, with(f, "\"" + raw + "\""));
    ASSERT_TRUE(one.ok) << f;
    EXPECT_EQ(one.record.escaped, bit);
  }
  const auto one = parse_one(kJsonl, with(11, "\"" + raw + "\""));
  EXPECT_EQ(one.record.user_agent, raw);
  EXPECT_EQ(unescape_copy(kJsonl, one.record.user_agent),
            "q\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx");
}

TEST(AccessLogJsonl, UnknownScalarKeysAreSkipped) {
  for (const char* v : {"1", "-2.5e3", "true", "false", "null", "\"x\\\"y\""}) {
    std::string line = Obj().line();
    line.insert(1, std::string("\"extra\":") + v + ",");
    const auto one = parse_one(kJsonl, line);
    EXPECT_TRUE(one.ok) << line;
  }
}

TEST(AccessLogJsonl, EachErrorReason) {
  EXPECT_EQ(reason_of(kJsonl, "[1,2]"), ErrorReason::bad_syntax);
  EXPECT_EQ(reason_of(kJsonl, "{}"), ErrorReason::missing_field);
  EXPECT_EQ(reason_of(kJsonl, Obj().line(",", "=")), ErrorReason::bad_syntax);
  EXPECT_EQ(reason_of(kJsonl, Obj().line(";", ":", -1, true)), ErrorReason::bad_syntax);
  EXPECT_EQ(reason_of(kJsonl, Obj().line(";")), ErrorReason::bad_time);  // ';' joins the number
  for (int skip = 0; skip < 15; ++skip) {
    EXPECT_EQ(reason_of(kJsonl, Obj().line(",", ":", skip)), ErrorReason::missing_field) << skip;
  }
  std::string dup = Obj().line();
  dup.insert(1, "\"status\":200,");
  EXPECT_EQ(reason_of(kJsonl, dup), ErrorReason::duplicate_field);
  std::string nested = Obj().line();
  nested.insert(1, "\"extra\":{\"a\":1},");
  EXPECT_EQ(reason_of(kJsonl, nested), ErrorReason::bad_syntax);
  for (const char* t : {"1.7e9", "\"1764443039\"", "-1", "null", "1.1234567"}) {
    EXPECT_EQ(reason_of(kJsonl, with(0, t)), ErrorReason::bad_time) << t;
  }
  for (const char* ip : {"\"1.2.3\"", "1", "null", "\"1.2.3.4\\u0030\""}) {
    EXPECT_EQ(reason_of(kJsonl, with(1, ip)), ErrorReason::bad_ip) << ip;
  }
  for (const char* m : {"\"get\"", "null", "\"\""}) {
    EXPECT_EQ(reason_of(kJsonl, with(2, m)), ErrorReason::bad_method) << m;
  }
  EXPECT_EQ(reason_of(kJsonl, with(3, "\"ftp\"")), ErrorReason::bad_scheme);
  for (const char* st : {"\"200\"", "99", "200.0", "null"}) {
    EXPECT_EQ(reason_of(kJsonl, with(7, st)), ErrorReason::bad_status) << st;
  }
  for (const char* b : {"-1", "1.5", "\"1\""}) {
    EXPECT_EQ(reason_of(kJsonl, with(8, b)), ErrorReason::bad_bytes) << b;
  }
  for (const char* t : {"\"0.1\"", "-0.1", "1e-3"}) {
    EXPECT_EQ(reason_of(kJsonl, with(9, t)), ErrorReason::bad_duration) << t;
    EXPECT_EQ(reason_of(kJsonl, with(10, t)), ErrorReason::bad_duration) << t;
  }
  for (const char* a : {"\"deny\"", "1", "\"\""}) {
    EXPECT_EQ(reason_of(kJsonl, with(14, a)), ErrorReason::bad_action) << a;
  }
  for (const char* s : {"\"a\\q\"", "\"\\u12\"", "\"\\x41\""}) {
    EXPECT_EQ(reason_of(kJsonl, with(5, s)), ErrorReason::bad_escape) << s;
  }
  EXPECT_EQ(reason_of(kJsonl, with(5, "\"a\tb\"")), ErrorReason::bad_syntax);  // raw control
  EXPECT_EQ(reason_of(kJsonl, with(5, "1")), ErrorReason::bad_syntax);
  EXPECT_EQ(reason_of(kJsonl, Obj().line() + "x"), ErrorReason::extra_field);
  EXPECT_EQ(reason_of(kJsonl, Obj().line() + "{}"), ErrorReason::extra_field);
  std::string cut = Obj().line();
  cut.resize(cut.size() - 5);
  EXPECT_EQ(reason_of(kJsonl, cut), ErrorReason::missing_field);
  EXPECT_EQ(reason_of(kJsonl, "{\"path\":\"abc"), ErrorReason::missing_field);
}

}  // namespace
}  // namespace gatebench::access_log
