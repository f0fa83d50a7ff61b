// HPACK encoding for the hpack tests: any representation, any integer (over-long ones too),
// Huffman from Appendix B's printed codes (the naive peer's table), so a test can build the
// blocks nghttp2's deflater never writes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "micro/peers/hpack_naive.hpp"

namespace gatebench::testing {

// `first` holds the representation's pattern bits above the prefix.
inline std::string hpack_int(unsigned prefix_bits, unsigned first, std::uint64_t v) {
  const std::uint64_t max = (1u << prefix_bits) - 1;
  std::string out;
  if (v < max) {
    out.push_back(static_cast<char>(first | v));
    return out;
  }
  out.push_back(static_cast<char>(first | max));
  v -= max;
  while (v >= 128) {
    out.push_back(static_cast<char>(0x80 | (v & 0x7f)));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

inline std::string huffman_encode(std::string_view s) {
  std::string out;
  std::uint64_t acc = 0;
  unsigned bits = 0;
  for (const char c : s) {
    const auto [code, len] = peers::kAppendixB[static_cast<unsigned char>(c)];
    acc = acc << len | code;
    bits += len;
    while (bits >= 8) {
      out.push_back(static_cast<char>(acc >> (bits - 8)));
      bits -= 8;
    }
  }
  if (bits > 0) out.push_back(static_cast<char>(acc << (8 - bits) | ((1u << (8 - bits)) - 1)));
  return out;
}

inline std::string hpack_string(std::string_view s, bool huffman) {
  if (!huffman) return hpack_int(7, 0x00, s.size()) + std::string(s);
  const std::string h = huffman_encode(s);
  return hpack_int(7, 0x80, h.size()) + h;
}

inline std::string hpack_indexed(std::uint64_t index) {
  return hpack_int(7, 0x80, index);
}

// kind: 0x40 incremental indexing (6-bit prefix), 0x00 without indexing, 0x10 never indexed.
inline std::string hpack_literal(unsigned kind, std::uint64_t name_index, std::string_view name,
                                 std::string_view value, bool huffman_name, bool huffman_value) {
  const unsigned prefix = kind == 0x40 ? 6 : 4;
  std::string out = hpack_int(prefix, kind, name_index);
  if (name_index == 0) out += hpack_string(name, huffman_name);
  return out + hpack_string(value, huffman_value);
}

inline std::string hpack_size_update(std::uint64_t size) {
  return hpack_int(5, 0x20, size);
}

// "8286 8441..." (spaces ignored) as bytes.
inline std::string from_hex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (const char c : hex) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else {
      continue;
    }
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi << 4 | v));
      hi = -1;
    }
  }
  return out;
}

// Bytes as lower-case hex, for failure messages.
inline std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    out.push_back(kDigits[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kDigits[static_cast<unsigned char>(c) & 15]);
  }
  return out;
}

}  // namespace gatebench::testing
