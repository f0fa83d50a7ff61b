// Internal to the access-log parsers: a delimiter index over 64-byte blocks and the small
// branch-light field parsers the three formats share. Not part of the public contract.
//
// Why blocks: finding each field's end with its own vector load puts load + compare + movemask
// + tzcnt (~15 cycles) on the critical path of every field. Computing one bit mask per 64-byte
// block instead depends only on the block address, so the CPU computes masks ahead while the
// parser walks set bits (tzcnt + a shift) from field to field.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__AVX512BW__) || defined(__AVX2__) || defined(__SSE2__) || defined(__SSSE3__)
#include <immintrin.h>
#endif

namespace gatebench::access_log::detail {

// Up to three bytes plus, optionally, every control byte (< 0x20).
struct ByteSet {
  char a, b, c;
  bool control = false;
};

inline bool in_set(unsigned char x, ByteSet s) {
  return x == static_cast<unsigned char>(s.a) || x == static_cast<unsigned char>(s.b) ||
         x == static_cast<unsigned char>(s.c) || (s.control && x < 0x20);
}

// Bit i set when p[i] is in the set, for 64 readable bytes at p.
template <ByteSet S>
inline std::uint64_t block_mask(const char* p) {
#if defined(__AVX512BW__)
  const __m512i v = _mm512_loadu_si512(p);
  std::uint64_t m = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(S.a)) |
                    _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(S.b)) |
                    _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(S.c));
  if constexpr (S.control) m |= _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20));
  return m;
#elif defined(__AVX2__)
  auto half = [](const char* q) -> std::uint32_t {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
    __m256i m = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(S.a)),
                                                _mm256_cmpeq_epi8(v, _mm256_set1_epi8(S.b))),
                                _mm256_cmpeq_epi8(v, _mm256_set1_epi8(S.c)));
    if constexpr (S.control) {
      m = _mm256_or_si256(m, _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v));
    }
    return static_cast<std::uint32_t>(_mm256_movemask_epi8(m));
  };
  return half(p) | (static_cast<std::uint64_t>(half(p + 32)) << 32);
#elif defined(__SSE2__)
  std::uint64_t out = 0;
  for (int i = 0; i < 4; ++i) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(S.a)), _mm_cmpeq_epi8(v, _mm_set1_epi8(S.b))),
        _mm_cmpeq_epi8(v, _mm_set1_epi8(S.c)));
    if constexpr (S.control) {
      m = _mm_or_si128(m, _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v));
    }
    out |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(m))) << (16 * i);
  }
  return out;
#else
  std::uint64_t m = 0;
  for (int i = 0; i < 64; ++i) {
    m |= static_cast<std::uint64_t>(in_set(static_cast<unsigned char>(p[i]), S)) << i;
  }
  return m;
#endif
}

// Finds bytes of the sets S0 (and S1) in [data, data + size) in increasing order of position.
// Blocks start at multiples of 64 from `data`; the last, partial block is copied into a
// zero-filled local so nothing past the buffer is ever read.
template <ByteSet S0, ByteSet S1 = S0>
class BlockScanner {
 public:
  BlockScanner(const char* data, std::size_t size) : data_(data), size_(size) {}

  // Position of the first byte >= pos in set I, or size() when there is none.
  template <int I>
  [[gnu::always_inline]] std::size_t find(std::size_t pos) {
    for (;;) {
      const std::size_t block = pos & ~std::size_t{63};
      if (block != block_) [[unlikely]] {
        if (pos >= size_) return size_;
        load(block);
      }
      const std::uint64_t m = mask_[I] & (~std::uint64_t{0} << (pos & 63));
      if (m != 0) {
        const std::size_t r = block + static_cast<std::size_t>(__builtin_ctzll(m));
        return r < size_ ? r : size_;  // zero padding matches a control-byte set
      }
      pos = block + 64;
    }
  }

  std::size_t size() const { return size_; }

 private:
  [[gnu::always_inline]] void load(std::size_t block) {
    block_ = block;
    if (size_ - block >= 64) [[likely]] {
      mask_[0] = block_mask<S0>(data_ + block);
      mask_[1] = block_mask<S1>(data_ + block);
    } else {
      load_tail(block);
    }
  }

