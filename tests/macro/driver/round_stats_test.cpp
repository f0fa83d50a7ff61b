#include "macro/driver/output/round_stats.hpp"

#include <gtest/gtest.h>

namespace gatebench::macro {
namespace {

TEST(MedianOf, OddEvenAndEmpty) {
  EXPECT_FALSE(median_of({}).has_value());
  EXPECT_DOUBLE_EQ(*median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(*median_of({4, 1, 3, 2}), 2.5);
}

TEST(MedianInterval, FiveRoundsGiveMinMaxAtTheirActualLevel) {
  auto iv = median_interval({5, 1, 4, 2, 3});
  ASSERT_TRUE(iv.has_value());
  EXPECT_DOUBLE_EQ(iv->median, 3);
  EXPECT_DOUBLE_EQ(iv->lo, 1);
  EXPECT_DOUBLE_EQ(iv->hi, 5);
  EXPECT_EQ(iv->n, 5);
  EXPECT_DOUBLE_EQ(iv->level, 1 - 2.0 / 32);  // below 95%: said, not hidden
}

TEST(MedianInterval, NineRoundsDropTheExtremes) {
  // Binomial(9, 1/2): [x(2), x(8)] covers 1 - 2 * 10/512 = 0.9609; [x(3), x(7)] only 0.8203.
  auto iv = median_interval({9, 1, 8, 2, 7, 3, 6, 4, 5});
  ASSERT_TRUE(iv.has_value());
  EXPECT_DOUBLE_EQ(iv->lo, 2);
  EXPECT_DOUBLE_EQ(iv->hi, 8);
  EXPECT_NEAR(iv->level, 1 - 2.0 * 10 / 512, 1e-12);
}

TEST(MedianInterval, ThreeRoundsAndFewer) {
  auto iv = median_interval({2, 1, 3});
  ASSERT_TRUE(iv.has_value());
  EXPECT_DOUBLE_EQ(iv->level, 0.75);
  EXPECT_FALSE(median_interval({1}).has_value());
  EXPECT_FALSE(median_interval({}).has_value());
}

}  // namespace
}  // namespace gatebench::macro
