// Internal to the access-log parsers: nginx's $time_local ("10/Oct/2000:13:55:36 -0700") to
// unix microseconds, without the C library's locale- and TZ-dependent calls.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "micro/core/access_log/scan.hpp"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace gatebench::access_log::detail {

inline constexpr std::size_t kTimeLocalLength = 26;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

constexpr unsigned days_in_month(unsigned y, unsigned m) {
  constexpr unsigned char kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))) return 29;
  return kDays[m - 1];
}

// Month 1..12 from its English abbreviation, 0 when unknown.
inline unsigned month_from_abbrev(const char* p) {
  std::uint32_t key = 0;
  std::memcpy(&key, p, 3);
  // Little-endian packs of "Jan".."Dec" (byte 0 lowest).
  constexpr auto pack = [](const char* s) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(s[0])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[1])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[2])) << 16;
  };
  constexpr std::uint32_t kMonths[12] = {pack("Jan"), pack("Feb"), pack("Mar"), pack("Apr"),
                                         pack("May"), pack("Jun"), pack("Jul"), pack("Aug"),
                                         pack("Sep"), pack("Oct"), pack("Nov"), pack("Dec")};
  if constexpr (std::endian::native != std::endian::little) {
    key = pack(p);
  }
  for (unsigned i = 0; i < 12; ++i) {
    if (kMonths[i] == key) return i + 1;
  }
  return 0;
}

inline unsigned two_digits(const char* p, bool& ok) {
  const unsigned a = static_cast<unsigned char>(p[0]) - '0';
  const unsigned b = static_cast<unsigned char>(p[1]) - '0';
  ok &= (a <= 9) & (b <= 9);
  return a * 10 + b;
}

// Reads exactly kTimeLocalLength bytes at p: "dd/Mon/yyyy:hh:mm:ss +zzzz".
inline bool parse_time_local(const char* p, std::int64_t& out_us) {
  bool ok = p[2] == '/' && p[6] == '/' && p[11] == ':' && p[14] == ':' && p[17] == ':' &&
            p[20] == ' ' && (p[21] == '+' || p[21] == '-');
  const unsigned day = two_digits(p, ok);
  const unsigned year = two_digits(p + 7, ok) * 100 + two_digits(p + 9, ok);
  const unsigned hour = two_digits(p + 12, ok);
  const unsigned minute = two_digits(p + 15, ok);
  const unsigned second = two_digits(p + 18, ok);
  const unsigned zh = two_digits(p + 22, ok);
  const unsigned zm = two_digits(p + 24, ok);
  if (!ok) return false;
  const unsigned month = month_from_abbrev(p + 3);
  if (month == 0 || day == 0 || day > days_in_month(year, month) || hour > 23 || minute > 59 ||
      second > 59 || zh > 23 || zm > 59) {
    return false;
  }
  const std::int64_t zone = static_cast<std::int64_t>(zh * 3600 + zm * 60);
  const std::int64_t local = days_from_civil(year, month, day) * 86400 +
                             static_cast<std::int64_t>(hour * 3600 + minute * 60 + second);
  out_us = (p[21] == '+' ? local - zone : local + zone) * 1'000'000;
  return true;
}

// The date of the previous line and its day number: a log's lines share their date, so the
// month lookup and calendar arithmetic run once per day instead of once per line.
struct DateCache {
  std::uint64_t key_lo = 0;  // bytes 0..7 and 3..10 of "dd/Mon/yyyy"
  std::uint64_t key_hi = 0;
  std::int64_t days = 0;
  bool valid = false;
};

// A line whose date differs from the previous line's: the full parse, then remember the date.
[[gnu::noinline]] inline bool parse_time_local_new_date(const char* p, std::int64_t& out_us,
                                                        DateCache& cache) {
  std::uint64_t lo, hi;
  std::memcpy(&lo, p, 8);
  std::memcpy(&hi, p + 3, 8);
  if (!parse_time_local(p, out_us)) return false;
  // Valid: remember the date. Recomputing days from out_us would need the zone; redo it.
  bool ok = true;
  const unsigned day = two_digits(p, ok);
  const unsigned year = two_digits(p + 7, ok) * 100 + two_digits(p + 9, ok);
  cache.days = days_from_civil(year, month_from_abbrev(p + 3), day);
  cache.key_lo = lo;
  cache.key_hi = hi;
  cache.valid = true;
  return true;
}