  // The last, partial block: kept out of line so the hot path has no 64-byte stack buffer.
  [[gnu::noinline, gnu::cold]] void load_tail(std::size_t block) {
    char tail[64] = {};
    std::memcpy(tail, data_ + block, size_ - block);
    mask_[0] = block_mask<S0>(tail);
    mask_[1] = block_mask<S1>(tail);
  }

  const char* data_;
  std::size_t size_;
  std::size_t block_ = ~std::size_t{0};
  std::uint64_t mask_[2] = {0, 0};
};

inline bool is_digit(unsigned char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

inline int hex_value(unsigned char c) {
  if (is_digit(c)) return c - '0';
  const unsigned char l = c | 0x20;
  if (l >= 'a' && l <= 'f') return l - 'a' + 10;
  return -1;
}

// Dotted quad, 1-3 digits per octet, each <= 255, spanning exactly [b, e).
inline bool parse_ipv4(const char* b, const char* e, std::uint32_t& out) {
  std::uint32_t ip = 0;
  for (int octet = 0; octet < 4; ++octet) {
    if (octet) {
      if (b == e || *b != '.') return false;
      ++b;
    }
    std::uint32_t v = 0;
    int n = 0;
    while (b < e && n < 3 && is_digit(static_cast<unsigned char>(*b))) {
      v = v * 10 + static_cast<unsigned char>(*b - '0');
      ++b;
      ++n;
    }
    if (n == 0 || v > 255) return false;
    ip = ip << 8 | v;
  }
  out = ip;
  return b == e;
}

// Unsigned integer of 1..19 digits spanning exactly [b, e) (19 digits never overflow 64 bits).
inline bool parse_u64(const char* b, const char* e, std::uint64_t& out) {
  const std::size_t n = static_cast<std::size_t>(e - b);
  if (n == 0 || n > 19) return false;
  std::uint64_t v = 0;
  for (; b < e; ++b) {
    const unsigned d = static_cast<unsigned char>(*b) - '0';
    if (d > 9) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

// Eight ASCII digits at p (8 readable bytes) to their value; false if any byte is not a digit.
// SWAR: one subtract and mask check instead of eight compare-and-branch steps.
inline bool parse_8_digits(const char* p, std::uint64_t& out) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native != std::endian::little) x = __builtin_bswap64(x);
  const std::uint64_t v = x - 0x3030303030303030ULL;
  // A byte below '0' borrows (high bit set); a byte above '9' reaches 0x80 when 0x76 is added.
  if (((v | (v + 0x7676767676767676ULL)) & 0x8080808080808080ULL) != 0) return false;
  const std::uint64_t pairs = v * 10 + (v >> 8);
  out = (((pairs & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
         (((pairs >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
        32;
  return true;
}

// Three ASCII digits at p.
inline bool parse_3_digits(const char* p, std::uint32_t& out) {
  const unsigned a = static_cast<unsigned char>(p[0]) - '0';
  const unsigned b = static_cast<unsigned char>(p[1]) - '0';
  const unsigned c = static_cast<unsigned char>(p[2]) - '0';
  out = a * 100 + b * 10 + c;
  return (a <= 9) & (b <= 9) & (c <= 9);
}

// Seconds as 1..10 digits with an optional '.' and 1..6 fraction digits, spanning exactly
// [b, e), converted to microseconds.
inline bool parse_seconds_us(const char* b, const char* e, std::int64_t& out) {
  // The two shapes the gateway writes, unix time and a duration with milliseconds
  // ("1764443039.123", "0.012"), without a loop.
  const std::ptrdiff_t len = e - b;
  std::uint32_t ms;
  if (len == 14 && b[10] == '.') {
    std::uint64_t high;
    const unsigned d8 = static_cast<unsigned char>(b[8]) - '0';
    const unsigned d9 = static_cast<unsigned char>(b[9]) - '0';
    if (parse_8_digits(b, high) && d8 <= 9 && d9 <= 9 && parse_3_digits(b + 11, ms)) {
      const std::uint64_t secs = high * 100 + d8 * 10 + d9;
      out = static_cast<std::int64_t>(secs) * 1'000'000 + static_cast<std::int64_t>(ms) * 1000;
      return true;
    }
    return false;
  }
  if (len == 5 && b[1] == '.') {
    const unsigned s = static_cast<unsigned char>(b[0]) - '0';
    if (s > 9 || !parse_3_digits(b + 2, ms)) return false;
    out = static_cast<std::int64_t>(s) * 1'000'000 + static_cast<std::int64_t>(ms) * 1000;
    return true;
  }
  std::int64_t secs = 0;
  int n = 0;
  while (b < e && is_digit(static_cast<unsigned char>(*b))) {
    secs = secs * 10 + (*b - '0');
    ++b;
    if (++n > 10) return false;
  }
  if (n == 0) return false;
  std::int64_t frac = 0;
  if (b < e) {
    if (*b != '.') return false;
    ++b;
    int f = 0;
    while (b < e && is_digit(static_cast<unsigned char>(*b))) {
      frac = frac * 10 + (*b - '0');
      ++b;
      if (++f > 6) return false;
    }
    if (f == 0 || f > 6 || b != e) return false;
    static constexpr std::int64_t kScale[7] = {1, 100000, 10000, 1000, 100, 10, 1};
    frac *= kScale[f];
  }
  out = secs * 1'000'000 + frac;
  return true;
}

// Fast-path variants that read a few bytes around the field: the caller guarantees
// that the bytes each names lie inside the buffer. They accept exactly what the
// plain versions accept.

#if defined(__SSSE3__)
// For the 81 combinations of octet lengths (1..3 each), the pshufb control that moves each
// octet's digits to the end of its own 4-byte lane and zeroes the bytes before them, so one
// multiply-add turns all four into numbers. Index: (l0-1)*27 + (l1-1)*9 + (l2-1)*3 + (l3-1).
struct Ipv4Shuffles {
  alignas(16) std::uint8_t ctrl[81][16];
};

constexpr Ipv4Shuffles make_ipv4_shuffles() {
  Ipv4Shuffles t{};
  for (int id = 0; id < 81; ++id) {
    const int len[4] = {id / 27 + 1, id / 9 % 3 + 1, id / 3 % 3 + 1, id % 3 + 1};
    int start = 0;
    for (int o = 0; o < 4; ++o) {
      for (int j = 0; j < 4; ++j) {
        const int from_end = 3 - j;  // byte 3 of a lane takes the octet's last digit
        t.ctrl[id][4 * o + j] =
            static_cast<std::uint8_t>(from_end < len[o] ? start + len[o] - 1 - from_end : 0x80);
      }
      start += len[o] + 1;
    }
  }
  return t;
}

inline constexpr Ipv4Shuffles kIpv4Shuffles = make_ipv4_shuffles();

// The end of every vector IPv4 parser: four 4-byte lanes of right-aligned digit values (byte j of
// lane k = the digit 3 - j places before octet k's end, 0 where the octet has none) become the
// address, first octet most significant; false when an octet is over 255.
[[gnu::always_inline]] inline bool ipv4_from_lanes(__m128i lanes, std::uint32_t& out) {
  const __m128i pairs = _mm_maddubs_epi16(
      lanes, _mm_setr_epi8(0, 100, 10, 1, 0, 100, 10, 1, 0, 100, 10, 1, 0, 100, 10, 1));
  const __m128i octets = _mm_madd_epi16(pairs, _mm_set1_epi16(1));
  const bool ok = _mm_movemask_epi8(_mm_cmpgt_epi32(octets, _mm_set1_epi32(255))) == 0;
  const __m128i packed = _mm_shuffle_epi8(
      octets, _mm_setr_epi8(12, 8, 4, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  out = static_cast<std::uint32_t>(_mm_cvtsi128_si32(packed));
  return ok;
}
#endif

// Dotted quad without data-dependent branches (octet lengths are random, so a digit loop
// mispredicts about twice per address). Reads [b - 3, b + 16).
inline bool parse_ipv4_near(const char* b, const char* e, std::uint32_t& out) {
#if defined(__SSSE3__)
  // The three dots give the four octet lengths, the lengths pick a shuffle that lines the
  // digits up, and one multiply-add per lane makes the octets: no loop over octets.
  const std::ptrdiff_t len = e - b;
  const unsigned in_field = (1u << (len & 15)) - 1;
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
  unsigned dots = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('.'))));
  const __m128i t = _mm_sub_epi8(v, _mm_set1_epi8('0'));
  const unsigned digits = static_cast<unsigned>(
      _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t)));
  bool ok = (len >= 7) & (len <= 15) & (((digits | dots) & in_field) == in_field);
  dots &= in_field;
  ok &= __builtin_popcount(dots) == 3;
  const auto d1 = static_cast<unsigned>(__builtin_ctz(dots | 0x10000u));
  dots &= dots - 1;
  const auto d2 = static_cast<unsigned>(__builtin_ctz(dots | 0x10000u));
  dots &= dots - 1;
  const auto d3 = static_cast<unsigned>(__builtin_ctz(dots | 0x10000u));
  // Octet lengths minus one; a wrapped difference is large and fails the check.
  const unsigned l0 = d1 - 1;
  const unsigned l1 = d2 - d1 - 2;
  const unsigned l2 = d3 - d2 - 2;
  const unsigned l3 = static_cast<unsigned>(len) - d3 - 2;
  ok &= (l0 <= 2) & (l1 <= 2) & (l2 <= 2) & (l3 <= 2);
  const unsigned id = ok ? l0 * 27 + l1 * 9 + l2 * 3 + l3 : 0;
  const __m128i ctrl = _mm_load_si128(reinterpret_cast<const __m128i*>(kIpv4Shuffles.ctrl[id]));
  ok &= ipv4_from_lanes(_mm_shuffle_epi8(t, ctrl), out);
  return ok;
#else
  const std::ptrdiff_t len = e - b;
  const unsigned in_field = (1u << (len & 15)) - 1;
  unsigned dots = 0, digits = 0;
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
  dots = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('.'))));
  const __m128i t = _mm_sub_epi8(v, _mm_set1_epi8('0'));
  digits = static_cast<unsigned>(
      _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t)));
