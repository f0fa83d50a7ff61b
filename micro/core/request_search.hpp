// Substring search for short needles in short request fields (tens to hundreds of bytes). glibc
// memmem prepares a two-way search per call, which costs more than the search itself at these
// sizes; this compares the needle's first and last byte at 16 positions per step (SSE2) and
// verifies only the candidates.
#pragma once

#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gatebench::core {

namespace search_detail {

#if defined(__SSE2__)
// Candidates among the 16 positions starting at p: first and last needle byte both equal.
inline unsigned candidates16(const char* p, std::size_t k, __m128i first, __m128i last) {
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k - 1));
  return static_cast<unsigned>(
      _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last))));
}
#endif

inline bool verify(const char* p, unsigned mask, const char* n, std::size_t k) {
  while (mask != 0) {
    const unsigned bit = static_cast<unsigned>(__builtin_ctz(mask));
    if (std::memcmp(p + bit + 1, n + 1, k - 2) == 0) return true;
    mask &= mask - 1;
  }
  return false;
}

}  // namespace search_detail

inline bool contains_literal(std::string_view hay, std::string_view needle) {
  const std::size_t k = needle.size();
  if (k == 0) return true;
  if (k > hay.size()) return false;
  const char* h = hay.data();
  const char* n = needle.data();
  if (k == 1) return std::memchr(h, n[0], hay.size()) != nullptr;
  const std::size_t positions = hay.size() - k + 1;
#if defined(__SSE2__)
  if (positions >= 16) {
    const __m128i first = _mm_set1_epi8(n[0]);
    const __m128i last = _mm_set1_epi8(n[k - 1]);
    std::size_t i = 0;
    for (; i + 16 <= positions; i += 16) {
      if (search_detail::verify(h + i, search_detail::candidates16(h + i, k, first, last), n, k)) {
        return true;
      }
    }
    if (i == positions) return false;
    // The last, partial block: an overlapping block ending at the last position.
    i = positions - 16;
    return search_detail::verify(h + i, search_detail::candidates16(h + i, k, first, last), n, k);
  }
#endif
  for (std::size_t i = 0; i < positions; ++i) {
    if (h[i] == n[0] && h[i + k - 1] == n[k - 1] && std::memcmp(h + i, n, k) == 0) return true;
  }
  return false;
}

}  // namespace gatebench::core
