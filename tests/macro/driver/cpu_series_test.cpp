#include "macro/driver/measure/cpu_series.hpp"

#include <gtest/gtest.h>

namespace gatebench::macro {
namespace {

TEST(CpuSeries, InterpolatesBetweenSamples) {
  CpuSeries s;
  s.add(0, 0);
  s.add(1, 2);  // two CPUs busy during the first second
  s.add(2, 2);  // idle during the second
  EXPECT_DOUBLE_EQ(s.between(0, 1), 2);
  EXPECT_DOUBLE_EQ(s.between(0.5, 1.5), 1);
  EXPECT_DOUBLE_EQ(s.between(0.25, 0.75), 1);
  EXPECT_DOUBLE_EQ(s.between(1, 2), 0);
}

TEST(CpuSeries, OutsideTheSampledSpanTakesTheNearestValue) {
  CpuSeries s;
  s.add(1, 5);
  s.add(2, 6);
  EXPECT_DOUBLE_EQ(s.at(0), 5);
  EXPECT_DOUBLE_EQ(s.at(3), 6);
  EXPECT_DOUBLE_EQ(s.between(0, 3), 1);
  EXPECT_DOUBLE_EQ(s.between(2, 1), 0);
}

TEST(CpuSeries, IgnoresSamplesOutOfOrderAndNeverDecreases) {
  CpuSeries s;
  s.add(1, 1);
  s.add(0.5, 9);  // out of order
  s.add(2, 0.5);  // a process left the tree: the cumulative figure does not go back
  EXPECT_DOUBLE_EQ(s.at(2), 1);
  EXPECT_DOUBLE_EQ(s.first_t(), 1);
  EXPECT_DOUBLE_EQ(s.last_t(), 2);
  EXPECT_TRUE(CpuSeries().empty());
}

}  // namespace
}  // namespace gatebench::macro
