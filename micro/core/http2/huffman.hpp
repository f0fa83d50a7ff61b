// The static Huffman code of HPACK (RFC 7541 section 5.2, Appendix B), decoding only.
//
// The code is canonical: codes of one length are consecutive and follow those of the shorter
// lengths in symbol order, so the 257 code lengths below determine every code, and the decoding
// tables are computed from them at compile time (tests/micro/core/http2/hpack_huffman_test.cpp
// checks the result against the appendix's codes, and against nghttp2).
//
// Contract: huffman_decode reads the whole string `in` and writes at most `capacity` bytes.
// kOutputFull: the decoded string is longer than `capacity` (the rest of `in` is unread);
// kEos: the EOS symbol is in the string; kBadPadding: the string does not end on a symbol, or
// its padding is longer than 7 bits or not made of ones (the start of EOS's code).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gatebench::http2 {

inline constexpr std::size_t kHuffmanSymbols = 257;  // 256 bytes and EOS
inline constexpr unsigned kEosSymbol = 256;

// Appendix B's "len in bits" column, symbol by symbol.
inline constexpr std::array<std::uint8_t, kHuffmanSymbols> kHuffmanCodeLengths = {
    13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28,
    28, 28, 28, 28, 28, 28, 28, 28, 6,  10, 10, 12, 13, 6,  8,  11, 10, 10, 8,  11, 8,  6,  6,  6,
    5,  5,  5,  6,  6,  6,  6,  6,  6,  6,  7,  8,  15, 6,  12, 10, 13, 6,  7,  7,  7,  7,  7,  7,
    7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  8,  7,  8,  13, 19, 13, 14, 6,
    15, 5,  6,  5,  6,  5,  6,  6,  6,  5,  7,  7,  6,  6,  6,  5,  6,  7,  6,  5,  5,  6,  7,  7,
    7,  7,  7,  15, 11, 14, 13, 28, 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
    24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22, 21, 20, 22, 22, 23, 23, 21,
    23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
    26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24,
    21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
    26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30};

// The canonical code of every symbol, right-aligned (what Appendix B lists as hex).
inline constexpr std::array<std::uint32_t, kHuffmanSymbols> kHuffmanCodes = [] {
  std::array<std::uint32_t, kHuffmanSymbols> codes{};
  std::uint32_t next = 0;
  for (unsigned len = 1; len <= 30; ++len) {
    for (unsigned s = 0; s < kHuffmanSymbols; ++s)
      if (kHuffmanCodeLengths[s] == len) codes[s] = next++;
    next <<= 1;
  }
  return codes;
}();

enum class HuffmanStatus : std::uint8_t { kOk, kOutputFull, kEos, kBadPadding };

struct HuffmanResult {
  HuffmanStatus status = HuffmanStatus::kOk;
  std::size_t size = 0;  // bytes written (all of the string when kOk)
};

HuffmanResult huffman_decode(std::string_view in, char* out, std::size_t capacity);

// The same checks without writing anything: for strings that are decoded only to be dropped.
HuffmanStatus huffman_validate(std::string_view in);

}  // namespace gatebench::http2
