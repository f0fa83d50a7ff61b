#include "macro/load/response_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/rng.hpp"

namespace gatebench::load {
namespace {

struct Outcome {
  ParseStatus status = ParseStatus::kNeedMore;
  int code = 0;
  bool keep_alive = false;
  std::uint64_t body = 0;
  std::size_t length = 0;  // bytes of the stream that belonged to the response
  std::string error;
};

// Feeds `stream` in pieces the way a connection does (unconsumed bytes are presented again),
// then signals EOF when `eof` and the response is still open.
Outcome drive(std::string_view stream, const std::vector<std::size_t>& cuts, bool eof = true,
              bool head = false) {
  ResponseParser p;
  p.reset(head);
  std::string buf;
  std::size_t at = 0;
  std::size_t consumed = 0;
  Outcome o;
  auto finish = [&](ParseStatus s) {
    o.status = s;
    o.code = p.status_code();
    o.keep_alive = p.keep_alive();
    o.body = p.body_bytes();
    o.length = consumed;
    o.error = std::string(p.error());
    return o;
  };
  std::vector<std::size_t> ends = cuts;
  ends.push_back(stream.size());
  for (std::size_t end : ends) {
    if (end < at) continue;
    buf.append(stream.substr(at, end - at));
    at = end;
    const ParseResult r = p.feed(buf);
    buf.erase(0, r.consumed);
    consumed += r.consumed;
    if (r.status != ParseStatus::kNeedMore) return finish(r.status);
  }
  if (!eof) return finish(ParseStatus::kNeedMore);
  const ParseStatus s = p.finish_eof();
  if (s == ParseStatus::kComplete) consumed = stream.size();
  return finish(s);
}

Outcome whole(std::string_view stream, bool eof = true, bool head = false) {
  return drive(stream, {}, eof, head);
}

Outcome bytewise(std::string_view stream, bool eof = true) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < stream.size(); ++i) cuts.push_back(i);
  return drive(stream, cuts, eof);
}

TEST(ResponseParser, ContentLengthKeepAlive) {
  const std::string r = "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 3\r\n\r\nok\n";
  for (const Outcome& o : {whole(r, false), bytewise(r, false)}) {
    EXPECT_EQ(o.status, ParseStatus::kComplete);
    EXPECT_EQ(o.code, 200);
    EXPECT_TRUE(o.keep_alive);
    EXPECT_EQ(o.body, 3u);
    EXPECT_EQ(o.length, r.size());
  }
}

TEST(ResponseParser, BytesAfterTheResponseAreLeftForTheCaller) {
  const std::string r = "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\n";
  const Outcome o = whole(r, false);
  EXPECT_EQ(o.status, ParseStatus::kComplete);
  EXPECT_EQ(o.code, 204);
  EXPECT_EQ(o.length, std::string("HTTP/1.1 204 No Content\r\n\r\n").size());
}

TEST(ResponseParser, ConnectionHeaderAndVersionDecideKeepAlive) {
  EXPECT_FALSE(
      whole("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").keep_alive);
  EXPECT_FALSE(whole("HTTP/1.1 200 OK\r\nconnection: Upgrade, CLOSE\r\ncontent-length: 0\r\n\r\n")
                   .keep_alive);
  EXPECT_FALSE(whole("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").keep_alive);
  EXPECT_TRUE(
      whole("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n").keep_alive);
}

TEST(ResponseParser, Chunked) {
  const std::string r =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
      "5\r\nhello\r\n1;name=value\r\n \r\nA ; q=\"a b\"\r\n0123456789\r\n0\r\nX-T: 1\r\nY: "
      "2\r\n\r\n";
  for (const Outcome& o : {whole(r, false), bytewise(r, false)}) {
    EXPECT_EQ(o.status, ParseStatus::kComplete) << o.error;
    EXPECT_EQ(o.body, 16u);
    EXPECT_EQ(o.length, r.size());
    EXPECT_TRUE(o.keep_alive);
  }
}

TEST(ResponseParser, ChunkedErrors) {
  const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (const char* body : {"x\r\n", "5\r\nhelloXX", "5\nhello\r\n", "1234567890abcdef0\r\n",
                           "0\r\nbad\n\r\n", "0\r\n\rX",
                           // RFC 9112 7.1.1: whitespace after the size only before a ';'.
                           "A \r\n0123456789\r\n0\r\n\r\n"}) {
    const Outcome o = whole(head + body, false);
    EXPECT_EQ(o.status, ParseStatus::kError) << body;
    EXPECT_FALSE(o.error.empty());
  }
  // Truncated in the middle of a chunk: only EOF tells.
  const Outcome cut = whole(head + "5\r\nhel", true);
  EXPECT_EQ(cut.status, ParseStatus::kError);
  EXPECT_EQ(cut.error, "truncated response");
}

