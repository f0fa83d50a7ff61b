// The gateway's message-head scanners and the chunked-body scanner: accepted forms, every
// rejection (request smuggling shapes included), and a differential test of the chunked scanner
// against the naive peer (micro/peers/http1_naive) on generated bodies split at random points.
#include "macro/gateway/http_head.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "fixtures/rng.hpp"
#include "micro/peers/http1_naive.hpp"

namespace gw = gatebench::gateway;
using gw::BodyKind;
using gw::HeadStatus;

namespace {

HeadStatus parse(const std::string& s, gw::RequestHead& h, std::size_t max = 8192) {
  return gw::parse_request_head(s, max, h);
}

TEST(RequestHead, ParsesRequestLineAndKnownHeaders) {
  gw::RequestHead h;
  std::string s =
      "GET /a?b=1 HTTP/1.1\r\nHost: example.test:8080\r\nUser-Agent: ua/1\r\n"
      "Cookie: x=1; gb_pass=abc\r\nX-Custom:  v  \r\n\r\nrest";
  ASSERT_EQ(parse(s, h), HeadStatus::kComplete);
  EXPECT_EQ(h.method, "GET");
  EXPECT_EQ(h.target, "/a?b=1");
  EXPECT_EQ(h.host, "example.test:8080");
  EXPECT_EQ(h.user_agent, "ua/1");
  EXPECT_EQ(h.cookie, "x=1; gb_pass=abc");
  EXPECT_EQ(h.head_len, s.size() - 4);
  EXPECT_EQ(h.body, BodyKind::kNone);
  EXPECT_TRUE(h.keep_alive);
  ASSERT_EQ(h.fields.count, 4);
  const auto& custom = h.fields.lines[3];
  EXPECT_EQ(s.substr(custom.value_off, custom.value_len), "v");
}

TEST(RequestHead, IncompleteUntilEmptyLine) {
  gw::RequestHead h;
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nHost: a\r\n", h), HeadStatus::kIncomplete);
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nHost: a\r\n\r", h), HeadStatus::kIncomplete);
  EXPECT_EQ(parse("GET / HTT", h), HeadStatus::kIncomplete);
}

TEST(RequestHead, Framing) {
  gw::RequestHead h;
  ASSERT_EQ(parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n", h),
            HeadStatus::kComplete);
  EXPECT_EQ(h.body, BodyKind::kLength);
  EXPECT_EQ(h.content_length, 12u);
  ASSERT_EQ(parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n", h),
            HeadStatus::kComplete);
  EXPECT_EQ(h.body, BodyKind::kChunked);
  // Identical duplicates are one length (RFC 9112 6.3 allows accepting them).
  ASSERT_EQ(
      parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n", h),
      HeadStatus::kComplete);
  EXPECT_EQ(h.content_length, 3u);
  ASSERT_EQ(parse("GET / HTTP/1.0\r\n\r\n", h), HeadStatus::kComplete);
  EXPECT_FALSE(h.keep_alive);
  ASSERT_EQ(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", h), HeadStatus::kComplete);
  EXPECT_TRUE(h.keep_alive);
  ASSERT_EQ(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", h),
            HeadStatus::kComplete);
  EXPECT_FALSE(h.keep_alive);
}

TEST(RequestHead, ConnectionTokensMarkHopByHopHeaders) {
  gw::RequestHead h;
  std::string s = "GET / HTTP/1.1\r\nHost: a\r\nX-Secret: 1\r\nConnection: x-secret\r\n\r\n";
  ASSERT_EQ(parse(s, h), HeadStatus::kComplete);
  EXPECT_TRUE(h.fields.lines[1].named_in_connection);
  EXPECT_FALSE(h.fields.lines[0].named_in_connection);
}

struct BadCase {
  const char* name;
  std::string head;
  std::uint16_t status;
};

TEST(RequestHead, RejectsSmugglingAndMalformedHeads) {
  const BadCase cases[] = {
      {"cl+te",
       "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
       400},
      {"te+cl",
       "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
       400},
      {"cl differs", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
       400},
      {"cl list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n", 400},
      {"cl sign", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", 400},
      {"te gzip", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 400},
      {"te twice",
       "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: "
       "chunked\r\n\r\n",
       400},
      {"te xchunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n", 400},
      {"te in 1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"space before colon", "GET / HTTP/1.1\r\nHost: a\r\nContent-Length : 5\r\n\r\n", 400},
      {"obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n 2\r\n\r\n", 400},
      {"bare LF", "GET / HTTP/1.1\nHost: a\n\n", 400},
      {"bare LF in headers", "GET / HTTP/1.1\r\nHost: a\n\r\n", 400},
      {"no host", "GET / HTTP/1.1\r\n\r\n", 400},
      {"two hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
      {"version", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 400},
      {"control in value", std::string("GET / HTTP/1.1\r\nHost: a\r\nX: a\x01z\r\n\r\n"), 400},
      {"space in target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"empty method", " / HTTP/1.1\r\nHost: a\r\n\r\n", 400},
  };
  for (const BadCase& c : cases) {
    gw::RequestHead h;
    EXPECT_EQ(parse(c.head, h), HeadStatus::kBad) << c.name;
    EXPECT_EQ(h.error_status, c.status) << c.name;
    EXPECT_NE(h.error, nullptr) << c.name;
  }
}

TEST(RequestHead, OversizedHeadIs431) {
  gw::RequestHead h;
  std::string big = "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + std::string(9000, 'x') + "\r\n\r\n";
  EXPECT_EQ(parse(big, h, 8192), HeadStatus::kTooLarge);
  EXPECT_EQ(h.error_status, 431);
  // Still incomplete but already over the limit: no need to wait for the rest.
  EXPECT_EQ(parse(big.substr(0, 8500), h, 8192), HeadStatus::kTooLarge);
  std::string many = "GET / HTTP/1.1\r\nHost: a\r\n";
  for (int i = 0; i < 150; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  many += "\r\n";
  EXPECT_EQ(parse(many, h, 65536), HeadStatus::kTooLarge);
  EXPECT_EQ(h.error_status, 431);
}

TEST(ResponseHead, FramingAndKeepAlive) {
  gw::ResponseHead r;
  std::string s = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
  ASSERT_EQ(gw::parse_response_head(s, 16384, false, r), HeadStatus::kComplete);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, BodyKind::kLength);
  EXPECT_TRUE(r.keep_alive);
  ASSERT_EQ(gw::parse_response_head(s, 16384, true, r), HeadStatus::kComplete);
  EXPECT_EQ(r.body, BodyKind::kNone);  // response to HEAD
  s = "HTTP/1.1 204 No Content\r\n\r\n";
  ASSERT_EQ(gw::parse_response_head(s, 16384, false, r), HeadStatus::kComplete);
  EXPECT_EQ(r.body, BodyKind::kNone);
  s = "HTTP/1.0 200 OK\r\n\r\n";
  ASSERT_EQ(gw::parse_response_head(s, 16384, false, r), HeadStatus::kComplete);
  EXPECT_EQ(r.body, BodyKind::kUntilClose);
  EXPECT_FALSE(r.keep_alive);
  s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n";
  ASSERT_EQ(gw::parse_response_head(s, 16384, false, r), HeadStatus::kComplete);
  EXPECT_EQ(r.body, BodyKind::kChunked);
  s = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n";
  EXPECT_EQ(gw::parse_response_head(s, 16384, false, r), HeadStatus::kBad);
  s = "HTTP/1.1 2x0 OK\r\n\r\n";
  EXPECT_EQ(gw::parse_response_head(s, 16384, false, r), HeadStatus::kBad);
  s = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n";
  EXPECT_EQ(gw::parse_response_head(s, 16384, false, r), HeadStatus::kBad);
}

// ---- chunked scanner -------------------------------------------------------------------

std::string generate_chunked(gatebench::fixtures::Rng& rng) {
  std::string s;
  int chunks = static_cast<int>(rng.below(5));
  for (int i = 0; i < chunks; ++i) {
    std::size_t n = 1 + rng.below(300);
    char hexbuf[16];
    std::snprintf(hexbuf, sizeof hexbuf, rng.chance(1, 2) ? "%zx" : "%zX", n);
    s += hexbuf;
    if (rng.chance(1, 5)) s += ";ext=1";
    s += "\r\n";
    for (std::size_t k = 0; k < n; ++k) s += static_cast<char>(rng.below(256));
    s += "\r\n";
  }
  s += "0\r\n";
  if (rng.chance(1, 4)) s += "X-Trailer: t\r\n";
  s += "\r\n";
  // Corrupt some inputs so both sides must reject them alike.
  if (rng.chance(1, 4) && !s.empty()) {
    std::size_t at = rng.below(s.size());
    const char repl[] = {'\r', '\n', 'g', ' ', '0', ';'};
    s[at] = repl[rng.below(sizeof repl)];
  }
  s += "NEXT";  // bytes of the next message must not be consumed
  return s;
}

TEST(ChunkedScanner, MatchesNaiveDecoderOnGeneratedBodies) {
  gatebench::fixtures::Rng rng(gatebench::fixtures::kDefaultSeed);
  int disagreements = 0;
  int complete = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s = generate_chunked(rng);
    std::optional<std::size_t> want = gatebench::peers::naive_chunked_length(s);
    gw::ChunkedScanner sc;
    std::size_t consumed = 0;
    std::size_t pos = 0;
    // Feed in random slices, as reads would deliver them.
    while (pos < s.size() && !sc.done() && !sc.error()) {
      std::size_t n = 1 + rng.below(64);
      if (pos + n > s.size()) n = s.size() - pos;
      std::size_t used = sc.feed(std::string_view(s).substr(pos, n));
      consumed += used;
      pos += n;
      if (used < n) break;
    }
    if (want) {
      ++complete;
      if (!sc.done() || consumed != *want) {
        if (++disagreements < 3)
          ADD_FAILURE() << "naive accepts " << *want << ": " << ::testing::PrintToString(s);
      }
    } else if (sc.done()) {
      if (++disagreements < 3) ADD_FAILURE() << "naive rejects: " << ::testing::PrintToString(s);
    }
  }
  EXPECT_EQ(disagreements, 0);
  EXPECT_GT(complete, 10000);
}

TEST(ChunkedScanner, Errors) {
  for (std::string bad :
       {"x\r\n", "5\r\nabcdeXY", "5\n", "\r\n", "0\r\n\n", "1234567890123456\r\n"}) {
    gw::ChunkedScanner sc;
    sc.feed(bad);
    EXPECT_TRUE(sc.error()) << bad;
  }
}

}  // namespace
