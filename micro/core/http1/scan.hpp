// Byte scans and header-line splitting shared by the request-head and response-head parsers
// (internal to micro/core/http1: the public contracts are in request_head.hpp, response_head.hpp
// and chunked.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "micro/core/http1/header_names.hpp"
#include "micro/core/http1/message.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace gatebench::http1::detail {

// RFC 9110 tchar, as a 256-entry table so the name scan is one load per byte.
constexpr std::array<bool, 256> make_tchar() {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
  return t;
}
inline constexpr std::array<bool, 256> kTchar = make_tchar();

inline bool is_tchar(char c) {
  return kTchar[static_cast<unsigned char>(c)];
}

// A byte a header value may not hold: a control byte other than HTAB, or DEL. The CR that ends
// every line is one, so a single scan from the value's first byte finds the line's end and
// proves the value clean.
inline bool is_value_ctl(unsigned char c) {
  return (c < 0x20 && c != '\t') || c == 0x7f;
}
// A byte a request target may not hold: a control byte, SP or DEL.
inline bool is_target_stop(unsigned char c) {
  return c <= 0x20 || c == 0x7f;
}

#if defined(__SSE2__)
// kMax: bytes <= kMax stop the scan (HTAB excepted when kAllowTab); DEL always stops it.
template <int kMax, bool kAllowTab>
inline unsigned stop_mask16(__m128i v) {
  const __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(kMax)), v);
  __m128i stop = _mm_or_si128(low, _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
  if constexpr (kAllowTab) stop = _mm_andnot_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')), stop);
  return static_cast<unsigned>(_mm_movemask_epi8(stop));
}
#endif
#if defined(__AVX2__)
template <int kMax, bool kAllowTab>
inline unsigned stop_mask32(__m256i v) {
  const __m256i low = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(kMax)), v);
  __m256i stop = _mm256_or_si256(low, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x7f)));
  if constexpr (kAllowTab) {
    stop = _mm256_andnot_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\t')), stop);
  }
  return static_cast<unsigned>(_mm256_movemask_epi8(stop));
}
#endif

// Offset from p of the first stop byte in [p, end), or end - p when there is none.
template <int kMax, bool kAllowTab>
inline std::size_t find_stop(const char* p, const char* end) {
  const char* const start = p;
#if defined(__AVX2__)
  while (end - p >= 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    if (const unsigned m = stop_mask32<kMax, kAllowTab>(v)) {
      return static_cast<std::size_t>(p - start) + static_cast<unsigned>(__builtin_ctz(m));
    }
    p += 32;
  }
#endif
#if defined(__SSE2__)
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (const unsigned m = stop_mask16<kMax, kAllowTab>(v)) {
      return static_cast<std::size_t>(p - start) + static_cast<unsigned>(__builtin_ctz(m));
    }
    p += 16;
  }
#endif
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c <= kMax ? !(kAllowTab && c == '\t') : c == 0x7f) break;
  }
  return static_cast<std::size_t>(p - start);
}

#if defined(__SSSE3__)
// The tchar set as a nibble bitmap for pshufb: byte c is a token byte when
// kTcharLow[c & 15] has bit (c >> 4) set; bytes 0x80-0xFF have no bit (kTcharHigh is 0).
inline constexpr std::array<std::uint8_t, 16> kTcharLow = [] {
  std::array<std::uint8_t, 16> t{};
  for (int c = 0; c < 128; ++c) {
    if (kTchar[static_cast<std::size_t>(c)]) t[static_cast<std::size_t>(c & 15)] |= 1u << (c >> 4);
  }
  return t;
}();
#endif

// Offset from p of the first byte in [p, end) that is not a token byte, or end - p: 16 bytes a
// step, so a method or header name costs one step instead of a loop over its bytes.
inline std::size_t find_non_tchar(const char* p, const char* end) {
  const char* const start = p;
#if defined(__SSSE3__)
  const __m128i low_table = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kTcharLow.data()));
  const __m128i high_table = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i nib = _mm_set1_epi8(0x0f);
    const __m128i lo = _mm_shuffle_epi8(low_table, _mm_and_si128(v, nib));
    const __m128i hi = _mm_shuffle_epi8(high_table, _mm_and_si128(_mm_srli_epi16(v, 4), nib));
    const __m128i none = _mm_cmpeq_epi8(_mm_and_si128(lo, hi), _mm_setzero_si128());
    if (const auto m = static_cast<unsigned>(_mm_movemask_epi8(none))) {
      return static_cast<std::size_t>(p - start) + static_cast<unsigned>(__builtin_ctz(m));
    }
    p += 16;
  }
#endif
  while (p < end && is_tchar(*p)) ++p;
  return static_cast<std::size_t>(p - start);
}

