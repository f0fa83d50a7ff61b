#include "micro/core/http2/huffman.hpp"

#include <cstring>

namespace gatebench::http2 {
namespace {

// The decoder keeps the unread bits left-aligned in a 64-bit word. A code of up to kFastBits
// bits is read with one lookup of the next kFastBits bits, which also gives the code after it
// when both fit: the common letters, digits and punctuation of header values take 5 to 8 bits,
// so most lookups emit two bytes. Longer codes (control bytes, bytes over 0x7f, a few signs)
// are found by comparing the next 32 bits with each length's last code, as canonical codes
// allow.
constexpr unsigned kFastBits = 11;
constexpr unsigned kMaxCodeBits = 30;

struct Canonical {
  // Per length: one past the last code of that length, shifted to the top of 32 bits (64-bit
  // so that 30 bits of ones plus one does not wrap), and the symbol index of its first code.
  std::array<std::uint64_t, kMaxCodeBits + 1> limit{};
  std::array<std::uint32_t, kMaxCodeBits + 1> first{};
  std::array<std::uint16_t, kMaxCodeBits + 1> offset{};
  std::array<std::uint16_t, kHuffmanSymbols> symbols{};  // by (length, symbol)
};

constexpr Canonical kCanonical = [] {
  Canonical c{};
  std::uint32_t next = 0;
  std::uint16_t index = 0;
  for (unsigned len = 1; len <= kMaxCodeBits; ++len) {
    c.first[len] = next;
    c.offset[len] = index;
    for (unsigned s = 0; s < kHuffmanSymbols; ++s) {
      if (kHuffmanCodeLengths[s] != len) continue;
      c.symbols[index++] = static_cast<std::uint16_t>(s);
      ++next;
    }
    c.limit[len] = static_cast<std::uint64_t>(next) << (32 - len);
    next <<= 1;
  }
  return c;
}();

struct Code {
  unsigned symbol;
  unsigned length;
};

// The code at the top of the 32-bit window `w`, searching lengths from `min_len`.
constexpr Code canonical_code(std::uint32_t w, unsigned min_len) {
  unsigned len = min_len;
  while (w >= kCanonical.limit[len]) ++len;
  const std::uint32_t code = w >> (32 - len);
  return {kCanonical.symbols[kCanonical.offset[len] + (code - kCanonical.first[len])], len};
}

// Entry of the fast table: first symbol (bits 0-7), second symbol (8-15), how many symbols
// (16-17: 0 when the next code is longer than kFastBits), the first code's length (18-21) and
// the bits of all the symbols (22-25).
constexpr std::uint32_t entry(unsigned s0, unsigned s1, unsigned n, unsigned len0, unsigned bits) {
  return s0 | s1 << 8 | n << 16 | len0 << 18 | bits << 22;
}

constexpr std::array<std::uint32_t, 1u << kFastBits> kFast = [] {
  std::array<std::uint32_t, 1u << kFastBits> t{};
  for (std::uint32_t i = 0; i < t.size(); ++i) {
    const std::uint32_t w = i << (32 - kFastBits);
    const Code a = canonical_code(w, 1);
    if (a.length > kFastBits) continue;
    const unsigned rest = kFastBits - a.length;
    const Code b = canonical_code(w << a.length, 1);
    t[i] = b.length <= rest ? entry(a.symbol, b.symbol, 2, a.length, a.length + b.length)
                            : entry(a.symbol, 0, 1, a.length, a.length);
  }
  return t;
}();

inline unsigned fast_count(std::uint32_t e) {
  return e >> 16 & 3;
}
inline unsigned fast_len0(std::uint32_t e) {
  return e >> 18 & 15;
}
inline unsigned fast_bits(std::uint32_t e) {
  return e >> 22 & 15;
}

inline std::uint64_t load_be64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return __builtin_bswap64(v);
}

// Writes decoded bytes when kStore; otherwise only counts them (huffman_validate).
template <bool kStore>
HuffmanResult decode(std::string_view in, char* const out, const std::size_t capacity) {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const unsigned char* const end = p + in.size();
  std::uint64_t bits = 0;  // unread bits at the top; every bit below them is zero or input
  unsigned count = 0;      // how many of the top bits are unread input
  std::size_t n = 0;

  // Emits one fast-table entry, checking the room left only when it is under two bytes.
  auto emit = [&](std::uint32_t e, unsigned symbols) -> bool {
    if constexpr (kStore) {
      if (capacity - n < 2) [[unlikely]] {
        if (capacity - n < symbols) return false;
        out[n] = static_cast<char>(e & 0xff);
        n += 1;
        return true;
      }
      out[n] = static_cast<char>(e & 0xff);
      out[n + 1] = static_cast<char>(e >> 8 & 0xff);
    }
    n += symbols;
    return true;
  };
  auto emit_long = [&](unsigned symbol) -> bool {
    if constexpr (kStore) {
      if (n == capacity) return false;
      out[n] = static_cast<char>(symbol);
    }
    ++n;
    return true;
  };

  for (;;) {
    if (end - p >= 8) {
      // Refill to 56-63 bits with one load: the bytes it reads past the counted bits are the
      // next ones of the string and are read again, at the same places, by the next refill.
      bits |= load_be64(p) >> count;
      p += (63 - count) >> 3;
      count |= 56;
    } else {
      if (p == end) break;
      while (count <= 56 && p < end) {
        bits |= static_cast<std::uint64_t>(*p++) << (56 - count);
        count += 8;
      }
    }
    // Any code fits in 30 bits, so each step below has all the bits it reads.
    while (count >= kMaxCodeBits) {
      const std::uint32_t e = kFast[bits >> (64 - kFastBits)];
      if (const unsigned k = fast_count(e); k != 0) [[likely]] {
        if (!emit(e, k)) return {HuffmanStatus::kOutputFull, n};
        const unsigned used = fast_bits(e);
        bits <<= used;
        count -= used;
        continue;
      }
      const Code c = canonical_code(static_cast<std::uint32_t>(bits >> 32), kFastBits + 1);
      if (c.symbol == kEosSymbol) return {HuffmanStatus::kEos, n};
      if (!emit_long(c.symbol)) return {HuffmanStatus::kOutputFull, n};
      bits <<= c.length;
      count -= c.length;
    }
  }

  // The input is all read; fewer than 30 bits are left and every bit below them is zero.
  while (count > 0) {
    const std::uint32_t e = kFast[bits >> (64 - kFastBits)];
    const unsigned k = fast_count(e);
    if (k == 2 && fast_bits(e) <= count) {
      if (!emit(e, 2)) return {HuffmanStatus::kOutputFull, n};
      bits <<= fast_bits(e);
      count -= fast_bits(e);
      continue;
    }
    if (k != 0 && fast_len0(e) <= count) {
      if (!emit(e, 1)) return {HuffmanStatus::kOutputFull, n};
      bits <<= fast_len0(e);
      count -= fast_len0(e);
      continue;
    }
    if (count < 8 && bits == ~std::uint64_t{0} << (64 - count)) break;  // padding
    if (k == 0) {
      const Code c = canonical_code(static_cast<std::uint32_t>(bits >> 32), kFastBits + 1);
      if (c.length <= count) {  // never EOS: that takes 30 bits
        if (!emit_long(c.symbol)) return {HuffmanStatus::kOutputFull, n};
        bits <<= c.length;
        count -= c.length;
        continue;
      }
    }
    return {HuffmanStatus::kBadPadding, n};
  }
  return {HuffmanStatus::kOk, n};
}

}  // namespace

HuffmanResult huffman_decode(std::string_view in, char* out, std::size_t capacity) {
  return decode<true>(in, out, capacity);
}

HuffmanStatus huffman_validate(std::string_view in) {
  return decode<false>(in, nullptr, 0).status;
}

}  // namespace gatebench::http2
