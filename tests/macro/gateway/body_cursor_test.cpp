// BodyCursor: where request and response bodies end in the forwarding window, for each framing,
// with bodies arriving in pieces and the window started over.
#include "macro/gateway/body_cursor.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gw = gatebench::gateway;
using gw::BodyCursor;
using gw::BodyKind;

namespace {

TEST(BodyCursor, NoBodyIsCompleteAtOnce) {
  BodyCursor b;
  b.start(BodyKind::kNone, 99, 10);
  EXPECT_TRUE(b.complete);
  std::string w(20, 'x');
  b.identify(w.data(), w.size(), false);
  EXPECT_EQ(b.off, 10u);
  EXPECT_EQ(b.scan, 10u);
}

TEST(BodyCursor, LengthBodyInPiecesStopsAtItsEnd) {
  const std::string w = "HEAD0123456789NEXT";
  BodyCursor b;
  b.start(BodyKind::kLength, 10, 4);
  EXPECT_FALSE(b.complete);
  b.identify(w.data(), 7, false);
  EXPECT_EQ(b.scan, 7u);
  EXPECT_EQ(b.left, 7u);
  EXPECT_FALSE(b.complete);
  b.identify(w.data(), w.size(), false);
  EXPECT_EQ(b.scan, 14u);  // the pipelined "NEXT" is not body
  EXPECT_EQ(b.left, 0u);
  EXPECT_TRUE(b.complete);
  EXPECT_EQ(b.off, 4u);  // nothing forwarded yet
}

TEST(BodyCursor, ZeroLengthIsCompleteAfterOneLook) {
  std::string w = "HEAD";
  BodyCursor b;
  b.start(BodyKind::kLength, 0, 4);
  b.identify(w.data(), w.size(), false);
  EXPECT_TRUE(b.complete);
  EXPECT_EQ(b.scan, 4u);
}

TEST(BodyCursor, RewindStartsTheWindowOver) {
  std::string w = "HEADabcde";
  BodyCursor b;
  b.start(BodyKind::kLength, 8, 4);
  b.identify(w.data(), w.size(), false);
  EXPECT_EQ(b.scan, 9u);
  b.off = b.scan;  // forwarded
  b.rewind(4);
  w = "HEADfgh";
  b.identify(w.data(), w.size(), false);
  EXPECT_EQ(b.off, 4u);
  EXPECT_EQ(b.scan, 7u);
  EXPECT_TRUE(b.complete);
}

TEST(BodyCursor, ChunkedBodyAcrossSlicesEndsAfterTheLastChunk) {
  const std::string w = "5\r\nhello\r\n0\r\n\r\nGET / HTTP/1.1\r\n";
  BodyCursor b;
  b.start(BodyKind::kChunked, 0, 0);
  b.identify(w.data(), 6, false);
  EXPECT_EQ(b.scan, 6u);
  EXPECT_FALSE(b.complete);
  b.identify(w.data(), w.size(), false);
  EXPECT_EQ(b.scan, 15u);
  EXPECT_TRUE(b.complete);
  EXPECT_FALSE(b.framing_error());
}

TEST(BodyCursor, BadChunkFramingIsReported) {
  const std::string w = "zz\r\n";
  BodyCursor b;
  b.start(BodyKind::kChunked, 0, 0);
  b.identify(w.data(), w.size(), false);
  EXPECT_TRUE(b.framing_error());
  EXPECT_FALSE(b.complete);
}

TEST(BodyCursor, UntilCloseTakesEverythingAndEndsAtEof) {
  const std::string w = "HTTP/1.0 200 OK\r\n\r\nbody bytes";
  BodyCursor b;
  b.start(BodyKind::kUntilClose, 0, 19);
  b.identify(w.data(), w.size(), false);
  EXPECT_EQ(b.scan, w.size());
  EXPECT_FALSE(b.complete);
  b.identify(w.data(), w.size(), true);
  EXPECT_TRUE(b.complete);
}

TEST(BodyCursor, StartForgetsThePreviousBody) {
  const std::string w = "zz\r\n";
  BodyCursor b;
  b.start(BodyKind::kChunked, 0, 0);
  b.identify(w.data(), w.size(), false);
  ASSERT_TRUE(b.framing_error());
  b.start(BodyKind::kChunked, 0, 0);
  EXPECT_FALSE(b.framing_error());
  const std::string ok = "0\r\n\r\n";
  b.identify(ok.data(), ok.size(), false);
  EXPECT_TRUE(b.complete);
}

}  // namespace
