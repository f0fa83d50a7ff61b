// The tsv writer against its parser: parse_tsv(write_tsv(r)) == r on generated records
// (ordinary and hostile), write_tsv(parse_tsv(line)) == line for the generator's lines, the
// decoded values survive, long lines are cut into valid ones, and writing allocates nothing.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "fixtures/access_log_fixture.hpp"
#include "micro/core/access_log/tsv.hpp"
#include "micro/core/access_log/unescape.hpp"
#include "micro/core/access_log/write.hpp"
#include "tests/micro/allocation_counter.hpp"
#include "tests/micro/core/access_log/access_log_expect.hpp"

namespace gatebench::access_log {
namespace {

struct Parsed {
  std::vector<AccessLogRecord> records;
  BatchResult result;
};

Parsed parse_all(std::string_view text, std::size_t capacity) {
  Parsed p;
  p.records.resize(capacity);
  std::vector<AccessLogError> errors(4);
  p.result = parse_tsv(text, p.records, errors);
  p.records.resize(p.result.records);
  return p;
}

AccessLogRecord one_record(std::string_view line) {
  Parsed p = parse_all(line, 2);
  EXPECT_EQ(p.result.errors, 0u) << line;
  EXPECT_EQ(p.result.records, 1u) << line;
  return p.records.empty() ? AccessLogRecord{} : p.records[0];
}

class WriteProperty : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(WriteProperty, ParseOfWriteIsTheRecord) {
  const auto requests = fixtures::generate_requests(5000, GetParam(), {.hostile = 0.25});
  const std::string log = fixtures::write_log(requests, Format::tsv);
  Parsed p = parse_all(log, requests.size() + 1);
  ASSERT_EQ(p.result.errors, 0u);
  ASSERT_EQ(p.records.size(), requests.size());
  std::array<char, 65536> buf;
  for (std::size_t i = 0; i < p.records.size(); ++i) {
    const AccessLogRecord& r = p.records[i];
    for (int digits : {6, 3}) {  // the generator's times are whole milliseconds
      TsvWriteOptions o;
      o.fraction_digits = digits;
      const std::size_t n = write_tsv(buf, r, o);
      ASSERT_EQ(n, tsv_line_size(r, o)) << "record " << i;
      const std::string_view line(buf.data(), n);
      ASSERT_EQ(line.back(), '\n');
      ASSERT_EQ(one_record(line), r) << "record " << i << ": " << line;
    }
  }
}

TEST_P(WriteProperty, WriteOfParseIsTheLine) {
  const auto requests = fixtures::generate_requests(5000, GetParam(), {.hostile = 0.25});
  std::string line;
  std::string again;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    line.clear();
    fixtures::append_line(line, requests[i], Format::tsv);
    const AccessLogRecord r = one_record(line);
    again.clear();
    TsvWriteOptions o;
    o.fraction_digits = 3;
    o.other_method = requests[i].method;
    append_tsv(again, r, o);
    ASSERT_EQ(again, line) << "request " << i;
  }
}

TEST_P(WriteProperty, DecodedValuesSurvive) {
  // Records holding decoded values (as the gateway has them) come back with the same values.
  const auto requests = fixtures::generate_requests(5000, GetParam(), {.hostile = 0.25});
  std::string log;
  for (const auto& q : requests) {
    TsvWriteOptions o;
    o.other_method = q.method;
    append_tsv(log, fixtures::record_view(q), o);
  }
  Parsed p = parse_all(log, requests.size() + 1);
  ASSERT_EQ(p.result.errors, 0u);
  ASSERT_EQ(p.records.size(), requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    ASSERT_TRUE(testing::matches(p.records[i], requests[i], Format::tsv)) << "record " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, WriteProperty, ::testing::Values(1u, 7u, 20261201u));

AccessLogRecord sample() {
  AccessLogRecord r;
  r.time_us = 1'764'443'039'123'456;
  r.request_time_us = 12'000;
  r.upstream_time_us = kAbsent;
  r.bytes_sent = 5120;
  r.client_ip = 0xCB007107;  // 203.0.113.7
  r.status = 200;
  r.method = Method::get;
  r.scheme = Scheme::https;
  r.host = "api.example.com";
  r.path = "/v1/items";
  r.query = "page=2";
  r.user_agent = "curl/8.5.0";
  return r;
}

TEST(AccessLogWrite, TheDocumentedExample) {
  std::string s;
  TsvWriteOptions o;
  o.fraction_digits = 3;
  AccessLogRecord r = sample();
  r.upstream_time_us = 10'000;
  append_tsv(s, r, o);
  EXPECT_EQ(
      s,
      "1764443039.123\t203.0.113.7\tGET\thttps\tapi.example.com\t/v1/items\tpage=2\t200\t5120\t"
      "0.012\t0.010\tcurl/8.5.0\t-\t-\t-\n");
  s.clear();
  append_tsv(s, sample());
  EXPECT_EQ(s.substr(0, 18), "1764443039.123456\t");
  EXPECT_NE(s.find("\t0.012000\t-\t"), std::string::npos) << s;
}

TEST(AccessLogWrite, EscapesDashesAndMethods) {
  AccessLogRecord r = sample();
  r.referer = "-";
  r.user_agent = "";
  r.path = std::string_view("/a\tb\\c\x01\x7f\n\r", 10);
  r.method = Method::other;
  r.action = Action::ratelimit;
  std::string s;
  TsvWriteOptions o;
  o.other_method = "PROPFIND";
  append_tsv(s, r, o);
  EXPECT_NE(s.find("\tPROPFIND\t"), std::string::npos) << s;
  EXPECT_NE(s.find("\t/a\\tb\\\\c\\x01\\x7f\\n\\r\t"), std::string::npos) << s;
  EXPECT_NE(s.find("\t-\t\\x2d\t-\tratelimit\n"), std::string::npos) << s;
  const AccessLogRecord back = one_record(s);
  EXPECT_EQ(unescape_copy(Format::tsv, back.referer), "-");
  EXPECT_TRUE(back.user_agent.empty());
  EXPECT_EQ(unescape_copy(Format::tsv, back.path), r.path);
  EXPECT_EQ(back.method, Method::other);
  for (std::string_view bad : {"", "propfind", "ABCDEFGHIJKLMNOPQ", "M-SEARCH"}) {
    s.clear();
    o.other_method = bad;
    append_tsv(s, r, o);
    EXPECT_NE(s.find("\tOTHER\t"), std::string::npos) << bad;
  }
  EXPECT_EQ(method_for_log("DELETE"), Method::del);
  EXPECT_EQ(method_for_log("M-SEARCH"), Method::other);
}

TEST(AccessLogWrite, LongLinesAreCutIntoValidLines) {
  const std::string ua(20000, '\t');  // 40,000 bytes escaped
  const std::string referer = std::string(3000, 'r') + "\x01";
  std::string raw_query;
  for (int i = 0; i < 3000; ++i) raw_query += "\\x41";
  AccessLogRecord r = sample();
  r.user_agent = ua;
  r.referer = referer;
  r.query = raw_query;
  r.escaped = kEscQuery;
  std::vector<char> buf(8192);
  const std::size_t n = write_tsv(buf, r);
  ASSERT_GT(n, 0u);
  ASSERT_LE(n, buf.size());
  EXPECT_GT(n, buf.size() - 8);  // the room is used, up to a cut escape's few bytes
  const std::string_view line(buf.data(), n);
  const AccessLogRecord back = one_record(line);
  EXPECT_EQ(back.host, r.host);  // short fields are whole
  EXPECT_EQ(back.path, r.path);
  EXPECT_EQ(back.status, r.status);
  EXPECT_EQ(back.request_time_us, r.request_time_us);
  const std::string back_ua = unescape_copy(Format::tsv, back.user_agent);
  EXPECT_LT(back_ua.size(), ua.size());
  EXPECT_EQ(back_ua, std::string(back_ua.size(), '\t'));
  EXPECT_EQ(back.query.size() % 4, 0u);  // raw escapes are never split
}

TEST(AccessLogWrite, TooSmallABufferWritesNothing) {
  std::array<char, kTsvMinLine - 1> small;
  EXPECT_EQ(write_tsv(small, sample()), 0u);
  std::array<char, kTsvMinLine> enough;
  AccessLogRecord r = sample();
  const std::string big(5000, 'x');
  r.host = r.path = r.query = r.user_agent = r.referer = r.rule_id = big;
  const std::size_t n = write_tsv(enough, r);
  ASSERT_GT(n, 0u);
  EXPECT_EQ(one_record(std::string_view(enough.data(), n)).status, 200);
}

TEST(AccessLogWrite, WritingAllocatesNothing) {
  const auto requests = fixtures::generate_requests(2000, 3, {.hostile = 0.25});
  const std::string log = fixtures::write_log(requests, Format::tsv);
  Parsed p = parse_all(log, requests.size() + 1);
  std::vector<char> buf(1 << 16);
  std::string appended;
  appended.reserve(log.size() * 3);
  const std::size_t before = gatebench::testing::g_allocations.load();
  std::size_t total = 0;
  for (const AccessLogRecord& r : p.records) {
    total += write_tsv(buf, r);
    append_tsv(appended, r);
  }
  EXPECT_EQ(gatebench::testing::g_allocations.load(), before);
  EXPECT_EQ(total, appended.size());
}

}  // namespace
}  // namespace gatebench::access_log
