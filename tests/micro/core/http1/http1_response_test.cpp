// gatecore's response-head parser against the naive peer on generated heads, and the two entry
// points (with and without the header lines) against each other.
#include <gtest/gtest.h>

#include <string>

#include "micro/core/http1/response_head.hpp"
#include "micro/peers/http1_naive.hpp"
#include "tests/micro/core/http1/http1_generate.hpp"

namespace gatebench::http1 {
namespace {

TEST(Http1Response, MatchesNaiveOnGeneratedHeads) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("http1-response");
  int complete = 0, bad = 0;
  for (int i = 0; i < 40000; ++i) {
    const std::string s = testing::generate_head(rng, false);
    const std::size_t max_head = rng.chance(1, 10) ? 16 + rng.below(200) : 16384;
    const bool head_request = rng.chance(1, 8);
    // As in the request test: whole, cut, and with body bytes behind it for the full-width
    // loads of the fast paths.
    const std::string padded = s + std::string(48, 'b');
    for (std::string_view buf :
         {std::string_view(s), std::string_view(s).substr(0, rng.below(s.size())),
          std::string_view(padded)}) {
      ResponseHead h;
      const HeadStatus st = parse_response_head(buf, max_head, head_request, h);
      const peers::NaiveHead n = peers::naive_parse_response(buf, max_head, head_request);
      const auto where = [&] {
        return std::to_string(i) + ": " + ::testing::PrintToString(std::string(buf));
      };
      ASSERT_EQ(st, n.status) << where();
      ResponseStatus framing;
      ASSERT_EQ(parse_response_status(buf, max_head, head_request, framing), st) << where();
      if (st != HeadStatus::kComplete) {
        if (st != HeadStatus::kIncomplete) {
          ASSERT_NE(h.error, nullptr) << where();
        }
        bad += st == HeadStatus::kBad;
        continue;
      }
      ++complete;
      ASSERT_EQ(h.status, n.status_code) << where();
      ASSERT_EQ(h.minor_version, n.minor_version) << where();
      ASSERT_EQ(h.head_len, n.head_len) << where();
      ASSERT_EQ(h.body, n.body) << where();
      ASSERT_EQ(h.content_length, n.content_length) << where();
      ASSERT_EQ(h.keep_alive, n.keep_alive) << where();
      ASSERT_EQ(h.fields.count, n.fields.size()) << where();
      for (std::size_t f = 0; f < n.fields.size(); ++f) {
        const HeaderLine& line = h.fields.lines[f];
        ASSERT_EQ(buf.substr(line.value_off, line.value_len), n.fields[f].value) << where();
        ASSERT_EQ(line.line_off, n.fields[f].line_off) << where();
        ASSERT_EQ(line.named_in_connection, n.fields[f].hop_by_hop) << where();
      }
      ASSERT_EQ(framing.status, h.status);
      ASSERT_EQ(framing.head_len, h.head_len);
      ASSERT_EQ(framing.body, h.body);
      ASSERT_EQ(framing.content_length, h.content_length);
      ASSERT_EQ(framing.keep_alive, h.keep_alive);
    }
  }
  EXPECT_GT(complete, 5000);
  EXPECT_GT(bad, 5000);
}

TEST(Http1Response, StatusLineAndFraming) {
  ResponseHead h;
  const std::string s = "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n";
  ASSERT_EQ(parse_response_head(s, 16384, false, h), HeadStatus::kComplete);
  EXPECT_EQ(h.status, 404);
  EXPECT_EQ(h.status_line_len, 24u);
  EXPECT_EQ(s.substr(h.reason_off, h.status_line_len - 2 - h.reason_off), " Not Found");
  EXPECT_EQ(h.body, BodyKind::kLength);
  EXPECT_EQ(h.content_length, 9u);
  // Only the final coding decides; with none of them chunked the body runs to the close.
  ASSERT_EQ(parse_response_head("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
                                16384, false, h),
            HeadStatus::kComplete);
  EXPECT_EQ(h.body, BodyKind::kUntilClose);
  EXPECT_FALSE(h.keep_alive);
  ASSERT_EQ(parse_response_head("HTTP/1.1 100 Continue\r\n\r\n", 16384, false, h),
            HeadStatus::kComplete);
  EXPECT_EQ(h.body, BodyKind::kNone);
  EXPECT_EQ(parse_response_head("HTTP/1.1 200 OK\r\nX: a\x01\r\n\r\n", 16384, false, h),
            HeadStatus::kBad);
  EXPECT_STREQ(h.error, "control character in header value");
  EXPECT_EQ(parse_response_head("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: "
                                "chunked\r\n\r\n",
                                16384, false, h),
            HeadStatus::kBad);
  EXPECT_STREQ(h.error, "both Content-Length and Transfer-Encoding");
}

}  // namespace
}  // namespace gatebench::http1
