// gatecore's request-head parser against the naive peer on generated heads (valid ones, every
// smuggling and malformed shape, random edits, every cut), and the error paths one by one.
#include <gtest/gtest.h>

#include <string>

#include "micro/core/http1/request_head.hpp"
#include "micro/peers/http1_naive.hpp"
#include "tests/micro/core/http1/http1_generate.hpp"

namespace gatebench::http1 {
namespace {

// Every field of the result against the naive parse; "" when they agree.
std::string differ(std::string_view buf, HeadStatus st, const RequestHead& h,
                   const peers::NaiveHead& n) {
  if (st != n.status) {
    return "status " + std::to_string(static_cast<int>(st)) + " vs naive " +
           std::to_string(static_cast<int>(n.status));
  }
  if (st != HeadStatus::kComplete) return "";
  if (h.method != n.method || h.target != n.target) return "request line";
  if (h.minor_version != n.minor_version) return "version";
  if (h.head_len != n.head_len) return "head_len";
  if (h.host != n.host || h.cookie != n.cookie || h.user_agent != n.user_agent ||
      h.referer != n.referer) {
    return "known header values";
  }
  if (h.body != n.body || h.content_length != n.content_length) return "framing";
  if (h.keep_alive != n.keep_alive || h.expect_continue != n.expect_continue) return "options";
  if (h.is_head != (n.method == "HEAD")) return "is_head";
  if (h.fields.count != n.fields.size()) return "field count";
  for (std::size_t i = 0; i < n.fields.size(); ++i) {
    const HeaderLine& f = h.fields.lines[i];
    const peers::NaiveField& g = n.fields[i];
    std::string name(buf.substr(f.line_off, f.name_len));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name != g.name || buf.substr(f.value_off, f.value_len) != g.value ||
        f.line_off != g.line_off || f.line_len != g.line_len ||
        f.named_in_connection != g.hop_by_hop || f.kind != classify_header(g.name)) {
      return "field " + std::to_string(i);
    }
  }
  return "";
}

TEST(Http1Request, MatchesNaiveOnGeneratedHeads) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("http1-request");
  int complete = 0, bad = 0, too_large = 0;
  for (int i = 0; i < 40000; ++i) {
    const std::string s = testing::generate_head(rng, true);
    const std::size_t max_head = rng.chance(1, 10) ? 16 + rng.below(200) : 8192;
    // The whole buffer, one cut of it (a head still arriving), and the whole one with body
    // bytes behind it, so that the 32-byte loads of the fast paths reach every line.
    const std::string padded = s + std::string(48, 'b');
    for (std::string_view buf :
         {std::string_view(s), std::string_view(s).substr(0, rng.below(s.size())),
          std::string_view(padded)}) {
      RequestHead h;
      const HeadStatus st = parse_request_head(buf, max_head, h);
      const peers::NaiveHead n = peers::naive_parse_request(buf, max_head);
      const std::string d = differ(buf, st, h, n);
      ASSERT_EQ(d, "") << i << ": " << ::testing::PrintToString(std::string(buf));
      if (st == HeadStatus::kBad || st == HeadStatus::kTooLarge) {
        ASSERT_NE(h.error, nullptr) << i;
        ASSERT_EQ(h.error_status, st == HeadStatus::kBad ? 400 : 431) << i;
      }
      complete += st == HeadStatus::kComplete;
      bad += st == HeadStatus::kBad;
      too_large += st == HeadStatus::kTooLarge;
    }
  }
  // The generator reaches every outcome often enough for the comparison to mean something.
  EXPECT_GT(complete, 4000);
  EXPECT_GT(bad, 10000);
  EXPECT_GT(too_large, 1000);
}

TEST(Http1Request, EveryPrefixOfAValidHeadIsIncomplete) {
  const std::string s =
      "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nX-Long: " + std::string(100, 'v') +
      "\r\n\r\nabc";
  RequestHead h;
  for (std::size_t n = 0; n < s.size() - 3; ++n) {
    EXPECT_EQ(parse_request_head(std::string_view(s).substr(0, n), 8192, h),
              HeadStatus::kIncomplete)
        << n;
  }
  ASSERT_EQ(parse_request_head(s, 8192, h), HeadStatus::kComplete);
  EXPECT_EQ(h.head_len, s.size() - 3);
}

