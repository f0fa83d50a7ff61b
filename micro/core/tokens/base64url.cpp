#include "micro/core/tokens/base64url.hpp"

#include <immintrin.h>

#include <array>

namespace gatebench::tokens {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// 0..63 for alphabet characters, 0x80 otherwise: OR-ing four lookups tests all four at once.
constexpr std::array<std::uint8_t, 256> make_decode_table() {
  std::array<std::uint8_t, 256> table{};
  for (auto& v : table) v = 0x80;
  for (std::uint8_t i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = i;
  return table;
}
constexpr std::array<std::uint8_t, 256> kDecode = make_decode_table();

std::uint8_t lookup(char c) {
  return kDecode[static_cast<unsigned char>(c)];
}

// For output byte j of a 64-character step: 32-bit lane j / 3 holds three bytes, first one
// highest (the multiply-adds leave c0 c1 c2 c3 as a 24-bit big-endian number).
constexpr std::array<std::uint8_t, 64> make_compact_table() {
  std::array<std::uint8_t, 64> table{};
  for (int j = 0; j < 48; ++j) table[j] = static_cast<std::uint8_t>(4 * (j / 3) + 2 - j % 3);
  return table;
}
alignas(64) constexpr std::array<std::uint8_t, 64> kCompact = make_compact_table();
alignas(64) constexpr std::array<std::uint8_t, 256> kDecodeAligned = kDecode;

constexpr std::uint64_t low_mask(std::size_t bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

#if !(defined(__AVX512VBMI__) && defined(__AVX512BW__))
// Probed once before main, as for SHA-NI.
const bool kHaveVbmi = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
#endif

}  // namespace

std::size_t base64url_encode(std::span<const std::uint8_t> in, std::span<char> out) {
  std::size_t o = 0;
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v =
        (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) | in[i + 2];
    out[o++] = kAlphabet[v >> 18];
    out[o++] = kAlphabet[(v >> 12) & 63];
    out[o++] = kAlphabet[(v >> 6) & 63];
    out[o++] = kAlphabet[v & 63];
  }
  const std::size_t rest = in.size() - i;
  if (rest == 1) {
    const std::uint32_t v = std::uint32_t{in[i]} << 16;
    out[o++] = kAlphabet[v >> 18];
    out[o++] = kAlphabet[(v >> 12) & 63];
  } else if (rest == 2) {
    const std::uint32_t v = (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8);
    out[o++] = kAlphabet[v >> 18];
    out[o++] = kAlphabet[(v >> 12) & 63];
    out[o++] = kAlphabet[(v >> 6) & 63];
  }
  return o;
}

std::string base64url_encode(std::span<const std::uint8_t> in) {
  std::string out(base64url_encoded_size(in.size()), '\0');
  base64url_encode(in, std::span<char>(out.data(), out.size()));
  return out;
}

std::optional<std::size_t> base64url_decode_scalar(std::string_view in,
                                                   std::span<std::uint8_t> out) {
  const auto size = base64url_decoded_size(in.size());
  if (!size || *size > out.size()) return std::nullopt;
  std::uint8_t* dst = out.data();
  std::size_t i = 0;
  std::uint8_t bad = 0;
  for (; i + 4 <= in.size(); i += 4) {
    const std::uint8_t a = lookup(in[i]), b = lookup(in[i + 1]), c = lookup(in[i + 2]),
                       d = lookup(in[i + 3]);
    bad |= a | b | c | d;
    const std::uint32_t v =
        (std::uint32_t{a} << 18) | (std::uint32_t{b} << 12) | (std::uint32_t{c} << 6) | d;
    *dst++ = static_cast<std::uint8_t>(v >> 16);
    *dst++ = static_cast<std::uint8_t>(v >> 8);
    *dst++ = static_cast<std::uint8_t>(v);
  }
  const std::size_t rest = in.size() - i;
  if (rest == 2) {
    const std::uint8_t a = lookup(in[i]), b = lookup(in[i + 1]);
    // Two characters carry 12 bits for one byte: the low 4 bits of the second must be zero.
    bad |= a | b | ((b & 0x0f) != 0 ? 0x80 : 0);
    *dst++ = static_cast<std::uint8_t>((a << 2) | (b >> 4));
  } else if (rest == 3) {
    const std::uint8_t a = lookup(in[i]), b = lookup(in[i + 1]), c = lookup(in[i + 2]);
    // Three characters carry 18 bits for two bytes: the low 2 bits of the third must be zero.
    bad |= a | b | c | ((c & 0x03) != 0 ? 0x80 : 0);
    const std::uint32_t v =
        (std::uint32_t{a} << 18) | (std::uint32_t{b} << 12) | (std::uint32_t{c} << 6);
    *dst++ = static_cast<std::uint8_t>(v >> 16);
    *dst++ = static_cast<std::uint8_t>(v >> 8);
  }
  if (bad & 0x80) return std::nullopt;
  return *size;
}

bool base64url_has_vbmi() {
#if defined(__AVX512VBMI__) && defined(__AVX512BW__)
  return true;
#else
  return kHaveVbmi;
#endif
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) std::optional<std::size_t>
base64url_decode_vbmi(std::string_view in, std::span<std::uint8_t> out) {
  const auto size = base64url_decoded_size(in.size());
  if (!size || *size > out.size()) return std::nullopt;
  // The table's first 128 entries: characters >= 0x80 are caught by their own high bit.
  const __m512i table_lo = _mm512_load_si512(kDecodeAligned.data());
  const __m512i table_hi = _mm512_load_si512(kDecodeAligned.data() + 64);
  const __m512i compact = _mm512_load_si512(kCompact.data());
  const __m512i high_bit = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i pair_weights = _mm512_set1_epi32(0x01400140);  // c0 * 64 + c1 per 16 bits
  const __m512i quad_weights = _mm512_set1_epi32(0x00011000);  // (c0c1) * 4096 + c2c3 per 32
  const char* src = in.data();
  std::uint8_t* dst = out.data();
  for (std::size_t left = in.size(); left > 0;) {
    const std::size_t n = left < 64 ? left : 64;
    const __mmask64 in_mask = low_mask(n);
    const __m512i chars = _mm512_maskz_loadu_epi8(in_mask, src);
    const __m512i values = _mm512_permutex2var_epi8(table_lo, chars, table_hi);
    if (_mm512_mask_test_epi8_mask(in_mask, _mm512_or_si512(chars, values), high_bit) != 0) {
      return std::nullopt;
    }
    const __m512i clean = _mm512_maskz_mov_epi8(in_mask, values);
    const __m512i packed =
        _mm512_madd_epi16(_mm512_maddubs_epi16(clean, pair_weights), quad_weights);
    // The maskz form: GCC 12's plain vpermb intrinsic trips -Wmaybe-uninitialized.
    const __m512i bytes = _mm512_maskz_permutexvar_epi8(~__mmask64{0}, compact, packed);
    const std::size_t produced = n / 4 * 3 + (n % 4 == 0 ? 0 : n % 4 - 1);
    _mm512_mask_storeu_epi8(dst, low_mask(produced), bytes);
    src += n;
    dst += produced;
    left -= n;
  }
  // The unused bits of a partial last group must be zero (see the header).
  const std::size_t rest = in.size() % 4;
  const std::uint8_t last = in.empty() ? 0 : lookup(in.back());
  if ((rest == 2 && (last & 0x0f) != 0) || (rest == 3 && (last & 0x03) != 0)) return std::nullopt;
  return *size;
}

std::optional<std::size_t> base64url_decode(std::string_view in, std::span<std::uint8_t> out) {
#if defined(__AVX512VBMI__) && defined(__AVX512BW__)
  return base64url_decode_vbmi(in, out);
#else
  return kHaveVbmi ? base64url_decode_vbmi(in, out) : base64url_decode_scalar(in, out);
#endif
}

}  // namespace gatebench::tokens
