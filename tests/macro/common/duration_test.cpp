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

// The one rendering for other programs' command lines (wrk, h2load, gatebench-load): integers
// only, as h2load reads them, and read back to the same duration by the common syntax.
TEST(Duration, ArgumentIsWholeSecondsOrMillisecondsAndReadsBack) {
  EXPECT_EQ(duration_arg(10), "10s");
  EXPECT_EQ(duration_arg(1.5), "1500ms");
  EXPECT_EQ(duration_arg(0.25), "250ms");
  EXPECT_EQ(duration_arg(0), "1ms");
  EXPECT_EQ(duration_arg(90), "90s");
  for (double s : {0.001, 0.25, 1.0, 1.5, 20.0, 3600.0})
    EXPECT_DOUBLE_EQ(parse_duration_s(duration_arg(s), "d"), s) << s;
}

// People's text: seconds under a minute and a half, minutes under two hours, then hours.
TEST(Duration, TextForPeople) {
  EXPECT_EQ(duration_text(45), "45 s");
  EXPECT_EQ(duration_text(89.4), "89 s");
  EXPECT_EQ(duration_text(750), "12.5 min");
  EXPECT_EQ(duration_text(7560), "2.1 h");
}

}  // namespace
}  // namespace gatebench::common
