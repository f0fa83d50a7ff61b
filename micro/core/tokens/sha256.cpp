#include "micro/core/tokens/sha256.hpp"

#include <cpuid.h>
#include <immintrin.h>

#include <cstring>

namespace gatebench::tokens {
namespace {

constexpr std::uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

std::uint32_t load_be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

#if !defined(__SHA__)
bool detect_shani() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  const bool sha = (ebx >> 29) & 1;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  const bool ssse3 = (ecx >> 9) & 1;
  const bool sse41 = (ecx >> 19) & 1;
  return sha && ssse3 && sse41;
}

// Decided once before main: the hot path then pays one predictable branch, not an indirect call.
const bool kHaveShani = detect_shani();
#endif

}  // namespace

bool sha256_has_shani() {
#if defined(__SHA__)
  return true;
#else
  return kHaveShani;
#endif
}

namespace {

// kWords: the block is given as 16 message words (already big-endian-decoded), not bytes.
template <bool kWords>
void portable_impl(Sha256State& state, const void* data, std::size_t blocks_count) {
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  const auto* words = static_cast<const std::uint32_t*>(data);
  for (std::size_t b = 0; b < blocks_count; ++b) {
    std::uint32_t w[64];
    for (int t = 0; t < 16; ++t)
      w[t] = kWords ? words[16 * b + t] : load_be32(bytes + 64 * b + 4 * t);
    for (int t = 16; t < 64; ++t) {
      const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint32_t a = state.h[0], b2 = state.h[1], c = state.h[2], d = state.h[3];
    std::uint32_t e = state.h[4], f = state.h[5], g = state.h[6], h = state.h[7];
    for (int t = 0; t < 64; ++t) {
      const std::uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const std::uint32_t ch = (e & f) ^ (~e & g);
      const std::uint32_t t1 = h + s1 + ch + kRound[t] + w[t];
      const std::uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const std::uint32_t maj = (a & b2) ^ (a & c) ^ (b2 & c);
      const std::uint32_t t2 = s0 + maj;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b2;
      b2 = a;
      a = t1 + t2;
    }
    state.h[0] += a;
    state.h[1] += b2;
    state.h[2] += c;
    state.h[3] += d;
    state.h[4] += e;
    state.h[5] += f;
    state.h[6] += g;
    state.h[7] += h;
  }
}

// The SHA-NI instructions keep the eight state words as two vectors, ABEF and CDGH, and run two
// rounds per sha256rnds2; the message schedule is four vectors of four words, rotated.
template <bool kWords>
__attribute__((target("sha,sse4.1,ssse3"))) inline void shani_impl(Sha256State& state,
                                                                   const void* data,
                                                                   std::size_t blocks_count) {
  const auto* blocks = static_cast<const std::uint8_t*>(data);
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);

  __m128i tmp = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state.h[0]));
  __m128i cdgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state.h[4]));
  tmp = _mm_shuffle_epi32(tmp, 0xB1);
  cdgh = _mm_shuffle_epi32(cdgh, 0x1B);
  __m128i abef = _mm_alignr_epi8(tmp, cdgh, 8);
  cdgh = _mm_blend_epi16(cdgh, tmp, 0xF0);

  for (std::size_t b = 0; b < blocks_count; ++b, blocks += kSha256BlockSize) {
    const __m128i abef_in = abef;
    const __m128i cdgh_in = cdgh;
    __m128i w[4];
    for (int i = 0; i < 4; ++i) {
      const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks + 16 * i));
      w[i] = kWords ? raw : _mm_shuffle_epi8(raw, byte_swap);
    }
    for (int i = 0; i < 16; ++i) {
      if (i >= 4) {
        // w[i % 4] holds W(i-4); W(i) = msg2(msg1(W(i-4), W(i-3)) + W(i-7 ...), W(i-1)).
        __m128i next = _mm_sha256msg1_epu32(w[i % 4], w[(i + 1) % 4]);
        next = _mm_add_epi32(next, _mm_alignr_epi8(w[(i + 3) % 4], w[(i + 2) % 4], 4));
        w[i % 4] = _mm_sha256msg2_epu32(next, w[(i + 3) % 4]);
      }
      __m128i msg = _mm_add_epi32(
          w[i % 4], _mm_loadu_si128(reinterpret_cast<const __m128i*>(&kRound[4 * i])));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);
      msg = _mm_shuffle_epi32(msg, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, msg);
      // After two double-rounds the roles swap back: abef holds ABEF, cdgh holds CDGH.
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }

  tmp = _mm_shuffle_epi32(abef, 0x1B);
  cdgh = _mm_shuffle_epi32(cdgh, 0xB1);
  const __m128i abcd = _mm_blend_epi16(tmp, cdgh, 0xF0);
  const __m128i efgh = _mm_alignr_epi8(cdgh, tmp, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state.h[0]), abcd);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state.h[4]), efgh);
}

}  // namespace