// "hh:mm:ss" (8 bytes at p) to seconds of the day, in one SWAR step: the two colons are
// checked and replaced by '0', the six digits checked at once, and each pair becomes a number
// with one multiply-add (instead of six loads, compares and branches).
inline bool clock_seconds(const char* p, std::int64_t& out) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native != std::endian::little) x = __builtin_bswap64(x);
  constexpr std::uint64_t kColons = 0x0000'ff00'00ff'0000ULL;  // bytes 2 and 5
  bool ok = (x & kColons) == (0x0000'3a00'003a'0000ULL);
  x = (x & ~kColons) | (0x3030'3030'3030'3030ULL & kColons);
  const std::uint64_t v = x - 0x3030'3030'3030'3030ULL;
  // A byte below '0' borrows (high bit set); a byte above '9' reaches 0x80 when 0x76 is added.
  ok &= ((v | (v + 0x7676'7676'7676'7676ULL)) & 0x8080'8080'8080'8080ULL) == 0;
  const std::uint64_t pairs = v * 10 + (v >> 8);  // byte 0: hours, 3: minutes, 6: seconds
  const unsigned hour = pairs & 0xff;
  const unsigned minute = (pairs >> 24) & 0xff;
  const unsigned second = (pairs >> 48) & 0xff;
  ok &= (hour <= 23) & (minute <= 59) & (second <= 59);
  out = static_cast<std::int64_t>(hour * 3600 + minute * 60 + second);
  return ok;
}

// " +hhmm" (6 bytes at p, 8 readable) to the zone's offset east of UTC in seconds.
inline bool zone_seconds(const char* p, std::int64_t& out) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native != std::endian::little) x = __builtin_bswap64(x);
  const unsigned sign = (x >> 8) & 0xff;
  bool ok = ((x & 0xff) == ' ') & ((sign == '+') | (sign == '-'));
  const std::uint64_t v = ((x >> 16) & 0xffff'ffffULL) - 0x3030'3030ULL;
  ok &= ((v | (v + 0x7676'7676ULL)) & 0x8080'8080ULL) == 0;
  const std::uint64_t pairs = v * 10 + (v >> 8);  // byte 0: hours, 2: minutes
  const unsigned zh = pairs & 0xff;
  const unsigned zm = (pairs >> 16) & 0xff;
  ok &= (zh <= 23) & (zm <= 59);
  const auto zone = static_cast<std::int64_t>(zh * 3600 + zm * 60);
  out = sign == '+' ? zone : -zone;
  return ok;
}

// Reads kTimeLocalLength + 2 bytes at p: "dd/Mon/yyyy:hh:mm:ss +zzzz" and two more (the "] "
// that follows in a line).
[[gnu::always_inline]] inline bool parse_time_local(const char* p, std::int64_t& out_us,
                                                    DateCache& cache) {
  std::uint64_t lo, hi;
  std::memcpy(&lo, p, 8);
  std::memcpy(&hi, p + 3, 8);
  if (cache.valid && lo == cache.key_lo && hi == cache.key_hi) [[likely]] {
    std::int64_t clock, zone;
    bool ok = p[11] == ':';
    ok &= clock_seconds(p + 12, clock);
    ok &= zone_seconds(p + 20, zone);
    out_us = (cache.days * 86400 + clock - zone) * 1'000'000;
    return ok;
  }
  return parse_time_local_new_date(p, out_us, cache);
}

// $time_local as a combined line carries it: the 32 bytes before the request's opening quote,
// `U [dd/Mon/yyyy:hh:mm:ss +zzzz] ` (U: the end of the user). The lines of a log share the
// date and the zone, so the cache holds the previous line's 32 bytes and the unix second of its
// date's midnight in its zone: a line whose bytes match it everywhere but the clock digits (four
// masked word compares: literals, date and zone at once) parses only its clock.
struct TimeLocalCache {
  std::uint64_t words[4] = {};  // all zero: matches no line ('[' is not zero)
  std::int64_t midnight = 0;
};

// Word w of the bytes of the 32 that the cache fixes (0xff where fixed, as memcpy loads them):
// all but the user's end (0, 1) and the clock's digits (16, 17, 19, 20, 22, 23).
constexpr std::uint64_t time_key_word(int w) {
  std::uint64_t m = 0;
  for (int b = 0; b < 8; ++b) {
    const int at = 8 * w + b;
    const bool free =
        at < 2 || at == 16 || at == 17 || at == 19 || at == 20 || at == 22 || at == 23;
    const int shift = std::endian::native == std::endian::little ? 8 * b : 8 * (7 - b);
    if (!free) m |= std::uint64_t{0xff} << shift;
  }
  return m;
}
inline constexpr std::uint64_t kTimeKeyWords[4] = {time_key_word(0), time_key_word(1),
                                                   time_key_word(2), time_key_word(3)};

// "hh:mm:ss" at p whose colons the caller checked, to seconds of the day in out; nonzero when
// a digit or a range is wrong. One SWAR step as clock_seconds, and the three numbers summed by
// one multiply instead of three.
inline std::uint64_t clock_digits(const char* p, std::int64_t& out) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native != std::endian::little) x = __builtin_bswap64(x);
  const std::uint64_t v = x - 0x3030'3030'3030'3030ULL;
  // A digit byte below '0' borrows, one above '9' reaches 0x80 with 0x76 (bytes 2, 5: colons).
  std::uint64_t bad = (v | (v + 0x7676'7676'7676'7676ULL)) & 0x8080'0080'8000'8080ULL;
  const std::uint64_t hms = (v * 10 + (v >> 8)) & 0x00ff'0000'ff00'00ffULL;  // h, m, s: 0, 3, 6
  bad |= (hms + ((std::uint64_t{128 - 60} << 48) | (std::uint64_t{128 - 60} << 24) | (128 - 24))) &
         0x0080'0000'8000'0080ULL;
  // (m << 24 | s << 48) * (60 << 24 | 1) has m * 60 + s in its top 16 bits, nothing carried in.
  out = static_cast<std::int64_t>((hms & 0xff) * 3600 + ((hms * ((60ULL << 24) | 1)) >> 48));
  return bad;
}

// A line whose date, zone or literals differ from the cached ones: the full parse, then the
// cache takes its bytes. False (cache unchanged) when they are not a valid time.
[[gnu::noinline]] inline bool refresh_time_local(const char* tp, TimeLocalCache& cache) {
  std::int64_t us, clock;
  if (tp[2] != ' ' || tp[3] != '[' || tp[30] != ']' || tp[31] != ' ' ||
      !parse_time_local(tp + 4, us) || !clock_seconds(tp + 16, clock)) {
    return false;
  }
  std::memcpy(cache.words, tp, 32);
  cache.midnight = us / 1'000'000 - clock;
  return true;
}

// Nonzero when the 32 bytes at tp differ from the cache's in a byte the cache fixes: four
// masked 8-byte words (any build).
inline std::uint64_t time_key_differs_words(const char* tp, const TimeLocalCache& cache) {
  std::uint64_t w[4];
  std::memcpy(w, tp, 32);
  std::uint64_t differ = 0;
  for (int i = 0; i < 4; ++i) differ |= (w[i] ^ cache.words[i]) & kTimeKeyWords[i];
  return differ;
}

#if defined(__AVX2__)
// time_key_differs_words in one 32-byte compare.
inline std::uint64_t time_key_differs_avx2(const char* tp, const TimeLocalCache& cache) {
  constexpr std::uint32_t kFixed = ~(3u | (3u << 16) | (3u << 19) | (3u << 22));
  const auto same = static_cast<std::uint32_t>(_mm256_movemask_epi8(
      _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(tp)),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cache.words)))));
  return ~same & kFixed;
}
#endif

// ` [$time_local] ` in the 32 bytes at tp (see TimeLocalCache) to unix microseconds.
[[gnu::always_inline]] inline bool parse_time_local_32(const char* tp, std::int64_t& out_us,
                                                       TimeLocalCache& cache) {
#if defined(__AVX2__)
  const std::uint64_t differ = time_key_differs_avx2(tp, cache);
#else
  const std::uint64_t differ = time_key_differs_words(tp, cache);
#endif
  bool ok = true;
  if (differ != 0) [[unlikely]] {
    ok = refresh_time_local(tp, cache);
  }
  std::int64_t clock;
  ok &= clock_digits(tp + 16, clock) == 0;
  out_us = (cache.midnight + clock) * 1'000'000;
  return ok;
}

}  // namespace gatebench::access_log::detail
