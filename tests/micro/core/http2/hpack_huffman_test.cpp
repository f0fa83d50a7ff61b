// gatecore's Huffman decoder (micro/core/http2/huffman.cpp) against RFC 7541 Appendix B and the
// naive peer's bit-by-bit decoder: the derived codes, every symbol at every bit offset, random
// strings, random bytes (mostly invalid), each error, and the output bound.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "micro/core/http2/huffman.hpp"
#include "micro/peers/hpack_naive.hpp"
#include "micro/peers/hpack_nghttp2.hpp"
#include "tests/micro/core/http2/hpack_encode.hpp"
#include "tests/random_cases.hpp"

namespace gatebench::http2 {
namespace {

using peers::NaiveHpackDecoder;

HpackStatus status_of(HuffmanStatus s) {
  switch (s) {
    case HuffmanStatus::kOk:
      return HpackStatus::kOk;
    case HuffmanStatus::kEos:
      return HpackStatus::kHuffmanEos;
    default:
      return HpackStatus::kHuffmanPadding;
  }
}

// Decodes with gatecore and the naive peer; both must agree, and the string is returned.
std::string both(const std::string& coded, HpackStatus expect) {
  std::string out(coded.size() * 8 / 5 + 1, '\0');
  const HuffmanResult r = huffman_decode(coded, out.data(), out.size());
  std::string naive;
  const HpackStatus ns = NaiveHpackDecoder::huffman(coded, naive);
  EXPECT_EQ(status_of(r.status), expect);
  EXPECT_EQ(ns, expect);
  EXPECT_EQ(huffman_validate(coded), r.status);
  out.resize(r.size);
  if (expect == HpackStatus::kOk) {
    EXPECT_EQ(out, naive);
  }
  return out;
}

TEST(HpackHuffman, CanonicalCodesAreAppendixB) {
  for (unsigned s = 0; s < kHuffmanSymbols; ++s) {
    EXPECT_EQ(kHuffmanCodes[s], peers::kAppendixB[s].first) << s;
    EXPECT_EQ(kHuffmanCodeLengths[s], peers::kAppendixB[s].second) << s;
  }
}

TEST(HpackHuffman, EverySymbolAtEveryBitOffset) {
  for (unsigned s = 0; s < 256; ++s) {
    for (int shift = 0; shift < 8; ++shift) {
      // '0' takes 5 bits: 0..7 of them put the symbol at each offset within a byte.
      const std::string plain = std::string(shift, '0') + static_cast<char>(s) + "ab";
      EXPECT_EQ(both(testing::huffman_encode(plain), HpackStatus::kOk), plain) << s << " " << shift;
    }
  }
}

TEST(HpackHuffman, RandomStringsRoundTrip) {
  std::mt19937_64 rng(7541);
  const std::string text = "abcdefghijklmnopqrstuvwxyz0123456789-_.;=/ ,:ABCXYZ%\"()?!*";
  for (int i = 0; i < testing::random_cases(20000); ++i) {
    std::string plain(rng() % 300, '\0');
    const bool bytes = i % 4 == 0;
    for (char& c : plain) c = bytes ? static_cast<char>(rng()) : text[rng() % text.size()];
    EXPECT_EQ(both(testing::huffman_encode(plain), HpackStatus::kOk), plain);
  }
}

TEST(HpackHuffman, NghttpDecodesTheTestEncoder) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  const std::string block = testing::hpack_literal(0x00, 0, "x-all", all, true, true);
  peers::NghttpInflater ng;
  std::vector<peers::HpackField> f;
  ASSERT_TRUE(ng.decode(block, f));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].name, "x-all");
  EXPECT_EQ(f[0].value, all);
}

TEST(HpackHuffman, Errors) {
  const std::string ok = testing::huffman_encode("ab");  // 11 bits: 5 bits of padding
  // 'a' (00011) and 35 ones: EOS (30 ones) inside the string.
  both(testing::huffman_encode("a") + "\xff\xff\xff\xff", HpackStatus::kHuffmanEos);
  both(ok + "\xff", HpackStatus::kHuffmanPadding);     // padding of 13 bits
  both("\xff", HpackStatus::kHuffmanPadding);          // 8 bits of padding alone
  both("\xff\xff\xff", HpackStatus::kHuffmanPadding);  // 24 ones: no code, no padding
  std::string zero_pad = ok;
  zero_pad.back() = static_cast<char>(zero_pad.back() & 0xfe);  // padding bit 0
  both(zero_pad, HpackStatus::kHuffmanPadding);
  // A cut code: the first 8 bits of '<' (15 bits) alone.
  both(testing::huffman_encode("<").substr(0, 1), HpackStatus::kHuffmanPadding);
  both("", HpackStatus::kOk);
  both(std::string(1, '\0'), HpackStatus::kHuffmanPadding);  // '0' then 3 zero bits
}

TEST(HpackHuffman, RandomBytesAgreeWithNaive) {
  std::mt19937_64 rng(9113);
  for (int i = 0; i < testing::random_cases(200000); ++i) {
    std::string in(rng() % 12, '\0');
    for (char& c : in) c = static_cast<char>(rng() % 3 == 0 ? 0xff : rng());
    std::string out(in.size() * 2 + 1, '\0');
    const HuffmanResult r = huffman_decode(in, out.data(), out.size());
    std::string naive;
    ASSERT_EQ(status_of(r.status), NaiveHpackDecoder::huffman(in, naive)) << testing::hex(in);
    if (r.status == HuffmanStatus::kOk) {
      ASSERT_EQ(out.substr(0, r.size), naive);
    }
  }
}

TEST(HpackHuffman, OutputBound) {
  const std::string plain = "accept-encoding: gzip, deflate, br \x01\x7f\xfe";
  const std::string coded = testing::huffman_encode(plain);
  for (std::size_t cap = 0; cap <= plain.size() + 2; ++cap) {
    std::string out(cap + 4, '#');
    const HuffmanResult r = huffman_decode(coded, out.data(), cap);
    if (cap < plain.size()) {
      EXPECT_EQ(r.status, HuffmanStatus::kOutputFull) << cap;
    } else {
      EXPECT_EQ(r.status, HuffmanStatus::kOk) << cap;
      EXPECT_EQ(out.substr(0, r.size), plain);
    }
    EXPECT_LE(r.size, cap);
    EXPECT_EQ(out.substr(cap), "####");  // nothing written past the bound
  }
}

}  // namespace
}  // namespace gatebench::http2