void sha256_compress_portable(Sha256State& state, const std::uint8_t* blocks,
                              std::size_t blocks_count) {
  portable_impl<false>(state, blocks, blocks_count);
}
void sha256_compress_words_portable(Sha256State& state, const std::uint32_t* words) {
  portable_impl<true>(state, words, 1);
}
__attribute__((target("sha,sse4.1,ssse3"))) void sha256_compress_shani(Sha256State& state,
                                                                       const std::uint8_t* blocks,
                                                                       std::size_t blocks_count) {
  shani_impl<false>(state, blocks, blocks_count);
}
__attribute__((target("sha,sse4.1,ssse3"))) void sha256_compress_words_shani(
    Sha256State& state, const std::uint32_t* words) {
  shani_impl<true>(state, words, 1);
}

void sha256_compress(Sha256State& state, const std::uint8_t* blocks, std::size_t blocks_count) {
#if defined(__SHA__)
  sha256_compress_shani(state, blocks, blocks_count);
#else
  if (kHaveShani) {
    sha256_compress_shani(state, blocks, blocks_count);
  } else {
    sha256_compress_portable(state, blocks, blocks_count);
  }
#endif
}

void sha256_compress_words(Sha256State& state, const std::uint32_t* words) {
#if defined(__SHA__)
  sha256_compress_words_shani(state, words);
#else
  if (kHaveShani) {
    sha256_compress_words_shani(state, words);
  } else {
    sha256_compress_words_portable(state, words);
  }
#endif
}

Sha256Digest sha256_state_bytes(const Sha256State& state) {
  Sha256Digest out;
  for (int i = 0; i < 8; ++i) {
    out[4 * i] = static_cast<std::uint8_t>(state.h[i] >> 24);
    out[4 * i + 1] = static_cast<std::uint8_t>(state.h[i] >> 16);
    out[4 * i + 2] = static_cast<std::uint8_t>(state.h[i] >> 8);
    out[4 * i + 3] = static_cast<std::uint8_t>(state.h[i]);
  }
  return out;
}

Sha256State sha256_finish_state(Sha256State state, std::uint64_t prefix_bytes,
                                std::span<const std::uint8_t> message) {
  const std::size_t full_blocks = message.size() / kSha256BlockSize;
  if (full_blocks != 0) sha256_compress(state, message.data(), full_blocks);
  const std::size_t tail = message.size() % kSha256BlockSize;
  std::uint8_t pad[2 * kSha256BlockSize] = {};
  if (tail != 0) std::memcpy(pad, message.data() + full_blocks * kSha256BlockSize, tail);
  pad[tail] = 0x80;
  const std::size_t pad_blocks = tail < 56 ? 1 : 2;
  const std::uint64_t bits = (prefix_bytes + message.size()) * 8;
  std::uint8_t* length = pad + pad_blocks * kSha256BlockSize - 8;
  for (int i = 0; i < 8; ++i) length[i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
  sha256_compress(state, pad, pad_blocks);
  return state;
}

}  // namespace gatebench::tokens