// Values and names at every length around the vector scans' 16- and 32-byte steps, with a bad
// byte at each position: the scan must find it wherever it falls. Each head is parsed alone (the
// scans' tails) and with body bytes behind it (their full-width loads).
TEST(Http1Request, ControlBytesAtEveryOffsetOfAValue) {
  for (const std::string tail : {"", "0123456789abcdef0123456789abcdef0123456789abcdef"}) {
    for (std::size_t len = 0; len < 80; ++len) {
      const std::string value(len, 'v');
      const std::string prefix = "GET / HTTP/1.1\r\nHost: h\r\nX: ";
      const std::string good = prefix + value + "\r\n\r\n" + tail;
      RequestHead h;
      ASSERT_EQ(parse_request_head(good, 8192, h), HeadStatus::kComplete) << len;
      ASSERT_EQ(h.fields.lines[1].value_len, len);
      ASSERT_EQ(h.head_len, good.size() - tail.size());
      for (std::size_t at = 0; at < len; ++at) {
        for (char bad : {'\x01', '\x7f', '\r', '\n', '\x1f'}) {
          std::string s = good;
          s[prefix.size() + at] = bad;
          const peers::NaiveHead n = peers::naive_parse_request(s, 8192);
          ASSERT_EQ(parse_request_head(s, 8192, h), n.status)
              << len << " " << at << " " << int(bad);
          ASSERT_EQ(n.status, HeadStatus::kBad) << len << " " << at;
        }
      }
    }
  }
}

// A name of every length to 80 (the 32-byte window holds the names up to 31 bytes), with a
// byte that is not a token byte at each position.
TEST(Http1Request, NameStopsAtEveryOffset) {
  for (const std::string tail : {"", "0123456789abcdef0123456789abcdef0123456789abcdef"}) {
    for (std::size_t len = 1; len < 80; ++len) {
      const std::string prefix = "GET / HTTP/1.1\r\nHost: h\r\n";
      const std::string good = prefix + std::string(len, 'n') + ": v\r\n\r\n" + tail;
      RequestHead h;
      ASSERT_EQ(parse_request_head(good, 8192, h), HeadStatus::kComplete) << len;
      ASSERT_EQ(h.fields.lines[1].name_len, len);
      ASSERT_EQ(h.fields.lines[1].value_len, 1u);
      for (std::size_t at = 0; at < len; ++at) {
        for (char bad : {' ', '\t', '@', '\x01', '\x80', '\r', '\n'}) {
          std::string s = good;
          s[prefix.size() + at] = bad;
          const peers::NaiveHead n = peers::naive_parse_request(s, 8192);
          ASSERT_EQ(parse_request_head(s, 8192, h), n.status)
              << len << " " << at << " " << int(bad);
          ASSERT_EQ(n.status, HeadStatus::kBad) << len << " " << at << " " << int(bad);
        }
      }
    }
  }
}

TEST(Http1Request, TargetStopsAtEveryOffset) {
  for (std::size_t len = 1; len < 70; ++len) {
    std::string good(len, 't');
    good[0] = '/';
    const std::string whole = "GET " + good + " HTTP/1.1\r\nHost: h\r\n\r\n";
    RequestHead ok;
    ASSERT_EQ(parse_request_head(whole, 8192, ok), HeadStatus::kComplete) << len;
    ASSERT_EQ(ok.target, good);
    for (std::size_t at = 0; at < len; ++at) {
      std::string target(len, 't');
      target[0] = '/';
      for (char bad : {' ', '\t', '\x01', '\x7f'}) {
        std::string t = target;
        t[at] = bad;
        const std::string s = "GET " + t + " HTTP/1.1\r\nHost: h\r\n\r\n";
        RequestHead h;
        ASSERT_EQ(parse_request_head(s, 8192, h), HeadStatus::kBad) << len << " " << at;
        ASSERT_STRNE(h.error, nullptr);
      }
    }
  }
}

