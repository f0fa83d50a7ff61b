// E-divisive change points (tools/src/history/change_points.cpp) on series with known steps, on
// noise alone, and the study's generator (tools/src/history/history_study.cpp).
#include "tools/src/history/change_points.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tools/src/history/history_study.hpp"

namespace gatebench::tools {
namespace {

// Deterministic noise of standard deviation about `cv` around `level`.
std::vector<double> noisy(std::size_t n, double level, double cv, std::uint64_t seed) {
  SplitMix64 rng{seed};
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(level * (1 + cv * 3.46 * (rng.uniform() - 0.5)));
  return out;
}

std::vector<double> concat(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(EDivisive, BestSplitOfACleanStepIsTheStep) {
  const std::vector<double> x = {1, 1, 1, 1, 1, 2, 2, 2};
  const Split s = e_divisive_best_split(x, 1);
  EXPECT_EQ(s.index, 5u);
  EXPECT_GT(s.q, 0);
}

TEST(EDivisive, BestSplitKeepsTheMinimumSize) {
  const std::vector<double> x = {1, 1, 1, 1, 1, 1, 1, 5};
  EXPECT_EQ(e_divisive_best_split(x, 1).index, 7u);
  const Split two = e_divisive_best_split(x, 2);  // no split of two parts >= 2 isolates the 5
  EXPECT_GE(two.index, 2u);
  EXPECT_LE(two.index, 6u);
  EXPECT_EQ(e_divisive_best_split(std::vector<double>{1, 1, 1, 1, 1, 1, 5, 5}, 2).index, 6u);
  EXPECT_EQ(e_divisive_best_split(x, 5).index, 0u);  // 8 points cannot hold two parts of 5
}

TEST(EDivisive, FindsOneStepWhereItIsWithItsSize) {
  const auto x = concat(noisy(30, 100, 0.01, 1), noisy(30, 110, 0.01, 2));
  const auto found = detect_change_points(x);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 30u);
  EXPECT_NEAR(found[0].size, 0.10, 0.01);
  EXPECT_NEAR(found[0].mean_before, 100, 1);
  EXPECT_NEAR(found[0].mean_after, 110, 1);
  EXPECT_LE(found[0].p_value, 0.01);
}

TEST(EDivisive, FindsTwoStepsUpAndDown) {
  const auto x =
      concat(concat(noisy(25, 100, 0.01, 3), noisy(25, 105, 0.01, 4)), noisy(25, 99.75, 0.01, 5));
  const auto found = detect_change_points(x);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NEAR(static_cast<double>(found[0].index), 25, 2);
  EXPECT_NEAR(static_cast<double>(found[1].index), 50, 2);
  EXPECT_GT(found[0].size, 0.03);
  EXPECT_LT(found[1].size, -0.03);
}

TEST(EDivisive, NoiseAloneHasNoChangePoint) {
  int false_points = 0;
  for (std::uint64_t seed = 10; seed < 30; ++seed)
    false_points += static_cast<int>(detect_change_points(noisy(60, 100, 0.02, seed)).size());
  EXPECT_LE(false_points, 1);  // 20 series of 60 points at alpha 0.01
}

TEST(EDivisive, ConstantAndShortSeriesHaveNone) {
  EXPECT_TRUE(detect_change_points(std::vector<double>(20, 3.0)).empty());
  EXPECT_TRUE(detect_change_points(std::vector<double>{1, 2, 3}).empty());
  EXPECT_TRUE(detect_change_points(std::vector<double>{}).empty());
}

TEST(EDivisive, DeterministicForASeedAndSeedMatters) {
  // A marginal step, so the p-value is not at its floor and depends on the permutations drawn.
  const auto x = concat(noisy(20, 100, 0.02, 7), noisy(20, 101.5, 0.02, 8));
  ChangePointOptions o;
  o.alpha = 0.5;
  const auto a = detect_change_points(x, o), b = detect_change_points(x, o);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].p_value, b[i].p_value);
  }
  ASSERT_FALSE(a.empty());
  bool differs = false;
  for (std::uint64_t seed = 2; seed < 12 && !differs; ++seed) {
    o.seed = seed;
    const auto c = detect_change_points(x, o);
    differs = c.empty() || c[0].p_value != a[0].p_value;
  }
  EXPECT_TRUE(differs);
}

// The permutation test bounds how new a change can be: k points at the end are the k most
// extreme in about 2 of C(n, k) orders, so one point (p >= 2/n) never passes alpha = 0.01 and
// min_size 2 forbids it anyway; three points do.
TEST(EDivisive, RegressionAtTheEndIsFoundOnceThreePointsShowIt) {
  const auto before = noisy(30, 100, 0.005, 9);
  const auto found = detect_change_points(concat(before, {110, 110.3, 109.8}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 30u);
  EXPECT_TRUE(detect_change_points(concat(before, {110})).empty());
}

TEST(StepGenerator, KnownStepsAndSegmentLengths) {
  SplitMix64 rng{1};
  std::size_t with_steps = 0;
  for (int k = 0; k < 50; ++k) {
    const auto g = generate_step_series(rng, 100, 0.01, 0.05, 3, 10);
    ASSERT_EQ(g.values.size(), 100u);
    ASSERT_LE(g.steps.size(), 3u);
    std::size_t previous = 0;
    for (std::size_t s : g.steps) {
      EXPECT_GE(s - previous, 10u);
      previous = s;
    }
    EXPECT_GE(100 - previous, 10u);
    with_steps += g.steps.empty() ? 0 : 1;
  }
  EXPECT_GT(with_steps, 25u);
  EXPECT_LT(with_steps, 50u);  // some series have no step: the false-alarm part of the study
}

TEST(StepStudy, MeetsTheTargetsAtTheMicroNoise) {
  StudyOptions o;
  o.series = 40;
  o.cvs = {0.01};
  const auto rows = run_change_point_study(o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_GT(rows[0].steps, 30u);
  EXPECT_GE(rows[0].found_share(), 0.95);
  EXPECT_LE(rows[0].false_per_100_points(), 1.0);
}

}  // namespace
}  // namespace gatebench::tools
