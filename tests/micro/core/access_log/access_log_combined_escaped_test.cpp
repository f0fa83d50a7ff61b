// combined lines with \xHH escapes in their quoted fields, which the fast path parses from the
// index (parse_escaped) instead of leaving them to the careful path: generated lines with valid
// and invalid escapes in each quoted field and outside them, many escapes (more than the index
// holds), long fields and broken quoting, against the careful path line by line and against
// the RE2 peer.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "fixtures/rng.hpp"
#include "micro/core/access_log/access_log.hpp"
#include "micro/peers/access_log_re2.hpp"
#include "tests/micro/core/access_log/access_log_expect.hpp"

namespace gatebench::access_log {
namespace {

constexpr Format kCombined = Format::combined;

constexpr std::array<std::string_view, 8> kValid = {
    "\\x22", "a\\x5Cb", "caf\\xC3\\xa9", "\\x00", "\\x7f-", "%\\x0A\\x0d", "\\xFF\\xfe", "-\\x2d"};
constexpr std::array<std::string_view, 8> kInvalid = {"\\x4",  "\\q",  "\\xg1",    "\\",
                                                      "\\X41", "a\\x", "\\x\\x41", "\\\\"};
constexpr std::array<std::string_view, 6> kPlain = {
    "-", "", "x", "Mozilla/5.0 (X11; Linux x86_64)", "https://ref.example/?a=b", "- -"};

// Up to ~700 escapes: more than the index holds at once (512 entries).
std::string many_escapes(fixtures::Rng& rng) {
  std::string s;
  const std::uint64_t n = rng.chance(1, 2) ? rng.between(5, 150) : rng.between(150, 700);
  for (std::uint64_t i = 0; i < n; ++i) s += rng.chance(1, 2) ? "\\x41" : "z\\xc3";
  return s;
}

std::string long_field(fixtures::Rng& rng) {
  std::string s(rng.between(200, 3000), 'a');
  for (std::uint64_t i = rng.below(4); i > 0; --i) {
    s.insert(rng.below(s.size() + 1), kValid[rng.below(kValid.size())]);
  }
  return s;
}

// A quoted field's text: plain, with valid escapes, now and then an invalid one.
std::string text(fixtures::Rng& rng) {
  const std::uint64_t shape = rng.below(20);
  if (shape < 7) return std::string(kPlain[rng.below(kPlain.size())]);
  if (shape < 14) {
    std::string s;
    for (std::uint64_t i = rng.between(1, 3); i > 0; --i) {
      s += kPlain[rng.below(kPlain.size())];
      s += kValid[rng.below(kValid.size())];
    }
    return s;
  }
  if (shape < 16) return many_escapes(rng);
  if (shape < 18) return long_field(rng);
  return "ab" + std::string(kInvalid[rng.below(kInvalid.size())]) + "cd";
}

// The target, with escapes in the path, the query, both, or around the '?' that splits them.
std::string target(fixtures::Rng& rng) {
  std::string t = "/" + text(rng);
  if (rng.chance(2, 3)) t += "?" + text(rng);
  if (rng.chance(1, 10)) t += " " + text(rng);  // nginx logs spaces in the target raw
  if (rng.chance(1, 30)) t.clear();
  return t;
}

std::string request(fixtures::Rng& rng) {
  static constexpr std::array<std::string_view, 6> kMethods = {"GET",      "POST",   "HEAD",
                                                               "PROPFIND", "G\\x41", "get"};
  static constexpr std::array<std::string_view, 4> kProtocols = {"HTTP/1.1", "HTTP/2.0",
                                                                 "HTTP/1.\\x31", "HTTP/1"};
  return std::string(kMethods[rng.chance(9, 10) ? rng.below(3) : rng.below(kMethods.size())]) +
         " " + target(rng) + " " +
         std::string(kProtocols[rng.chance(19, 20) ? rng.below(2) : rng.below(kProtocols.size())]);
}

std::string line(fixtures::Rng& rng) {
  static constexpr std::array<std::string_view, 4> kUsers = {"-", "alice", "a\\x41", "\\"};
  static constexpr std::array<std::string_view, 3> kTimes = {
      "10/Oct/2000:13:55:36 -0700", "10/Oct/2000:13:55:37 -0700", "11/Oct/2000:00:00:00 +0000"};
  const std::string ip = std::to_string(rng.below(256)) + "." + std::to_string(rng.below(256)) +
                         "." + std::to_string(rng.below(256)) + "." +
                         std::to_string(rng.below(256));
  std::string status = std::to_string(rng.between(100, 599));
  if (rng.chance(1, 40)) status = "2\\x30";  // an escape outside the quotes
  std::string l =
      ip + " - " +
      std::string(kUsers[rng.chance(15, 16) ? rng.below(2) : rng.below(kUsers.size())]) + " [" +
      std::string(kTimes[rng.below(kTimes.size())]) + "] \"" + request(rng) + "\" " + status + " " +
      std::to_string(rng.below(100000)) + " \"" + text(rng) + "\" \"" + text(rng) + "\"";
  if (rng.chance(1, 40)) l += " \"" + text(rng) + "\"";  // a quoted field too many
  if (rng.chance(1, 40)) l.insert(rng.below(l.size() + 1), "\"");
  if (rng.chance(1, 40)) l.erase(l.rfind('"'), 1);
  return l;
}

// The same outcome as a line parsed alone: a line without '\n' at the buffer's end takes the
// careful path (the index cannot give it a newline).
void expect_as_careful(std::string_view line, bool ok, const AccessLogRecord& got,
                       const AccessLogError* error, std::size_t at) {
  AccessLogRecord r[1];
  AccessLogError e[1];
  const BatchResult alone = parse_combined(line, r, e);
  ASSERT_EQ(alone.records + alone.errors, 1u) << line;
  ASSERT_EQ(ok, alone.records == 1) << "fast and careful path disagree on: " << line;
  if (ok) {
    ASSERT_TRUE(got == r[0]) << "fast and careful path disagree on: " << line;
  } else {
    ASSERT_EQ(error->reason, e[0].reason) << line;
    ASSERT_EQ(error->offset - at, e[0].offset) << line;
  }
}

TEST(AccessLogCombinedEscaped, FastPathAgreesWithCarefulPathAndRe2) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("access_log_combined_escaped");
  const peers::Re2AccessLogParser re2(kCombined);
  std::size_t accepted = 0;
  std::size_t rejected = 0;
  std::uint8_t bits_seen = 0;
  std::size_t escaped = 0;
  for (int round = 0; round < 24; ++round) {
    // A few lines up to a few thousand, so the index refills mid-line and the last line may
    // lack its '\n'.
    const std::uint64_t lines = round < 12 ? rng.between(2, 8) : rng.between(500, 2000);
    std::vector<std::string> text_of(lines);
    std::vector<std::size_t> start(lines);
    std::string log;
    for (std::uint64_t i = 0; i < lines; ++i) {
      text_of[i] = line(rng);
      start[i] = log.size();
      log += text_of[i];
      if (i + 1 < lines || rng.chance(1, 2)) log += '\n';
    }
    std::vector<AccessLogRecord> ra(lines + 1), rb(lines + 1);
    std::vector<AccessLogError> ea(lines + 1), eb(lines + 1);
    const BatchResult a = parse_combined(log, ra, ea);
    const BatchResult b = re2.parse(log, rb, eb);
    ASSERT_EQ(a.consumed, log.size());
    ASSERT_EQ(a.records + a.errors, lines);
    ASSERT_EQ(a.records, b.records);
    ASSERT_EQ(a.errors, b.errors);
    for (std::size_t i = 0; i < a.errors; ++i) {
      ASSERT_EQ(ea[i].line_offset, eb[i].line_offset) << log.substr(ea[i].line_offset, 300);
    }
    std::size_t ir = 0, ie = 0;
    for (std::uint64_t i = 0; i < lines; ++i) {
      const bool ok = ie == a.errors || ea[ie].line_offset != start[i];
      if (ok) {
        ASSERT_TRUE(ra[ir] == rb[ir]) << "gatecore and RE2 disagree on: " << text_of[i];
        bits_seen |= ra[ir].escaped;
        escaped += ra[ir].escaped != 0;
      }
      expect_as_careful(text_of[i], ok, ok ? ra[ir] : AccessLogRecord{}, ok ? nullptr : &ea[ie],
                        start[i]);
      if (::testing::Test::HasFatalFailure()) return;
      (ok ? ir : ie) += 1;
    }
    accepted += a.records;
    rejected += a.errors;
  }
  // The draws reach every outcome: escaped records with each bit, and rejections.
  EXPECT_GT(escaped, 3'000u);
  EXPECT_GT(rejected, 1'000u);
  EXPECT_GT(accepted, escaped);
  EXPECT_EQ(bits_seen, kEscPath | kEscQuery | kEscReferer | kEscUserAgent);
}

struct Parts {
  std::string request = "GET /v1/items?page=2 HTTP/1.1";
  std::string referer = "-";
  std::string user_agent = "curl/8.5.0";

  std::string line() const {
    return "203.0.113.7 - alice [10/Oct/2000:13:55:36 -0700] \"" + request + "\" 200 5120 \"" +
           referer + "\" \"" + user_agent + "\"";
  }
};

// parse_one runs each line alone (careful path), first in a buffer and as its second line.
std::uint8_t escaped_bits(const Parts& p) {
  const auto one = testing::parse_one(kCombined, p.line());
  EXPECT_TRUE(one.ok) << p.line();
  return one.record.escaped;
}

TEST(AccessLogCombinedEscaped, EachFieldsBit) {
  Parts p;
  p.request = "GET /a\\x20b HTTP/1.1";
  EXPECT_EQ(escaped_bits(p), kEscPath);
  p.request = "GET /a\\x20b?q=1 HTTP/1.1";
  EXPECT_EQ(escaped_bits(p), kEscPath);
  p.request = "GET /a?q=\\x20 HTTP/1.1";
  EXPECT_EQ(escaped_bits(p), kEscQuery);
  p.request = "GET \\x2F?\\x3F HTTP/1.1";  // right before and right after the '?'
  EXPECT_EQ(escaped_bits(p), kEscPath | kEscQuery);
  p.request = "GET /a?b\\x3F?c HTTP/1.1";  // an escaped '?' does not split the target
  EXPECT_EQ(escaped_bits(p), kEscQuery);
  p.request = "GET /a b\\x22?c HTTP/1.1";
  EXPECT_EQ(escaped_bits(p), kEscPath);
  p = Parts();
  p.referer = "https://x.example/\\xC3\\xA9";
  EXPECT_EQ(escaped_bits(p), kEscReferer);
  p.referer = "\\x2D";  // an escaped dash is not the empty "-"
  const auto one = testing::parse_one(kCombined, p.line());
  EXPECT_EQ(one.record.referer, "\\x2D");
  p = Parts();
  p.user_agent = "\\x00";
  EXPECT_EQ(escaped_bits(p), kEscUserAgent);
  p.request = "POST /\\x41?\\x42 HTTP/2.0";
  p.referer = "\\x43";
  EXPECT_EQ(escaped_bits(p), kEscPath | kEscQuery | kEscReferer | kEscUserAgent);
}

TEST(AccessLogCombinedEscaped, InvalidEscapesAndBackslashesOutsideQuotes) {
  for (const char* ua : {"a\\x4", "\\q", "\\xg1", "\\X41", "\\x", "ok\\x41 then \\x4z"}) {
    Parts p;
    p.user_agent = ua;
    EXPECT_EQ(testing::reason_of(kCombined, p.line()), ErrorReason::bad_escape) << ua;
    p = Parts();
    p.request = std::string("GET /") + ua + " HTTP/1.1";
    EXPECT_EQ(testing::reason_of(kCombined, p.line()), ErrorReason::bad_escape) << ua;
  }
  Parts p;
  p.request = "G\\x45T / HTTP/1.1";
  EXPECT_EQ(testing::reason_of(kCombined, p.line()), ErrorReason::bad_method);
  p.request = "GET / HTTP/1.\\x31";
  EXPECT_EQ(testing::reason_of(kCombined, p.line()), ErrorReason::bad_request_line);
  // A backslash in $remote_user is a token like any other (not an escape); in $status it is not
  // a digit.
  std::string user = Parts().line();
  user.replace(user.find("alice"), 5, "a\\lice");
  EXPECT_TRUE(testing::parse_one(kCombined, user).ok);
  std::string status = Parts().line();
  status.replace(status.find(" 200 "), 5, " 2\\x30 ");
  EXPECT_EQ(testing::reason_of(kCombined, status), ErrorReason::bad_status);
}

}  // namespace
}  // namespace gatebench::access_log
