// The tsv record field by field, its escapes, and every error reason it can give.
#include <gtest/gtest.h>

#include <string>

#include "micro/core/access_log/access_log.hpp"
#include "tests/micro/core/access_log/access_log_expect.hpp"

namespace gatebench::access_log {
namespace {

using testing::parse_one;
using testing::reason_of;

constexpr Format kTsv = Format::tsv;

// The 15 fields of a typical line, to be edited one at a time.
std::string line_with(int field, std::string_view value) {
  std::string fields[15] = {
      "1764443039.123",       "203.0.113.7", "GET",  "https", "api.example.com", "/v1/items",
      "page=2&q=x",           "200",         "5120", "0.012", "0.010",           "curl/8.5.0",
      "https://ref.example/", "r-12",        "block"};
  if (field >= 0) fields[field] = value;
  std::string line;
  for (int i = 0; i < 15; ++i) {
    if (i) line += '\t';
    line += fields[i];
  }
  return line;
}

TEST(AccessLogTsv, EveryField) {
  const auto one = parse_one(kTsv, line_with(-1, ""));
  ASSERT_TRUE(one.ok);
  const AccessLogRecord& r = one.record;
  EXPECT_EQ(r.time_us, 1764443039123000);
  EXPECT_EQ(r.client_ip, 0xcb007107u);
  EXPECT_EQ(r.method, Method::get);
  EXPECT_EQ(r.scheme, Scheme::https);
  EXPECT_EQ(r.host, "api.example.com");
  EXPECT_EQ(r.path, "/v1/items");
  EXPECT_EQ(r.query, "page=2&q=x");
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

TEST(AccessLogTsv, NumbersInEveryAllowedShape) {
  EXPECT_EQ(parse_one(kTsv, line_with(0, "1764443039")).record.time_us, 1764443039000000);
  EXPECT_EQ(parse_one(kTsv, line_with(0, "1.5")).record.time_us, 1500000);
  EXPECT_EQ(parse_one(kTsv, line_with(0, "9999999999.999999")).record.time_us, 9999999999999999);
  EXPECT_EQ(parse_one(kTsv, line_with(9, "12.345678")).record.request_time_us, 12345678);
  EXPECT_EQ(parse_one(kTsv, line_with(9, "12.3456")).record.request_time_us, 12345600);
  EXPECT_EQ(parse_one(kTsv, line_with(10, "-")).record.upstream_time_us, kAbsent);
  EXPECT_EQ(parse_one(kTsv, line_with(9, "-")).record.request_time_us, kAbsent);
  EXPECT_EQ(parse_one(kTsv, line_with(8, "0")).record.bytes_sent, 0u);
  EXPECT_EQ(parse_one(kTsv, line_with(8, "9999999999999999999")).record.bytes_sent,
            9999999999999999999ull);
  EXPECT_EQ(parse_one(kTsv, line_with(8, "12345678")).record.bytes_sent, 12345678u);
  EXPECT_EQ(parse_one(kTsv, line_with(7, "599")).record.status, 599);
  EXPECT_EQ(parse_one(kTsv, line_with(7, "100")).record.status, 100);
  EXPECT_EQ(parse_one(kTsv, line_with(1, "0.0.0.0")).record.client_ip, 0u);
  EXPECT_EQ(parse_one(kTsv, line_with(1, "255.255.255.255")).record.client_ip, 0xffffffffu);
  EXPECT_EQ(parse_one(kTsv, line_with(1, "010.1.2.3")).record.client_ip, 0x0a010203u);
}

TEST(AccessLogTsv, MethodsSchemesActions) {
  const std::pair<const char*, Method> methods[] = {{"GET", Method::get},
                                                    {"HEAD", Method::head},
                                                    {"POST", Method::post},
                                                    {"PUT", Method::put},
                                                    {"DELETE", Method::del},
                                                    {"PATCH", Method::patch},
                                                    {"OPTIONS", Method::options},
                                                    {"CONNECT", Method::connect},
                                                    {"TRACE", Method::trace},
                                                    {"PROPFIND", Method::other},
                                                    {"ABCDEFGHIJKLMNOP", Method::other}};
  for (const auto& [token, m] : methods) {
    EXPECT_EQ(parse_one(kTsv, line_with(2, token)).record.method, m) << token;
  }
  EXPECT_EQ(parse_one(kTsv, line_with(3, "http")).record.scheme, Scheme::http);
  const std::pair<const char*, Action> actions[] = {
      {"-", Action::none},       {"allow", Action::allow},
      {"block", Action::block},  {"challenge", Action::challenge},
      {"queue", Action::queue},  {"ratelimit", Action::ratelimit},
      {"detect", Action::detect}};
  for (const auto& [token, a] : actions) {
    EXPECT_EQ(parse_one(kTsv, line_with(14, token)).record.action, a) << token;
  }
}

TEST(AccessLogTsv, DashAndEmptyAreEmpty) {
  for (int field : {4, 5, 6, 11, 12, 13}) {
    for (const char* v : {"-", ""}) {
      const auto one = parse_one(kTsv, line_with(field, v));
      ASSERT_TRUE(one.ok) << field;
      const AccessLogRecord& r = one.record;
      const std::string_view views[] = {r.host,       r.path,    r.query,
                                        r.user_agent, r.referer, r.rule_id};
      const int index = field <= 6 ? field - 4 : field - 8;
      EXPECT_TRUE(views[index].empty()) << field;
    }
  }
}

TEST(AccessLogTsv, EscapesStayRawAndAreFlagged) {
  const std::pair<int, std::uint8_t> fields[] = {{4, kEscHost},     {5, kEscPath},
                                                 {6, kEscQuery},    {11, kEscUserAgent},
                                                 {12, kEscReferer}, {13, kEscRuleId}};
  for (const auto& [field, bit] : fields) {
    const auto one = parse_one(kTsv, line_with(field, "a\\tb\\nc\\\\d\\re\\x2d\\x7F"));
    ASSERT_TRUE(one.ok) << field;
    EXPECT_EQ(one.record.escaped, bit);
  }
  const auto one = parse_one(kTsv, line_with(11, "a\\tb\\nc\\\\d\\re\\x2d\\x7F"));
  EXPECT_EQ(one.record.user_agent, "a\\tb\\nc\\\\d\\re\\x2d\\x7F");
  EXPECT_EQ(unescape_copy(kTsv, one.record.user_agent), "a\tb\nc\\d\re-\x7f");
  // A literal "-" is written \x2d, so it survives.
  const auto dash = parse_one(kTsv, line_with(5, "\\x2d"));
  EXPECT_EQ(field_value(kTsv, dash.record, dash.record.path, kEscPath), "-");
}

TEST(AccessLogTsv, RawBytesPassThrough) {
  const auto one = parse_one(kTsv, line_with(11, "caf\xc3\xa9 \x01\x7f\"quoted\" {json}"));
  ASSERT_TRUE(one.ok);
  EXPECT_EQ(one.record.user_agent, "caf\xc3\xa9 \x01\x7f\"quoted\" {json}");
  EXPECT_EQ(one.record.escaped, 0);
}

TEST(AccessLogTsv, EachErrorReason) {
  EXPECT_EQ(reason_of(kTsv, line_with(0, "17644430391.123")), ErrorReason::bad_time);
  EXPECT_EQ(reason_of(kTsv, line_with(0, "1764443039.1234567")), ErrorReason::bad_time);
  EXPECT_EQ(reason_of(kTsv, line_with(0, "1764443039.")), ErrorReason::bad_time);
  EXPECT_EQ(reason_of(kTsv, line_with(0, "-")), ErrorReason::bad_time);
  EXPECT_EQ(reason_of(kTsv, line_with(0, "1e9")), ErrorReason::bad_time);
  for (const char* ip :
       {"256.1.1.1", "1.2.3", "1.2.3.4.5", "::1", "1..2.3", "1.2.3.4 ", "-", "1234.1.1.1", ""}) {
    EXPECT_EQ(reason_of(kTsv, line_with(1, ip)), ErrorReason::bad_ip) << ip;
  }
  for (const char* m : {"get", "", "ABCDEFGHIJKLMNOPQ", "G-T", "-"}) {
    EXPECT_EQ(reason_of(kTsv, line_with(2, m)), ErrorReason::bad_method) << m;
  }
  for (const char* sc : {"HTTP", "ftp", "-", "httpss", ""}) {
    EXPECT_EQ(reason_of(kTsv, line_with(3, sc)), ErrorReason::bad_scheme) << sc;
  }
  for (const char* st : {"099", "600", "20", "2000", "-", "2x0"}) {
    EXPECT_EQ(reason_of(kTsv, line_with(7, st)), ErrorReason::bad_status) << st;
  }
  for (const char* b : {"", "-", "12a", "99999999999999999999", "-1"}) {
    EXPECT_EQ(reason_of(kTsv, line_with(8, b)), ErrorReason::bad_bytes) << b;
  }
  for (const char* t : {"", "0.", ".5", "0.0123456", "x", "1,5"}) {
    EXPECT_EQ(reason_of(kTsv, line_with(9, t)), ErrorReason::bad_duration) << t;
    EXPECT_EQ(reason_of(kTsv, line_with(10, t)), ErrorReason::bad_duration) << t;
  }
  for (const char* a : {"BLOCK", "", "deny", "block\r"}) {
    EXPECT_EQ(reason_of(kTsv, line_with(14, a)), ErrorReason::bad_action) << a;
  }
  for (const char* esc : {"a\\q", "a\\", "\\x4", "\\xZZ", "\\u0041"}) {
    EXPECT_EQ(reason_of(kTsv, line_with(5, esc)), ErrorReason::bad_escape) << esc;
  }
  std::string short_line = line_with(-1, "");
  short_line.resize(short_line.rfind('\t'));
  EXPECT_EQ(reason_of(kTsv, short_line), ErrorReason::missing_field);
  EXPECT_EQ(reason_of(kTsv, line_with(-1, "") + "\textra"), ErrorReason::extra_field);
  EXPECT_EQ(reason_of(kTsv, "1764443039.123"), ErrorReason::missing_field);
}

TEST(AccessLogTsv, ErrorOffsetPointsAtTheField) {
  const std::string line = line_with(7, "999");
  const auto one = parse_one(kTsv, line);
  ASSERT_FALSE(one.ok);
  EXPECT_EQ(one.error.reason, ErrorReason::bad_status);
  EXPECT_EQ(one.error.line_offset, 0u);
  EXPECT_EQ(line.substr(one.error.offset, 3), "999");
}

}  // namespace
}  // namespace gatebench::access_log