#else
  for (int i = 0; i < 16; ++i) {
    dots |= static_cast<unsigned>(b[i] == '.') << i;
    digits |= static_cast<unsigned>(is_digit(static_cast<unsigned char>(b[i]))) << i;
  }
#endif
  // Every byte a digit or a dot, three dots; the end acts as a fourth dot.
  bool ok = (len >= 7) & (len <= 15) & (((digits | dots) & in_field) == in_field);
  dots = (dots & in_field) | (1u << (len & 15));
  ok &= __builtin_popcount(dots) == 4;
  std::uint32_t ip = 0;
  std::ptrdiff_t start = 0;
  for (int i = 0; i < 4; ++i) {
    const auto q = static_cast<std::ptrdiff_t>(__builtin_ctz(dots | 0x10000u));
    dots &= dots - 1;
    const std::ptrdiff_t n = q - start;
    // Always load the three bytes before the dot; the ones of the previous octet are multiplied
    // by zero (octet lengths are random, so a branch per length would mispredict).
    const unsigned r0 = static_cast<unsigned char>(b[q - 3]) - '0';
    const unsigned r1 = static_cast<unsigned char>(b[q - 2]) - '0';
    const unsigned r2 = static_cast<unsigned char>(b[q - 1]) - '0';
    const unsigned v8 = r0 * 100 * (n >= 3) + r1 * 10 * (n >= 2) + r2;
    ok &= (n >= 1) & (n <= 3) & (v8 <= 255);
    ip = ip << 8 | (v8 & 255);
    start = q + 1;
  }
  out = ip;
  return ok;