TEST(ResponseParser, BodiesWithoutLengthEndAtClose) {
  const std::string r = "HTTP/1.1 200 OK\r\n\r\nsome body";
  const Outcome open = whole(r, false);
  EXPECT_EQ(open.status, ParseStatus::kNeedMore);
  const Outcome closed = whole(r, true);
  EXPECT_EQ(closed.status, ParseStatus::kComplete);
  EXPECT_EQ(closed.body, 9u);
  EXPECT_FALSE(closed.keep_alive);
  // A transfer coding other than chunked also reads to the close.
  EXPECT_EQ(whole("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzz", true).body, 2u);
}

TEST(ResponseParser, BodilessResponses) {
  EXPECT_EQ(whole("HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n", false).status,
            ParseStatus::kComplete);
  EXPECT_EQ(whole("HTTP/1.1 204 No Content\r\n\r\n", false).status, ParseStatus::kComplete);
  const Outcome head = whole("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", false, true);
  EXPECT_EQ(head.status, ParseStatus::kComplete);
  EXPECT_EQ(head.body, 0u);
}

TEST(ResponseParser, InterimResponsesAreSkipped) {
  const std::string r =
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
      "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nhi";
  for (const Outcome& o : {whole(r, false), bytewise(r, false)}) {
    EXPECT_EQ(o.status, ParseStatus::kComplete) << o.error;
    EXPECT_EQ(o.code, 201);
    EXPECT_EQ(o.length, r.size());
  }
  EXPECT_EQ(whole("HTTP/1.1 101 Switching Protocols\r\n\r\n", false).status, ParseStatus::kError);
}

TEST(ResponseParser, Garbage) {
  for (const char* g :
       {"SSH-2.0-OpenSSH\r\n", "<html>", "\r\n\r\n", "HTTP/2 200\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200OK\r\n\r\n", "HTTP/1.2 200 OK\r\n\r\n",
        "HTTP/1.1 099 Low\r\n\r\n", "HTTP/1.1 600 High\r\n\r\n", "HTTP/1.1 999 High\r\n\r\n",
        "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n", "HTTP/1.1 200 OK\r\n: empty name\r\n\r\n",
        "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"}) {
    const Outcome o = whole(g, false);
    EXPECT_EQ(o.status, ParseStatus::kError) << g;
    EXPECT_FALSE(o.error.empty()) << g;
  }
  // Not HTTP is recognised from the first bytes, without waiting for a header block.
  EXPECT_EQ(whole("SS", false).status, ParseStatus::kError);
  // Equal repeated Content-Length values are accepted (RFC 9110 8.6).
  EXPECT_EQ(
      whole("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", false).status,
      ParseStatus::kComplete);
}

TEST(ResponseParser, Truncation) {
  EXPECT_EQ(whole("", true).error, "closed before response");
  EXPECT_EQ(whole("HTTP/1.1 200 OK\r\nContent-Le", true).error, "truncated response");
  EXPECT_EQ(whole("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234", true).error,
            "truncated response");
}

TEST(ResponseParser, HeaderBlockTooLarge) {
  std::string r = "HTTP/1.1 200 OK\r\n";
  while (r.size() <= ResponseParser::kMaxHeaderBytes) r += "X-Filler: 0123456789abcdef\r\n";
  EXPECT_EQ(whole(r, false).status, ParseStatus::kError);
  EXPECT_EQ(whole(r + "\r\n", false).status, ParseStatus::kError);
}

TEST(ResponseParser, LargeBodyIsCountedNotStored) {
  const std::string body(5 << 20, 'x');
  const std::string r =
      "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  std::vector<std::size_t> cuts;
  for (std::size_t at = 100; at < r.size(); at += 32768) cuts.push_back(at);
  const Outcome o = drive(r, cuts, false);
  EXPECT_EQ(o.status, ParseStatus::kComplete);
  EXPECT_EQ(o.body, body.size());
}

// ---- Generated responses whose framing is known by construction, fed in random pieces ----

struct Generated {
  std::string bytes;
  int code;
  bool keep_alive;
  std::uint64_t body;
  bool close_delimited;
};

