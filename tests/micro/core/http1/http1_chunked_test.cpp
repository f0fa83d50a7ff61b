// gatecore's chunked decoder against the naive peer on generated bodies (valid, corrupted, at
// the size-line and trailer limits) fed in random slices, and its error paths.
#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <string>

#include "fixtures/rng.hpp"
#include "micro/core/http1/chunked.hpp"
#include "micro/peers/http1_naive.hpp"

namespace gatebench::http1 {
namespace {

using namespace std::string_literals;

struct Body {
  std::string bytes;
  std::uint64_t data = 0;  // data bytes, when not corrupted
};

// Extensions and trailer lines valid by RFC 9112 and RFC 9110, and near misses: the naive peer
// decides which is which from the grammar.
const std::string kExtensions[] = {";ext=1",
                                   ";a",
                                   " ;a",
                                   "\t; a",
                                   ";a = b",
                                   ";a=\"\"",
                                   ";a=\"x y;\\\"z\"",
                                   ";a=b;c;d=\"e\" ",
                                   ";a=\"\x80\xff\"",
                                   ";a=\"x",
                                   " x",
                                   " ",
                                   ";",
                                   ";a=",
                                   ";a b",
                                   ";a=\"x\"y",
                                   ";a=\"\x01\"",
                                   ";a=\"x\\",
                                   ";a@b",
                                   ";a=b\x7f"};
const std::string kTrailers[] = {"X-Trailer: t\r\n", "T:\r\n",    "T: a\tb \x80\r\n",
                                 "NoColon\r\n",      "T : a\r\n", "T: a\0b\r\n"s,
                                 "T: a\x7f\r\n"};

Body generate(fixtures::Rng& rng) {
  Body b;
  const int chunks = static_cast<int>(rng.below(5));
  for (int i = 0; i < chunks; ++i) {
    const std::size_t n = 1 + rng.below(300);
    char hex[32];
    std::snprintf(hex, sizeof hex, rng.chance(1, 2) ? "%zx" : "%zX", n);
    if (rng.chance(1, 10)) b.bytes += "000";  // leading zeros count as digits
    b.bytes += hex;
    if (rng.chance(1, 5)) b.bytes += kExtensions[rng.below(std::size(kExtensions))];
    if (rng.chance(1, 50)) b.bytes += ";" + std::string(4080 + rng.below(30), 'e');  // the limit
    b.bytes += "\r\n";
    for (std::size_t k = 0; k < n; ++k) b.bytes += static_cast<char>(rng.below(256));
    b.bytes += "\r\n";
    b.data += n;
  }
  b.bytes += "0\r\n";
  if (rng.chance(1, 4)) b.bytes += kTrailers[rng.below(std::size(kTrailers))];
  if (rng.chance(1, 50)) b.bytes += "X-Big: " + std::string(8170 + rng.below(40), 't') + "\r\n";
  b.bytes += "\r\n";
  if (rng.chance(1, 4)) {
    const std::size_t at = rng.below(b.bytes.size());
    const char repl[] = {'\r', '\n', 'g', ' ', '0', ';', '\x01', 'F'};
    b.bytes[at] = repl[rng.below(sizeof repl)];
  }
  b.bytes += "NEXT";  // bytes of the next message must not be consumed
  return b;
}

TEST(Http1Chunked, MatchesNaiveOnGeneratedBodiesInSlices) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("http1-chunked");
  int complete = 0, rejected = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    const Body b = generate(rng);
    const std::optional<std::size_t> want = peers::naive_chunked_length(b.bytes);
    ChunkedDecoder d;
    std::size_t consumed = 0;
    std::size_t pos = 0;
    while (pos < b.bytes.size() && !d.done() && !d.error()) {
      std::size_t n = 1 + rng.below(rng.chance(1, 2) ? 8 : 600);
      if (pos + n > b.bytes.size()) n = b.bytes.size() - pos;
      const std::size_t used = d.feed(std::string_view(b.bytes).substr(pos, n));
      ASSERT_LE(used, n);
      consumed += used;
      pos += n;
      if (used < n) {
        ASSERT_TRUE(d.done() || d.error());
      }
    }
    if (want) {
      ++complete;
      ASSERT_TRUE(d.done()) << iter << ": " << d.reason();
      ASSERT_EQ(consumed, *want) << iter;
      ASSERT_EQ(b.bytes.substr(consumed), "NEXT") << iter;
    } else {
      ++rejected;
      ASSERT_FALSE(d.done()) << iter << ": " << ::testing::PrintToString(b.bytes.substr(0, 200));
      if (d.error()) {
        ASSERT_STRNE(d.reason(), "");
      }
    }
  }
  EXPECT_GT(complete, 10000);
  EXPECT_GT(rejected, 1000);
}

struct Outcome {
  std::size_t used = 0;
  bool done = false;
  bool error = false;
  std::string reason;
  std::uint64_t data = 0;
};

Outcome feed_in_slices(std::string_view body, std::size_t slice) {
  ChunkedDecoder d;
  Outcome o;
  for (std::size_t pos = 0; pos < body.size() && !d.done() && !d.error(); pos += slice) {
    o.used += d.feed(body.substr(pos, slice));
  }
  o.done = d.done();
  o.error = d.error();
  o.reason = d.reason();
  o.data = d.data_bytes();
  return o;
}

