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

// Offset from p of the first LF in [p, end), or end - p: memchr inline, for the first line,
// where the call would cost more than the scan.
inline std::size_t find_lf(const char* p, const char* end) {
  const char* const start = p;
#if defined(__AVX2__)
  for (; end - p >= 32; p += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    if (const auto m = static_cast<unsigned>(
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n'))))) {
      return static_cast<std::size_t>(p - start) + static_cast<unsigned>(__builtin_ctz(m));
    }
  }
#endif
#if defined(__SSE2__)
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (const auto m =
            static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))))) {
      return static_cast<std::size_t>(p - start) + static_cast<unsigned>(__builtin_ctz(m));
    }
  }
#endif
  while (p < end && *p != '\n') ++p;
  return static_cast<std::size_t>(p - start);
}

#if defined(__AVX2__)
// Bit i set when byte i of v is not a token byte: find_non_tchar's pshufb test in both lanes.
inline unsigned non_tchar_mask32(__m256i v) {
  const __m256i low_table = _mm256_broadcastsi128_si256(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(kTcharLow.data())));
  const __m256i high_table =
      _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0,  //
                       1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i nib = _mm256_set1_epi8(0x0f);
  const __m256i lo = _mm256_shuffle_epi8(low_table, _mm256_and_si256(v, nib));
  const __m256i hi =
      _mm256_shuffle_epi8(high_table, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib));
  const __m256i none = _mm256_cmpeq_epi8(_mm256_and_si256(lo, hi), _mm256_setzero_si256());
  return static_cast<unsigned>(_mm256_movemask_epi8(none));
}
#endif

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

// Calls f(token) for each non-empty comma-separated token of a Connection-style list. The
// lists are short, so a byte loop finds each comma sooner than a call to memchr.
template <class F>
void for_each_token(std::string_view v, F&& f) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= v.size(); ++i) {
    if (i < v.size() && v[i] != ',') continue;
    const std::string_view tok = trim(v.substr(start, i - start));
    if (!tok.empty()) f(tok);
    start = i + 1;
  }
}

// Whether a header value, or a token of one, is the lower-case literal in any case, by token_is's
// word compares. That is exact here too: the literals hold letters, digits and '-', and the only
// other bytes OR 0x20 maps onto those are control bytes other than HTAB, which no value holds.
template <Literal kLit>
inline bool value_is(std::string_view v) {
  return v.size() == decltype(kLit)::kLength && token_is<kLit>(v.data());
}

// A Content-Length value: digits only (a comma list such as "5, 5" and signs are refused).
bool parse_length(std::string_view v, std::uint64_t& out);

// "HTTP/1.0" or "HTTP/1.1" exactly: one 8-byte word compare instead of a string compare.
inline bool parse_version(std::string_view v, std::uint8_t& minor) {
  if (v.size() != 8) return false;
  std::uint64_t w = 0;
  std::memcpy(&w, v.data(), 8);
  constexpr std::uint64_t kHttp10 = word("HTTP/1.0");
  constexpr std::uint64_t kHttp11 = word("HTTP/1.1");
  if (w != kHttp10 && w != kHttp11) return false;
  minor = w == kHttp11 ? 1 : 0;
  return true;
}

// Marks the fields whose name is `token` (any case) as hop-by-hop; Host is never dropped.
void mark_connection_token(std::string_view buf, HeadFields& fields, std::string_view token);

// The line from `pos` (name up to name_end, value [v, ve)) whose next line starts at `next`.
// Inlined into the scans for the reason given at classify_token.
[[gnu::always_inline]] inline HeaderLine make_line(const char* base, std::size_t pos,
                                                   std::size_t name_end, std::size_t v,
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
inline FirstLine find_first_line(std::string_view buf, std::size_t max_head, const char* too_long,
                                 const char* bare_lf) {
  const std::size_t limit = buf.size() < max_head ? buf.size() : max_head;
  const std::size_t lf = find_lf(buf.data(), buf.data() + limit);
  if (lf == limit) {
    if (buf.size() >= max_head) return {HeadStatus::kTooLarge, 0, too_long};
    return {HeadStatus::kIncomplete, 0, nullptr};
  }
  if (lf == 0 || buf[lf - 1] != '\r') return {HeadStatus::kBad, lf, bare_lf};
  return {HeadStatus::kComplete, lf, nullptr};
}

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

// For the line at `pos` whose name is a non-empty token followed by ':', the index of that ':'
// and of the first control byte (HTAB aside) or DEL after it, or `size` when there is none;
// false for any other line. Neither a token byte nor ':' is such a byte, so one scan from `pos`
// finds both. With AVX2 one 32-byte load answers both questions for a line of up to 32 bytes.
inline bool split_line(const char* base, std::size_t pos, std::size_t size, std::size_t& colon,
                       std::size_t& ctl) {
#if defined(__AVX2__)
  if (size - pos >= 32) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + pos));
    if (const unsigned nt = non_tchar_mask32(w)) {  // else a name of 32 bytes or more
      const auto c = static_cast<unsigned>(__builtin_ctz(nt));
      if (c == 0 || base[pos + c] != ':') return false;
      colon = pos + c;
      const unsigned ct = stop_mask32<0x1f, true>(w);
      ctl = ct != 0 ? pos + static_cast<unsigned>(__builtin_ctz(ct))
                    : pos + 32 + find_value_ctl(base + pos + 32, base + size);
      return true;
    }
  }