Generated generate(fixtures::Rng& rng) {
  Generated g{};
  static const int kCodes[] = {200, 201, 204, 301, 304, 400, 403, 404, 429, 500, 503};
  g.code = kCodes[rng.below(std::size(kCodes))];
  const bool http10 = rng.chance(1, 10);
  std::string head = std::string(http10 ? "HTTP/1.0 " : "HTTP/1.1 ") + std::to_string(g.code);
  if (rng.chance(9, 10)) head += " Reason Phrase";
  head += "\r\n";
  const int extra = static_cast<int>(rng.below(5));
  for (int i = 0; i < extra; ++i)
    head += "X-Extra-" + std::to_string(i) + ":  v" + std::to_string(rng.below(1000)) + " \r\n";
  const int conn = static_cast<int>(rng.below(4));  // none, close, keep-alive, both spellings
  if (conn == 1) head += "Connection: close\r\n";
  if (conn == 2) head += "connection: Keep-Alive\r\n";
  if (conn == 3) head += "CONNECTION: te, close\r\n";
  const std::uint64_t body_len = rng.chance(1, 5) ? 0 : rng.below(3000);
  const int framing = static_cast<int>(rng.below(10));  // 0-5 length, 6-8 chunked, 9 close
  std::string body_wire;
  const bool bodiless = g.code == 204 || g.code == 304;
  if (framing <= 5) {
    head += (rng.chance(1, 2) ? "Content-Length: " : "content-length:") + std::to_string(body_len) +
            "\r\n";
    body_wire = std::string(body_len, 'b');
  } else if (framing <= 8) {
    head += "Transfer-Encoding: chunked\r\n";
    std::uint64_t left = body_len;
    while (left > 0) {
      const std::uint64_t n = std::min<std::uint64_t>(left, 1 + rng.below(700));
      char hex[32];
      std::snprintf(hex, sizeof hex, rng.chance(1, 2) ? "%llx" : "%llX",
                    static_cast<unsigned long long>(n));
      body_wire += hex;
      if (rng.chance(1, 4)) body_wire += ";ext=" + std::to_string(rng.below(9));
      body_wire += "\r\n" + std::string(n, 'c') + "\r\n";
      left -= n;
    }
    body_wire += "0\r\n";
    if (rng.chance(1, 3)) body_wire += "Trailer-A: x\r\n";
    body_wire += "\r\n";
  } else {
    body_wire = std::string(body_len, 'd');
    g.close_delimited = !bodiless;
  }
  if (bodiless) body_wire.clear();
  g.bytes = head + "\r\n" + body_wire;
  g.body = bodiless ? 0 : body_len;
  g.keep_alive = conn != 1 && conn != 3 && (!http10 || conn == 2) && !g.close_delimited;
  return g;
}

TEST(ResponseParser, DifferentialAgainstGeneratedResponsesInRandomPieces) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("load-response-parser");
  for (int i = 0; i < 20000; ++i) {
    const Generated g = generate(rng);
    std::vector<std::size_t> cuts;
    const int pieces = static_cast<int>(rng.below(6));
    for (int k = 0; k < pieces; ++k) cuts.push_back(rng.below(g.bytes.size() + 1));
    std::sort(cuts.begin(), cuts.end());
    const Outcome o = drive(g.bytes, cuts, g.close_delimited);
    ASSERT_EQ(o.status, ParseStatus::kComplete) << i << ": " << o.error << "\n"
                                                << g.bytes.substr(0, 300);
    ASSERT_EQ(o.code, g.code) << i;
    ASSERT_EQ(o.body, g.body) << i;
    ASSERT_EQ(o.keep_alive, g.keep_alive) << i;
    ASSERT_EQ(o.length, g.bytes.size()) << i;
    // Every strict prefix is incomplete (or, cut inside a close-delimited body, complete at EOF).
    const std::size_t cut = rng.below(g.bytes.size());
    const Outcome partial = drive(g.bytes.substr(0, cut), {}, false);
    ASSERT_EQ(partial.status, ParseStatus::kNeedMore) << i << " cut at " << cut;
  }
}

}  // namespace
}  // namespace gatebench::load

namespace gatebench::load {
namespace {

// A fuzz-style sweep under the sanitisers: valid responses with random bytes overwritten,
// inserted or cut, fed in random pieces. Whatever the parser decides must be self-consistent.
TEST(ResponseParser, MutatedResponsesNeverBreakTheContract) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("load-response-parser-mutations");
  static const char kBytes[] = "\r\n:;0aF HTTP/1. -,\t\x00\xff";
  for (int i = 0; i < 30000; ++i) {
    std::string bytes = generate(rng).bytes;
    const int edits = 1 + static_cast<int>(rng.below(4));
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      const std::size_t at = rng.below(bytes.size());
      const char b = kBytes[rng.below(sizeof kBytes - 1)];
      switch (rng.below(3)) {
        case 0:
          bytes[at] = b;
          break;
        case 1:
          bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), b);
          break;
        default:
          bytes.erase(at, 1 + rng.below(8));
          break;
      }
    }
    std::vector<std::size_t> cuts;
    for (int k = static_cast<int>(rng.below(4)); k > 0; --k)
      cuts.push_back(rng.below(bytes.size() + 1));
    std::sort(cuts.begin(), cuts.end());
    const Outcome o = drive(bytes, cuts, rng.chance(1, 2));
    if (o.status == ParseStatus::kComplete) {
      ASSERT_GE(o.code, 100) << i;
      ASSERT_LE(o.code, 599) << i;
      ASSERT_LE(o.length, bytes.size()) << i;
      ASSERT_LE(o.body, bytes.size()) << i;
    } else if (o.status == ParseStatus::kError) {
      ASSERT_FALSE(o.error.empty()) << i;
    }
  }
}

}  // namespace
}  // namespace gatebench::load
