#include "macro/common/detectable.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace gatebench::common {
namespace {

TEST(Detectable, NormalQuantileMatchesTables) {
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.95), 1.6448536269514722, 1e-9);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-9);
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489004, 1e-9);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306167813, 1e-9);
  EXPECT_TRUE(std::isnan(normal_quantile(0)));
  EXPECT_TRUE(std::isnan(normal_quantile(1)));
}

TEST(Detectable, RelativeSpreadIsSdOverMedian) {
  const std::vector<double> v = {9, 10, 11};  // sd 1, median 10
  EXPECT_NEAR(*relative_spread(v), 0.1, 1e-12);
  EXPECT_FALSE(relative_spread(std::vector<double>{1.0}));
  EXPECT_FALSE(relative_spread(std::vector<double>{-1, 0, 1}));  // median 0
  // Pooled by degrees of freedom: 2 and 2 of spreads 0.1 and 0.2 give sqrt((0.01 + 0.04) / 2).
  const std::vector<double> w = {18, 20, 22};  // sd 2, median 20: 0.1 as well
  const std::vector<double> x = {8, 10, 12};   // sd 2, median 10: 0.2
  EXPECT_NEAR(*pooled_relative_spread(v, w), 0.1, 1e-12);
  EXPECT_NEAR(*pooled_relative_spread(v, x), std::sqrt(0.025), 1e-12);
}

// Worked by hand: 5 rounds per side at 4.7% per round, 5% line. The difference of two medians
// spreads by sqrt(pi/2) * 4.7% * sqrt(2/5) = 3.726%; 95% past the line needs 5% + 1.645 * 3.726%
// = 11.13%. The rank test needs (1.960 + 1.645) * sqrt(pi/3) * 4.7% * sqrt(2/5) = 10.96%.
TEST(Detectable, MinimumDetectableChangeOfAKnownCase) {
  EXPECT_NEAR(*minimum_detectable_change(0.047, 5, 5, 0.05), 0.11128, 1e-4);
  // 20 rounds: 5% + 1.645 * 1.863% = 8.06%.
  EXPECT_NEAR(*minimum_detectable_change(0.047, 20, 20, 0.05), 0.08064, 1e-4);
  // No line: the rank test decides, 3.605 * 1.0233 * 4.7% * sqrt(2/5) = 10.96%.
  EXPECT_NEAR(*minimum_detectable_change(0.047, 5, 5, 0), 0.10964, 1e-4);
  // 3 against 3: the smallest two-sided p is 2/20 = 0.1, so nothing is ever detected.
  EXPECT_FALSE(minimum_detectable_change(0.047, 3, 3, 0.05));
  EXPECT_TRUE(minimum_detectable_change(0.047, 4, 4, 0.05));  // 2/70 < 0.05
}

// The median part of the model against a simulation: normal rounds at the spread around 1, a true
// change of exactly the MDC added, and the share of comparisons whose medians moved past the line
// (0.951 in 20,000 trials of the same in Python).
TEST(Detectable, SimulatedDetectionAtTheMdcIsNinetyFivePercent) {
  constexpr std::size_t kRounds = 21;
  constexpr double kSpread = 0.047, kLine = 0.05;
  const double mdc = *minimum_detectable_change(kSpread, kRounds, kRounds, kLine);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, kSpread);
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  constexpr int kTrials = 4000;
  int caught = 0;
  std::vector<double> base(kRounds), head(kRounds);
  for (int t = 0; t < kTrials; ++t) {
    for (auto& v : base) v = 1 + noise(rng);
    for (auto& v : head) v = 1 + mdc + noise(rng);
    caught += median(head) - median(base) >= kLine;
  }
  EXPECT_NEAR(static_cast<double>(caught) / kTrials, 0.95, 0.02);
}

TEST(Detectable, RoundsForATargetChange) {
  // 10% of CPU per request seen as 7.5%: at the default 5% line it takes 30 rounds, a line of
  // 7.5% - 1.645 * sd takes 22 (sd = sqrt(pi/2) * 4.7% * sqrt(2/22) = 1.776%): line 4.58%.
  const auto ten = rounds_for_change(0.10, 0.047, 0.75, 0.05);
  EXPECT_EQ(ten.rounds, 22u);
  EXPECT_NEAR(ten.line, 0.04579, 1e-4);
  EXPECT_NEAR(ten.seen_change, 0.075, 1e-12);
  EXPECT_LE(ten.mdc, ten.seen_change + 1e-12);
  EXPECT_LE(ten.false_alarms, 0.01);
  // 20%: the default line and compare's 5 rounds suffice (MDC 11.1% < 15%).
  const auto twenty = rounds_for_change(0.20, 0.047, 0.75, 0.05);
  EXPECT_EQ(twenty.rounds, 5u);
  EXPECT_DOUBLE_EQ(twenty.line, 0.05);
  // 5%: seen as 3.75%, 88 rounds at a 2.29% line.
  const auto five = rounds_for_change(0.05, 0.047, 0.75, 0.05);
  EXPECT_EQ(five.rounds, 88u);
  EXPECT_NEAR(five.line, 0.02289, 1e-4);
  // Out of reach within the cap.
  EXPECT_EQ(rounds_for_change(0.001, 0.047, 0.75, 0.05, 5, 1000).rounds, 0u);
}

TEST(Detectable, PercentText) {
  EXPECT_EQ(percent_text(0.14), "14%");
  EXPECT_EQ(percent_text(0.05), "5%");
  EXPECT_EQ(percent_text(0.0458), "4.6%");
  EXPECT_EQ(percent_text(0.111), "11%");
}

}  // namespace
}  // namespace gatebench::common
