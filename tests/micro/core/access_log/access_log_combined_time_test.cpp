// Combined's cached $time_local (micro/core/access_log/time.hpp): the compare of the 32 bytes
// before the request's quote with the cached ones (both versions where the build has AVX2: the
// presets compile only the AVX2 one into the parser, so the word version is checked here), the
// clock's SWAR step against clock_seconds, and what may enter the cache.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "fixtures/rng.hpp"
#include "micro/core/access_log/time.hpp"

namespace gatebench::access_log::detail {
namespace {

constexpr std::string_view kLine = " - [10/Oct/2000:13:55:36 -0700] ";  // the 32 bytes
static_assert(kLine.size() == 32);

bool free_byte(std::size_t at) {
  return at < 2 || at == 16 || at == 17 || at == 19 || at == 20 || at == 22 || at == 23;
}

TEST(AccessLogCombinedTime, CacheCompareFindsEveryFixedByte) {
  TimeLocalCache cache;
  ASSERT_TRUE(refresh_time_local(kLine.data(), cache));
  EXPECT_EQ(time_key_differs_words(kLine.data(), cache), 0u);
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("access_log_combined_time");
  for (int i = 0; i < 100'000; ++i) {
    std::string t(kLine);
    const int edits = static_cast<int>(rng.between(1, 3));
    for (int e = 0; e < edits; ++e) t[rng.below(32)] = static_cast<char>(rng.below(256));
    bool differs = false;
    for (std::size_t at = 0; at < 32; ++at) differs |= !free_byte(at) && t[at] != kLine[at];
    ASSERT_EQ(time_key_differs_words(t.data(), cache) != 0, differs) << t;
#if defined(__AVX2__)
    ASSERT_EQ(time_key_differs_avx2(t.data(), cache) != 0, differs) << t;
#endif
  }
}

TEST(AccessLogCombinedTime, ClockDigitsAgreeWithClockSeconds) {
  char clock[9];
  for (int h = 0; h < 100; ++h) {
    for (int m = 0; m < 100; ++m) {
      for (int s = 0; s < 100; ++s) {
        const int parts[3] = {h, m, s};
        for (int i = 0; i < 3; ++i) {
          clock[3 * i] = static_cast<char>('0' + parts[i] / 10);
          clock[3 * i + 1] = static_cast<char>('0' + parts[i] % 10);
          if (i < 2) clock[3 * i + 2] = ':';
        }
        clock[8] = '\0';
        std::int64_t want = -1, got = -1;
        const bool ok = clock_seconds(clock, want);
        ASSERT_EQ(clock_digits(clock, got) == 0, ok) << clock;
        if (ok) {
          ASSERT_EQ(got, want) << clock;
        }
      }
    }
  }
  // Every byte value at every digit position of a valid clock.
  for (std::size_t at : {0u, 1u, 3u, 4u, 6u, 7u}) {
    for (int byte = 0; byte < 256; ++byte) {
      std::snprintf(clock, sizeof clock, "%s", "12:34:56");
      clock[at] = static_cast<char>(byte);
      std::int64_t want = -1, got = -1;
      const bool ok = clock_seconds(clock, want);
      ASSERT_EQ(clock_digits(clock, got) == 0, ok) << at << " " << byte;
      if (ok) {
        ASSERT_EQ(got, want);
      }
    }
  }
}

TEST(AccessLogCombinedTime, OnlyValidTimesEnterTheCache) {
  TimeLocalCache cache;
  ASSERT_TRUE(refresh_time_local(kLine.data(), cache));
  const std::int64_t midnight = cache.midnight;
  EXPECT_EQ(midnight, 971136000 + 7 * 3600);   // 2000-10-10 00:00 at -0700
  for (std::size_t at : {2u, 3u, 30u, 31u}) {  // the literals around the time
    std::string t(kLine);
    t[at] = 'x';
    EXPECT_FALSE(refresh_time_local(t.data(), cache)) << at;
  }
  for (const char* bad : {" - [31/Feb/2000:13:55:36 -0700] ", " - [10/Oct/2000:13:55:36 -2400] ",
                          " - [10/Oct/2000:24:55:36 -0700] ", " - [10/Oct/2000 13:55:36 -0700] "}) {
    EXPECT_FALSE(refresh_time_local(bad, cache)) << bad;
  }
  // A rejected time leaves the cache as it was.
  EXPECT_EQ(time_key_differs_words(kLine.data(), cache), 0u);
  EXPECT_EQ(cache.midnight, midnight);
  std::int64_t us = 0;
  EXPECT_TRUE(parse_time_local_32(kLine.data(), us, cache));
  EXPECT_EQ(us, 971211336LL * 1'000'000);
}

}  // namespace
}  // namespace gatebench::access_log::detail