#endif
  const std::size_t p = pos + find_non_tchar(base + pos, base + size);
  if (p == pos || p >= size || base[p] != ':') return false;
  colon = p;
  ctl = p + 1 + find_value_ctl(base + p + 1, base + size);
  return true;
}

#if defined(__AVX2__)
// split_line's two questions answered ahead for 64 bytes of the buffer, a bit per byte: which
// are not token bytes (nt) and which are control bytes other than HTAB, or DEL (ctl). The
// masks do not depend on where a line starts, so they are computed once for every line that
// starts in the block, off the chain of dependencies from one line's end to the next line's
// start; a line costs two shifts and two bit scans.
struct Block {
  std::size_t at = 0;
  std::uint64_t nt = 0;
  std::uint64_t ctl = 0;
  bool loaded = false;

  bool covers(std::size_t pos) const { return loaded && pos - at < 64; }

  // The 64 bytes from pos, or the buffer's last 64 when fewer follow pos (size >= 64).
  void load(const char* base, std::size_t pos, std::size_t size) {
    at = size - pos >= 64 ? pos : size - 64;
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + at));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + at + 32));
    nt = non_tchar_mask32(a) | static_cast<std::uint64_t>(non_tchar_mask32(b)) << 32;
    ctl = stop_mask32<0x1f, true>(a) | static_cast<std::uint64_t>(stop_mask32<0x1f, true>(b)) << 32;
    loaded = true;
  }

  // split_line for a line at pos inside the block.
  bool split(const char* base, std::size_t pos, std::size_t size, std::size_t& colon,
             std::size_t& first_ctl) const {
    const auto off = static_cast<unsigned>(pos - at);
    const std::uint64_t name = nt >> off;
    if (name == 0) return split_line(base, pos, size, colon, first_ctl);  // runs past the block
    const auto c = static_cast<unsigned>(__builtin_ctzll(name));
    if (c == 0 || base[pos + c] != ':') return false;
    colon = pos + c;
    const std::uint64_t value = ctl >> off;
    first_ctl = value != 0 ? pos + static_cast<unsigned>(__builtin_ctzll(value))
                           : at + 64 + find_value_ctl(base + at + 64, base + size);
    return true;
  }
};
#endif

// Splits the header lines from `pos` to the empty line, calling on_field(const HeaderLine&)
// for each; on_field returns false when it can hold no more fields (kTooLarge).
template <class OnField>
LineScan scan_fields(std::string_view buf, std::size_t pos, std::size_t max_head,
                     OnField&& on_field) {
  const char* const base = buf.data();
  const std::size_t size = buf.size();
#if defined(__AVX2__)
  Block block;
#endif
  for (;;) {
    if (pos + 1 < size && base[pos] == '\r' && base[pos + 1] == '\n' && pos + 2 <= max_head) {
      return {HeadStatus::kComplete, nullptr, pos + 2};  // the empty line that ends the head
    }
    // The common line, "name: value CRLF" with a clean value, in one pass: the name and the
    // value's first control byte by split_line; on a good line that byte is the CR of its
    // CRLF. Anything else (the empty line included) takes the careful path.
    std::size_t p = 0;
    std::size_t cr = 0;
#if defined(__AVX2__)
    if (!block.covers(pos) && size >= 64 && pos < size) block.load(base, pos, size);
    const bool split = block.covers(pos) ? block.split(base, pos, size, p, cr)
                                         : split_line(base, pos, size, p, cr);
#else
    const bool split = split_line(base, pos, size, p, cr);
#endif
    if (split) {
      std::size_t v = p + 1;
      while (v < cr && is_ows(base[v])) ++v;
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