// One byte per feed never holds a whole line, so it takes the byte-by-byte states only: the
// reference for the whole-line fast paths, which must give the same bytes used, end, reason
// and data count on every body, valid or corrupted.
TEST(Http1Chunked, WholeLinesMatchByteByByte) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("http1-chunked-bytes");
  for (int iter = 0; iter < 5000; ++iter) {
    const Body b = generate(rng);
    const Outcome bytes = feed_in_slices(b.bytes, 1);
    for (std::size_t slice : {b.bytes.size(), std::size_t{2}, std::size_t{7}, std::size_t{64}}) {
      const Outcome o = feed_in_slices(b.bytes, slice);
      ASSERT_EQ(o.used, bytes.used) << iter << " slice " << slice;
      ASSERT_EQ(o.done, bytes.done) << iter << " slice " << slice;
      ASSERT_EQ(o.error, bytes.error) << iter << " slice " << slice;
      ASSERT_EQ(o.reason, bytes.reason) << iter << " slice " << slice;
      ASSERT_EQ(o.data, bytes.data) << iter << " slice " << slice;
    }
  }
  // 15 hex digits are the most a size may have, leading zeros included.
  EXPECT_EQ(feed_in_slices("000000000000005\r\nhello\r\n0\r\n\r\n", 64).done, true);
  EXPECT_EQ(feed_in_slices("0000000000000005\r\nhello\r\n0\r\n\r\n", 64).reason,
            "chunk size too large");
}

// What the grammar allows is read to the end of the body, by the fast path and byte by byte.
TEST(Http1Chunked, AcceptsWhatTheGrammarAllows) {
  for (const char* ext : {";a", " ;a", "\t; a", ";a = b", ";a=\"\"", ";a=\"x y;\\\"z\"",
                          ";a=b;c;d=\"e\"", ";a=\"\x80\xff\\\x80\"", ";a=\"\t\"", ";a=b ;c"}) {
    for (const char* trailer : {"", "T:\r\n", "T: a\tb \x80\r\n", "T:a\r\nU:  \r\n"}) {
      const std::string body =
          std::string("5") + ext + "\r\nhello\r\n0" + ext + "\r\n" + trailer + "\r\n";
      for (std::size_t slice : {std::size_t{1}, body.size()}) {
        const Outcome o = feed_in_slices(body, slice);
        EXPECT_TRUE(o.done) << body << " slice " << slice << ": " << o.reason;
        EXPECT_EQ(o.used, body.size()) << body;
        EXPECT_EQ(o.data, 5u) << body;
      }
      EXPECT_EQ(peers::naive_chunked_length(body), body.size()) << body;
    }
  }
}

TEST(Http1Chunked, CountsDataBytes) {
  ChunkedDecoder d;
  const std::string body =
      "5\r\nhello\r\n1;a=b\r\n \r\nA ;x=\"y\"\r\n0123456789\r\n0\r\nT: 1\r\n\r\n";
  EXPECT_EQ(d.feed(body + "rest"), body.size());
  EXPECT_TRUE(d.done());
  EXPECT_EQ(d.data_bytes(), 16u);
  d.reset();
  EXPECT_FALSE(d.done());
  EXPECT_EQ(d.data_bytes(), 0u);
}

TEST(Http1Chunked, Errors) {
  const struct {
    std::string body;
    const char* reason;
  } cases[] = {
      {"x\r\n", "bad chunk size"},
      {"\r\n", "bad chunk size"},
      {"5x\r\n", "bad chunk size"},
      {"5\n", "bad chunk size"},
      {"1234567890123456\r\n", "chunk size too large"},
      {"5;a\x01\r\n", "bad chunk extension"},
      {"5;" + std::string(5000, 'e'), "chunk size line too long"},
      {"5\r\r", "bad chunk size line ending"},
      {"5\r\nabcdeXY", "chunk data not followed by CRLF"},
      {"5\r\nabcde\rX", "chunk data not followed by CRLF"},
      {"0\r\n:x\r\n", "bad trailer line"},
      {"0\r\nT: a\nb", "bad trailer line ending"},
      {"0\r\nT: a\rb", "bad trailer line ending"},
      {"0\r\nT: " + std::string(9000, 't'), "trailer too large"},
      {"0\r\n\rX", "bad end of chunked body"},
      // RFC 9112 7.1.1: chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )
      {"5;a=\"x\r\n", "bad chunk extension"},
      {"5 x\r\n", "bad chunk extension"},
      {"5 \r\n", "bad chunk extension"},
      {"5;\r\n", "bad chunk extension"},
      {"5;a=\r\n", "bad chunk extension"},
      {"5;a b\r\n", "bad chunk extension"},
      {"5;a=b c\r\n", "bad chunk extension"},
      {"5;a=\"x\"y\r\n", "bad chunk extension"},
      {"5;a=\"\x01\"\r\n", "bad chunk extension"},
      {"5;a=\"x\\\r\n", "bad chunk extension"},
      {"5;a@b\r\n", "bad chunk extension"},
      {"5;a=b\0\r\n"s, "bad chunk extension"},
      {"5;a=b\x7f\r\n", "bad chunk extension"},
      // RFC 9110 5.1, 5.5: field-name ":" OWS field-value OWS, the value VCHAR, obs-text, SP, HTAB.
      {"0\r\nNoColon\r\n\r\n", "bad trailer line"},
      {"0\r\nT : a\r\n\r\n", "bad trailer line"},
      {"0\r\nT: a\0b\r\n\r\n"s, "bad trailer field value"},
      {"0\r\nT: a\x7f\r\n\r\n", "bad trailer field value"},
      {"0\r\nT: a\x01\r\n\r\n", "bad trailer field value"},
  };
  for (const auto& c : cases) {
    ChunkedDecoder d;
    d.feed(c.body);
    EXPECT_TRUE(d.error()) << c.body.substr(0, 40);
    EXPECT_STREQ(d.reason(), c.reason) << c.body.substr(0, 40);
    EXPECT_FALSE(peers::naive_chunked_length(c.body + "\r\nhello\r\n0\r\n\r\n"))
        << c.body.substr(0, 40);
  }
}

}  // namespace
}  // namespace gatebench::http1