#endif
}

#if defined(__AVX512VBMI2__) && defined(__AVX512VL__) && defined(__AVX512BW__) && defined(__BMI2__)
#define GATEBENCH_HAVE_IPV4_COMPRESS 1
// parse_ipv4_near without the table: the four octet ends (three dots and the field's end)
// compressed into four bytes give each octet's start and end, and from them the shuffle that
// lines the digits up, in a few vector steps instead of a chain of bit scans and a dependent
// table load. Reads [b, b + 16).
inline bool parse_ipv4_compress(const char* b, const char* e, std::uint32_t& out) {
  const std::ptrdiff_t len = e - b;
  const auto field = static_cast<__mmask16>(_bzhi_u32(0xffff, static_cast<unsigned>(len & 15)));
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
  const __m128i t = _mm_sub_epi8(v, _mm_set1_epi8('0'));
  const auto dots = static_cast<unsigned>(_mm_mask_cmpeq_epi8_mask(field, v, _mm_set1_epi8('.')));
  const auto digits = static_cast<unsigned>(_mm_mask_cmple_epu8_mask(field, t, _mm_set1_epi8(9)));
  const unsigned ends = dots | (1u << (len & 15));
  bool ok = (len >= 7) & (len <= 15) & ((digits | dots) == field) & (__builtin_popcount(ends) == 4);
  const __m128i at =
      _mm_maskz_compress_epi8(static_cast<__mmask16>(ends),
                              _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  // Octet k spans [start, end) in byte lanes 4k..4k+3; the first starts at 0.
  const __m128i end =
      _mm_shuffle_epi8(at, _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
  const __m128i start = _mm_add_epi8(
      _mm_shuffle_epi8(at, _mm_setr_epi8(-1, -1, -1, -1, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2)),
      _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1));
  // 1..3 digits each.
  ok &= _mm_cmple_epu8_mask(_mm_sub_epi8(_mm_sub_epi8(end, start), _mm_set1_epi8(1)),
                            _mm_set1_epi8(2)) == 0xffff;
  // Byte j of lane k takes the digit 3 - j places before the octet's end, none before its start.
  const __m128i from = _mm_add_epi8(
      end, _mm_setr_epi8(-4, -3, -2, -1, -4, -3, -2, -1, -4, -3, -2, -1, -4, -3, -2, -1));
  const __m128i lanes = _mm_maskz_shuffle_epi8(_mm_cmpge_epi8_mask(from, start), t, from);
  ok &= ipv4_from_lanes(lanes, out);
  return ok;
}
#endif

// 1..19 digits; up to 8 of them in one SWAR step on the 8 bytes that end at e.
inline bool parse_u64_near(const char* b, const char* e, std::uint64_t& out) {
  const std::ptrdiff_t len = e - b;
  if (len >= 1 && len <= 8) {
    std::uint64_t x;
    std::memcpy(&x, e - 8, 8);
    if constexpr (std::endian::native != std::endian::little) x = __builtin_bswap64(x);
    // Bytes before the field become '0'.
    const std::uint64_t low = len == 8 ? 0 : (std::uint64_t{1} << (8 * (8 - len))) - 1;
    x = (x & ~low) | (0x3030303030303030ULL & low);
    if constexpr (std::endian::native != std::endian::little) x = __builtin_bswap64(x);
    char buf[8];
    std::memcpy(buf, &x, 8);
    return parse_8_digits(buf, out);
  }
  return parse_u64(b, e, out);
}

// HTTP status: exactly three digits, 100..599, spanning exactly [b, e).
inline bool parse_status(const char* b, const char* e, std::uint16_t& out) {
  if (e - b != 3) return false;
  const unsigned d0 = static_cast<unsigned char>(b[0]) - '0';
  const unsigned d1 = static_cast<unsigned char>(b[1]) - '0';
  const unsigned d2 = static_cast<unsigned char>(b[2]) - '0';
  if (d0 - 1 > 4 || d1 > 9 || d2 > 9) return false;
  out = static_cast<std::uint16_t>(d0 * 100 + d1 * 10 + d2);
  return true;
}

// "GET", "POST", ...: 1..16 upper-case letters spanning exactly [b, e).
inline bool valid_method_token(const char* b, const char* e) {
  const std::size_t n = static_cast<std::size_t>(e - b);
  if (n == 0 || n > 16) return false;
  for (; b < e; ++b) {
    if (static_cast<unsigned char>(*b - 'A') > 25) return false;
  }
  return true;
}

}  // namespace gatebench::access_log::detail
