#include "macro/common/duration.hpp"

#include <gtest/gtest.h>

#include <string>

#include "macro/common/usage_error.hpp"

namespace gatebench::common {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_duration_ns(text, "--duration");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Duration, UnitsAndBareSeconds) {
  EXPECT_EQ(parse_duration_ns("20", "d"), 20'000'000'000ULL);
  EXPECT_EQ(parse_duration_ns("20s", "d"), 20'000'000'000ULL);
  EXPECT_EQ(parse_duration_ns("500ms", "d"), 500'000'000ULL);
  EXPECT_EQ(parse_duration_ns("1m", "d"), 60'000'000'000ULL);
  EXPECT_EQ(parse_duration_ns("1.5s", "d"), 1'500'000'000ULL);
  EXPECT_EQ(parse_duration_ns("250us", "d"), 250'000ULL);
  EXPECT_EQ(parse_duration_ns("2h", "d"), 7200'000'000'000ULL);
  EXPECT_EQ(parse_duration_ns("0", "d"), 0u);
  EXPECT_DOUBLE_EQ(parse_duration_s("1.5m", "d"), 90.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("250ms", "d"), 0.25);
}

TEST(Duration, BadTextNamesTheOptionAndTheText) {
  EXPECT_EQ(error_of("-1s"), "--duration: '-1s' is negative");
  EXPECT_EQ(error_of("s"), "--duration: 's' is not a duration like 20s, 500ms or 1m");
  EXPECT_EQ(error_of(""), "--duration: '' is not a duration like 20s, 500ms or 1m");
  EXPECT_EQ(error_of("20x"), "--duration: unknown unit 'x' in '20x' (use us, ms, s, m or h)");
  EXPECT_EQ(error_of("20S"), "--duration: unknown unit 'S' in '20S' (use us, ms, s, m or h)");
  EXPECT_EQ(error_of("1.2.3s"), "--duration: '1.2.3s' is not a duration like 20s, 500ms or 1m");
  EXPECT_EQ(error_of(" 5s"), "--duration: ' 5s' is not a duration like 20s, 500ms or 1m");
  EXPECT_EQ(error_of("nan"), "--duration: unknown unit 'nan' in 'nan' (use us, ms, s, m or h)");
}

// The quiet reading accepts and refuses exactly what the throwing one does.
TEST(Duration, IfValidAgreesWithTheThrowingReading) {
  EXPECT_DOUBLE_EQ(*duration_s_if_valid("1.23ms"), 0.00123);
  EXPECT_DOUBLE_EQ(*duration_s_if_valid("850.00us"), 0.00085);
  EXPECT_DOUBLE_EQ(*duration_s_if_valid("2.00s"), 2.0);
  EXPECT_DOUBLE_EQ(*duration_s_if_valid("1.5m"), 90.0);
  EXPECT_DOUBLE_EQ(*duration_s_if_valid("20"), 20.0);
  for (const char* bad : {"", "s", "-1s", "20x", "1.2.3s", " 5s", "nan", "99999h", "1e400"}) {
    EXPECT_FALSE(duration_s_if_valid(bad).has_value()) << bad;
    EXPECT_NE(error_of(bad), "no error") << bad;
  }
}

TEST(Duration, OverflowIsCaughtBeforeNanosecondsWrap) {
  EXPECT_EQ(error_of("99999h"), "--duration: '99999h' is longer than 30 days");
  EXPECT_EQ(error_of("1e300"), "--duration: '1e300' is longer than 30 days");
  EXPECT_EQ(error_of("1e400"), "--duration: '1e400' is not a duration like 20s, 500ms or 1m");
  EXPECT_EQ(parse_duration_ns("720h", "d"), 720ULL * 3600 * 1'000'000'000ULL);
}

}  // namespace
}  // namespace gatebench::common
