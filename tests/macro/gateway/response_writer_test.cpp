// The bytes the gateway writes: local responses (status line, fixed headers, Content-Length,
// extra and security headers, keep-alive vs close, HEAD), the client head made from an
// upstream's (normalised status line, hop-by-hop and replaced security headers dropped,
// re-stated framing), the upstream head made from a client's (forwarded headers, re-stated
// framing, HTTP/1.0), and the overflow result of each.
#include "macro/gateway/response_writer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace gw = gatebench::gateway;
using gw::SecurityHeaders;

namespace {

constexpr std::string_view kBasic =
    "X-Content-Type-Options: nosniff\r\n"
    "X-Frame-Options: SAMEORIGIN\r\n"
    "Referrer-Policy: strict-origin-when-cross-origin\r\n";

constexpr std::string_view kStrict =
    "X-Content-Type-Options: nosniff\r\n"
    "X-Frame-Options: DENY\r\n"
    "Referrer-Policy: no-referrer\r\n"
    "Strict-Transport-Security: max-age=63072000; includeSubDomains\r\n"
    "Content-Security-Policy: default-src 'self'; frame-ancestors 'none'; base-uri 'none'\r\n"
    "Cross-Origin-Opener-Policy: same-origin\r\n"
    "Permissions-Policy: camera=(), microphone=(), geolocation=()\r\n";

struct LocalArgs {
  std::uint16_t status = 403;
  std::string_view content_type = "text/plain";
  std::string_view body = "blocked by rule r1\n";
  std::string_view extra = "X-Gatebench-Rule: r1\r\n";
  SecurityHeaders sh = SecurityHeaders::kOff;
  bool close = false;
  bool http10 = false;
  bool head_only = false;
};

std::string local(const LocalArgs& a, std::size_t cap = 4096) {
  std::vector<char> out(cap);
  std::size_t n = gw::write_local_response(out.data(), cap, a.status, a.content_type, a.body,
                                           a.extra, a.sh, a.close, a.http10, a.head_only);
  return std::string(out.data(), n);
}

const std::string kLocalHead =
    "HTTP/1.1 403 Forbidden\r\n"
    "Server: gatebench-gateway\r\n"
    "Content-Type: text/plain\r\n"
    "Content-Length: 19\r\n"
    "Cache-Control: no-store\r\n"
    "X-Gatebench-Rule: r1\r\n";

TEST(LocalResponse, KeepAliveHttp11HasNoConnectionHeader) {
  EXPECT_EQ(local({}), kLocalHead + "\r\nblocked by rule r1\n");
}

TEST(LocalResponse, CloseAndHttp10StateTheConnection) {
  EXPECT_EQ(local({.close = true}), kLocalHead + "Connection: close\r\n\r\nblocked by rule r1\n");
  EXPECT_EQ(local({.http10 = true}),
            kLocalHead + "Connection: keep-alive\r\n\r\nblocked by rule r1\n");
  // Closing wins over the HTTP/1.0 keep-alive statement.
  EXPECT_EQ(local({.close = true, .http10 = true}),
            kLocalHead + "Connection: close\r\n\r\nblocked by rule r1\n");
}

TEST(LocalResponse, SecurityHeadersFollowTheExtraHeaders) {
  EXPECT_EQ(local({.sh = SecurityHeaders::kBasic}),
            kLocalHead + std::string(kBasic) + "\r\nblocked by rule r1\n");
  EXPECT_EQ(local({.sh = SecurityHeaders::kStrict, .close = true}),
            kLocalHead + std::string(kStrict) + "Connection: close\r\n\r\nblocked by rule r1\n");
}

TEST(LocalResponse, HeadKeepsTheBodyLengthButNotTheBody) {
  EXPECT_EQ(local({.head_only = true}), kLocalHead + "\r\n");
}

TEST(LocalResponse, EmptyBodyAndNoExtraHeaders) {
  EXPECT_EQ(local({.status = 503, .content_type = "application/json", .body = "", .extra = ""}),
            "HTTP/1.1 503 Service Unavailable\r\nServer: gatebench-gateway\r\n"
            "Content-Type: application/json\r\nContent-Length: 0\r\n"
            "Cache-Control: no-store\r\n\r\n");
}

TEST(LocalResponse, UnlistedStatusIsUnknown) {
  EXPECT_EQ(local({.status = 418, .body = "", .extra = ""}).substr(0, 23),
            "HTTP/1.1 418 Unknown\r\nS");
}

TEST(LocalResponse, OverflowReturnsZeroAndAnExactFitSucceeds) {
  const std::string full = local({});
  EXPECT_EQ(local({}, full.size()), full);
  EXPECT_EQ(local({}, full.size() - 1), "");
  EXPECT_EQ(local({}, 0), "");
}

TEST(ReasonPhrase, EveryStatusTheGatewaySends) {
  const std::pair<std::uint16_t, std::string_view> cases[] = {
      {200, "OK"},
      {302, "Found"},
      {303, "See Other"},
      {400, "Bad Request"},
      {403, "Forbidden"},
      {404, "Not Found"},
      {405, "Method Not Allowed"},
      {408, "Request Timeout"},
      {421, "Misdirected Request"},
      {429, "Too Many Requests"},
      {431, "Request Header Fields Too Large"},
      {500, "Internal Server Error"},
      {502, "Bad Gateway"},
      {503, "Service Unavailable"},
      {504, "Gateway Timeout"},
      {201, "Unknown"},
      {0, "Unknown"},
  };
  for (const auto& [status, phrase] : cases) EXPECT_EQ(gw::reason_phrase(status), phrase) << status;
}

TEST(SecurityHeaderLines, PerLevel) {
  EXPECT_EQ(gw::security_header_lines(SecurityHeaders::kOff), "");
  EXPECT_EQ(gw::security_header_lines(SecurityHeaders::kBasic), kBasic);
  EXPECT_EQ(gw::security_header_lines(SecurityHeaders::kStrict), kStrict);
}

// The client head made from `upstream` (which must parse), or "" when it did not fit `cap`.
std::string client_head(const std::string& upstream, SecurityHeaders sh, bool close, bool http10,
                        std::size_t cap = 4096) {
  gw::ResponseHead resp;
  EXPECT_EQ(gw::parse_response_head(upstream, 8192, false, resp), gw::HeadStatus::kComplete)
      << upstream;
  std::vector<char> out(cap);
  std::size_t n = gw::write_client_head(out.data(), cap, upstream, resp, sh, close, http10);
  return std::string(out.data(), n);
}

TEST(ClientHead, NormalisesTheStatusLineAndDropsHopByHopHeaders) {
  const std::string up =
      "HTTP/1.0 200 OK\r\nServer: up\r\nConnection: keep-alive, X-Hop\r\nKeep-Alive: timeout=5\r\n"
      "X-Hop: secret\r\nProxy-Connection: x\r\nUpgrade: h2c\r\nContent-Length: 5\r\n"
      "X-Frame-Options: ALLOWALL\r\n\r\nhello";
  EXPECT_EQ(client_head(up, SecurityHeaders::kOff, false, false),
            "HTTP/1.1 200 OK\r\nServer: up\r\nContent-Length: 5\r\n"
            "X-Frame-Options: ALLOWALL\r\n\r\n");
}

TEST(ClientHead, ReasonPhraseIsTheUpstreams) {
  EXPECT_EQ(client_head("HTTP/1.1 404 Nope\r\nContent-Length: 0\r\n\r\n", SecurityHeaders::kOff,
                        false, false),
            "HTTP/1.1 404 Nope\r\nContent-Length: 0\r\n\r\n");
}

TEST(ClientHead, ChunkedIsRestatedAfterTheKeptHeaders) {
  EXPECT_EQ(client_head("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n",
                        SecurityHeaders::kOff, false, false),
            "HTTP/1.1 200 OK\r\nX-A: 1\r\nTransfer-Encoding: chunked\r\n\r\n");
}

TEST(ClientHead, SecurityHeadersReplaceTheUpstreamsOfTheSameNames) {
  const std::string up =
      "HTTP/1.1 200 OK\r\nx-frame-options: ALLOWALL\r\nREFERRER-POLICY: unsafe-url\r\n"
      "Strict-Transport-Security: max-age=1\r\nContent-Length: 0\r\n\r\n";
  // basic replaces only its own three names; the upstream's HSTS stays.
  EXPECT_EQ(client_head(up, SecurityHeaders::kBasic, false, false),
            "HTTP/1.1 200 OK\r\nStrict-Transport-Security: max-age=1\r\nContent-Length: 0\r\n" +
                std::string(kBasic) + "\r\n");
  EXPECT_EQ(client_head(up, SecurityHeaders::kStrict, false, false),
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n" + std::string(kStrict) + "\r\n");
}

TEST(ClientHead, ConnectionStatedOnCloseAndForHttp10Clients) {
  const std::string up = "HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n";
  EXPECT_EQ(client_head(up, SecurityHeaders::kOff, true, false),
            "HTTP/1.1 204 No Content\r\nX-A: 1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(client_head(up, SecurityHeaders::kOff, false, true),
            "HTTP/1.1 204 No Content\r\nX-A: 1\r\nConnection: keep-alive\r\n\r\n");
  EXPECT_EQ(
      client_head(up, SecurityHeaders::kBasic, true, true),
      "HTTP/1.1 204 No Content\r\nX-A: 1\r\n" + std::string(kBasic) + "Connection: close\r\n\r\n");
}

TEST(ClientHead, OverflowReturnsZero) {
  const std::string up = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  const std::string full = client_head(up, SecurityHeaders::kStrict, true, false);
  ASSERT_FALSE(full.empty());
  EXPECT_EQ(client_head(up, SecurityHeaders::kStrict, true, false, full.size()), full);
  EXPECT_EQ(client_head(up, SecurityHeaders::kStrict, true, false, full.size() - 1), "");
}

// The upstream head made from `client` (which must parse), or "" when it did not fit `cap`.
std::string upstream_head(const std::string& client, std::string_view ip, bool https,
                          std::size_t cap = 4096) {
  gw::RequestHead req;
  EXPECT_EQ(gw::parse_request_head(client, 8192, req), gw::HeadStatus::kComplete) << client;
  std::vector<char> out(cap);
  std::size_t n = gw::write_upstream_head(out.data(), cap, client, req, ip, https);
  return std::string(out.data(), n);
}

TEST(UpstreamHead, DropsHopByHopAndForwardedHeadersAndAppendsTheClient) {
  const std::string in =
      "GET /a?b=1 HTTP/1.1\r\nHost: a.test\r\nUser-Agent: ua\r\nConnection: keep-alive, X-Hop\r\n"
      "X-Hop: 1\r\nKeep-Alive: 5\r\nTE: trailers\r\nX-Forwarded-For: 10.0.0.1\r\n"
      "X-Forwarded-Proto: https\r\nAccept: */*\r\n\r\n";
  EXPECT_EQ(upstream_head(in, "192.0.2.1", false),
            "GET /a?b=1 HTTP/1.1\r\nHost: a.test\r\nUser-Agent: ua\r\nAccept: */*\r\n"
            "X-Forwarded-For: 10.0.0.1, 192.0.2.1\r\nX-Forwarded-Proto: http\r\n\r\n");
}

TEST(UpstreamHead, EveryForwardedForValueIsKeptAndEmptyOnesSkipped) {
  const std::string in =
      "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 1.1.1.1\r\nX-Forwarded-For:\r\n"
      "X-Forwarded-For: 2.2.2.2, 3.3.3.3\r\n\r\n";
  EXPECT_EQ(upstream_head(in, "192.0.2.1", true),
            "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 1.1.1.1, 2.2.2.2, 3.3.3.3, 192.0.2.1\r\n"
            "X-Forwarded-Proto: https\r\n\r\n");
}

TEST(UpstreamHead, ContentLengthIsRestatedAndExpectDropped) {
  const std::string in =
      "POST /up HTTP/1.1\r\nContent-Length: 12\r\nHost: a\r\nExpect: 100-continue\r\n\r\n";
  EXPECT_EQ(upstream_head(in, "10.1.2.3", false),
            "POST /up HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 10.1.2.3\r\n"
            "X-Forwarded-Proto: http\r\nContent-Length: 12\r\n\r\n");
}

TEST(UpstreamHead, ChunkedIsRestated) {
  const std::string in = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
  EXPECT_EQ(upstream_head(in, "10.1.2.3", false),
            "POST / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 10.1.2.3\r\nX-Forwarded-Proto: http\r\n"
            "Transfer-Encoding: chunked\r\n\r\n");
}

TEST(UpstreamHead, Http10IsForwardedAsHttp10WithKeepAlive) {
  const std::string in = "GET /old HTTP/1.0\r\nConnection: close\r\n\r\n";
  EXPECT_EQ(upstream_head(in, "10.1.2.3", false),
            "GET /old HTTP/1.0\r\nX-Forwarded-For: 10.1.2.3\r\nX-Forwarded-Proto: http\r\n"
            "Connection: keep-alive\r\n\r\n");
}

TEST(UpstreamHead, OverflowReturnsZero) {
  const std::string in = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
  const std::string full = upstream_head(in, "10.1.2.3", false);
  ASSERT_FALSE(full.empty());
  EXPECT_EQ(upstream_head(in, "10.1.2.3", false, full.size()), full);
  EXPECT_EQ(upstream_head(in, "10.1.2.3", false, full.size() - 1), "");
}

}  // namespace