struct Rejected {
  const char* head;
  HeadStatus status;
  const char* error;
};

// The message of each rule, as the gateway sends it in its 400 and 431 bodies.
TEST(Http1Request, ErrorMessages) {
  const std::string many = [] {
    std::string s = "GET / HTTP/1.1\r\nHost: a\r\n";
    for (int i = 0; i < 100; ++i) s += "X: 1\r\n";
    return s + "\r\n";
  }();
  const Rejected cases[] = {
      {"GET / HTTP/1.1\nHost: a\r\n\r\n", HeadStatus::kBad, "bare LF in request line"},
      {"GET /a\x01b HTTP/1.1\r\nHost: a\r\n\r\n", HeadStatus::kBad, "bad request target"},
      {"GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", HeadStatus::kBad, "unsupported HTTP version"},
      {"GET  / HTTP/1.1\r\nHost: a\r\n\r\n", HeadStatus::kBad, "bad request line"},
      {"GET /\r\nHost: a\r\n\r\n", HeadStatus::kBad, "bad request line"},
      {"G@T / HTTP/1.1\r\nHost: a\r\n\r\n", HeadStatus::kBad, "bad method"},
      {"GET / HTTP/1.2\r\nHost: a\r\n\r\n", HeadStatus::kBad, "unsupported HTTP version"},
      {"GET / HTTP/1.1\r\nHost: a\n\r\n", HeadStatus::kBad, "bare LF in header section"},
      {"GET / HTTP/1.1\r\nHost: a\r\n x\r\n\r\n", HeadStatus::kBad, "obsolete line folding"},
      {"GET / HTTP/1.1\r\nHost : a\r\n\r\n", HeadStatus::kBad, "malformed header name"},
      {"GET / HTTP/1.1\r\nHost: a\x01\r\n\r\n", HeadStatus::kBad,
       "control character in header value"},
      {"GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", HeadStatus::kBad, "duplicate Host header"},
      {"GET / HTTP/1.1\r\n\r\n", HeadStatus::kBad, "missing Host header"},
      {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n", HeadStatus::kBad,
       "invalid Content-Length"},
      {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
       HeadStatus::kBad, "conflicting Content-Length headers"},
      {"GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: "
       "chunked\r\n\r\n",
       HeadStatus::kBad, "duplicate Transfer-Encoding header"},
      {"GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", HeadStatus::kBad,
       "unsupported Transfer-Encoding"},
      {"GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n",
       HeadStatus::kBad, "both Content-Length and Transfer-Encoding"},
      {"GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", HeadStatus::kBad,
       "Transfer-Encoding in an HTTP/1.0 request"},
      {many.c_str(), HeadStatus::kTooLarge, "too many header fields"},
  };
  for (const Rejected& c : cases) {
    RequestHead h;
    EXPECT_EQ(parse_request_head(c.head, 8192, h), c.status) << c.head;
    EXPECT_STREQ(h.error, c.error) << c.head;
  }
  RequestHead h;
  EXPECT_EQ(parse_request_head(std::string(100, 'G'), 64, h), HeadStatus::kTooLarge);
  EXPECT_STREQ(h.error, "request line too long");
  EXPECT_EQ(parse_request_head("GET / HTTP/1.1\r\nX: " + std::string(100, 'v'), 64, h),
            HeadStatus::kTooLarge);
  EXPECT_STREQ(h.error, "header section too large");
}

TEST(Http1Request, CloseWinsOverKeepAlive) {
  RequestHead h;
  ASSERT_EQ(parse_request_head("GET / HTTP/1.0\r\nConnection: close, keep-alive\r\n\r\n", 8192, h),
            HeadStatus::kComplete);
  EXPECT_FALSE(h.keep_alive);
  ASSERT_EQ(parse_request_head("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 8192, h),
            HeadStatus::kComplete);
  EXPECT_TRUE(h.keep_alive);
}

}  // namespace
}  // namespace gatebench::http1