inline std::size_t find_value_ctl(const char* p, const char* end) {
  return find_stop<0x1f, true>(p, end);
}
inline std::size_t find_target_stop(const char* p, const char* end) {
  return find_stop<0x20, false>(p, end);
}

inline bool is_ows(char c) {
  return c == ' ' || c == '\t';
}

inline std::string_view trim(std::string_view v) {
  while (!v.empty() && is_ows(v.front())) v.remove_prefix(1);
  while (!v.empty() && is_ows(v.back())) v.remove_suffix(1);
  return v;
}

// Calls f(token) for each non-empty comma-separated token of a Connection-style list.
template <class F>
void for_each_token(std::string_view v, F&& f) {
  while (!v.empty()) {
    const std::size_t comma = v.find(',');
    const std::string_view tok = trim(v.substr(0, comma));
    if (!tok.empty()) f(tok);
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
}

// A Content-Length value: digits only (a comma list such as "5, 5" and signs are refused).
bool parse_length(std::string_view v, std::uint64_t& out);

// "HTTP/1.0" or "HTTP/1.1" exactly.
bool parse_version(std::string_view v, std::uint8_t& minor);

// Marks the fields whose name is `token` (any case) as hop-by-hop; Host is never dropped.
void mark_connection_token(std::string_view buf, HeadFields& fields, std::string_view token);

// The line from `pos` (name up to name_end, value [v, ve)) whose next line starts at `next`.
inline HeaderLine make_line(const char* base, std::size_t pos, std::size_t name_end, std::size_t v,
                            std::size_t ve, std::size_t next) {
  return HeaderLine{static_cast<std::uint32_t>(pos),
                    static_cast<std::uint32_t>(next - pos),
                    static_cast<std::uint32_t>(v),
                    static_cast<std::uint32_t>(ve - v),
                    static_cast<std::uint16_t>(name_end - pos),
                    classify_token(base + pos, name_end - pos),
                    false};
}

// Where the first line (request or status line) ends: kComplete with the index of its LF, or
// kIncomplete, kTooLarge (no LF within max_head bytes: error = too_long), kBad (a bare LF:
// error = bare_lf).
struct FirstLine {
  HeadStatus status;
  std::size_t lf;
  const char* error;
};
FirstLine find_first_line(std::string_view buf, std::size_t max_head, const char* too_long,
                          const char* bare_lf);

struct LineScan {
  HeadStatus status;
  const char* error;
  std::size_t end;        // past the empty line (kComplete) or past the field's line (is_field)
  bool is_field = false;  // a header line was split: continue at `end`
};

// Splits and checks one header line the slow way (first LF by memchr, then each rule in turn),
// so that every malformed or incomplete line gets the status and message of its first fault.
LineScan scan_line_careful(std::string_view buf, std::size_t pos, std::size_t max_head,
                           HeaderLine& h);

// Splits the header lines from `pos` to the empty line, calling on_field(const HeaderLine&)
// for each; on_field returns false when it can hold no more fields (kTooLarge).
template <class OnField>
LineScan scan_fields(std::string_view buf, std::size_t pos, std::size_t max_head,
                     OnField&& on_field) {
  const char* const base = buf.data();
  const char* const end = base + buf.size();
  const std::size_t size = buf.size();
  for (;;) {
    if (pos + 1 < size && base[pos] == '\r' && base[pos + 1] == '\n' && pos + 2 <= max_head) {
      return {HeadStatus::kComplete, nullptr, pos + 2};  // the empty line that ends the head
    }
    // The common line, "name: value CRLF" with a clean value, in one pass: the name by the
    // tchar table, then one vector scan from the value to its CR. Anything else (the empty
    // line included) takes the careful path.
    const std::size_t p = pos + find_non_tchar(base + pos, end);
    if (p > pos && p < size && base[p] == ':') {
      std::size_t v = p + 1;
      while (v < size && is_ows(base[v])) ++v;
      const std::size_t cr = v + find_value_ctl(base + v, end);
      if (cr + 1 < size && base[cr] == '\r' && base[cr + 1] == '\n' && cr + 2 <= max_head) {
        std::size_t ve = cr;
        while (ve > v && is_ows(base[ve - 1])) --ve;
        if (!on_field(make_line(base, pos, p, v, ve, cr + 2))) {
          return {HeadStatus::kTooLarge, "too many header fields", 0};
        }
        pos = cr + 2;
        continue;
      }
    }
    HeaderLine h;
    const LineScan line = scan_line_careful(buf, pos, max_head, h);
    if (!line.is_field) return line;  // the empty line (kComplete), a fault, or not all there
    if (!on_field(h)) return {HeadStatus::kTooLarge, "too many header fields", 0};
    pos = line.end;
  }
}

}  // namespace gatebench::http1::detail
