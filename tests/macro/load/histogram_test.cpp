#include "macro/load/histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fixtures/rng.hpp"

namespace gatebench::load {
namespace {

constexpr std::uint64_t kMicro = 1000;
constexpr std::uint64_t kSixtySeconds = 60'000'000'000ULL;

// Log-uniform values from 1 us to 60 s: every decade is exercised equally.
std::vector<std::uint64_t> log_uniform(std::size_t n, std::string_view purpose) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork(purpose);
  std::vector<std::uint64_t> v(n);
  const double lo = std::log(static_cast<double>(kMicro));
  const double hi = std::log(static_cast<double>(kSixtySeconds));
  for (auto& x : v) x = static_cast<std::uint64_t>(std::exp(lo + (hi - lo) * rng.uniform()));
  return v;
}

// The naive peer: percentile by sorting every value (same rank rule as the histogram).
std::uint64_t exact_percentile(std::vector<std::uint64_t> v, double p) {
  std::sort(v.begin(), v.end());
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  rank = std::clamp<std::size_t>(rank, 1, v.size());
  return v[rank - 1];
}

TEST(Histogram, EveryValueMapsIntoItsBucket) {
  for (std::uint64_t v : log_uniform(200'000, "histogram-buckets")) {
    const std::size_t i = Histogram::index_of(v);
    ASSERT_LT(i, Histogram::kBucketCount);
    ASSERT_LE(Histogram::lower_bound(i), v);
    ASSERT_LT(v, Histogram::lower_bound(i) + Histogram::width(i));
  }
  // Small values are exact; bucket bounds are contiguous all the way up.
  for (std::uint64_t v = 0; v < 256; ++v) EXPECT_EQ(Histogram::index_of(v), v);
  for (std::size_t i = 1; i < Histogram::kBucketCount; ++i)
    ASSERT_EQ(Histogram::lower_bound(i - 1) + Histogram::width(i - 1), Histogram::lower_bound(i))
        << "bucket " << i;
}

TEST(Histogram, RelativeErrorBelowOnePercentFromOneMicrosecondToSixtySeconds) {
  double worst = 0;
  for (std::uint64_t v : log_uniform(100'000, "histogram-precision")) {
    // What percentile() reports for a bucket (before clamping to the exact min and max).
    const std::size_t i = Histogram::index_of(v);
    const auto reported =
        static_cast<double>(Histogram::lower_bound(i) + (Histogram::width(i) - 1) / 2);
    worst = std::max(worst, std::abs(reported - static_cast<double>(v)) / static_cast<double>(v));
  }
  EXPECT_LT(worst, 0.01);
  EXPECT_LT(worst, 1.0 / 128);  // the design bound: 7 bits of sub-buckets
}

TEST(Histogram, PercentilesMatchSortedPeerWithinOnePercent) {
  const auto values = log_uniform(300'000, "histogram-percentiles");
  Histogram h;
  for (std::uint64_t v : values) h.record(v);
  for (double p : {0.0, 1.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const double expected = static_cast<double>(exact_percentile(values, p));
    const double got = static_cast<double>(h.percentile(p));
    EXPECT_NEAR(got, expected, expected * 0.01) << "p" << p;
  }
  EXPECT_EQ(h.max(), *std::max_element(values.begin(), values.end()));
  EXPECT_EQ(h.min(), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(h.count(), values.size());
}

TEST(Histogram, MergeEqualsRecordingEverythingInOne) {
  const auto values = log_uniform(100'000, "histogram-merge");
  Histogram all;
  Histogram parts[4];
  for (std::size_t i = 0; i < values.size(); ++i) {
    all.record(values[i]);
    parts[i % 4].record(values[i]);
  }
  Histogram merged;
  for (const Histogram& p : parts) merged.merge(p);
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_EQ(merged.max(), all.max());
  EXPECT_EQ(merged.min(), all.min());
  EXPECT_DOUBLE_EQ(merged.mean(), all.mean());
  for (std::size_t i = 0; i < Histogram::kBucketCount; ++i)
    ASSERT_EQ(merged.bucket(i), all.bucket(i)) << "bucket " << i;
  for (double p : {50.0, 99.0, 99.99}) EXPECT_EQ(merged.percentile(p), all.percentile(p));
}

TEST(Histogram, MeanAndStdevFollowTheValues) {
  Histogram h;
  for (int i = 0; i < 1000; ++i) h.record(i % 2 ? 2 * kMicro * 1000 : kMicro * 1000);  // 1ms, 2ms
  EXPECT_DOUBLE_EQ(h.mean(), 1.5e6);
  EXPECT_NEAR(h.stdev(), 0.5e6, 0.5e6 * 0.01);
}

TEST(Histogram, EmptyAndOverflow) {
  Histogram h;
  EXPECT_EQ(h.percentile(99), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.stdev(), 0);
  const std::uint64_t huge = Histogram::kMaxTrackable * 4;
  h.record(huge);
  EXPECT_EQ(h.index_of(huge), Histogram::kBucketCount - 1);
  EXPECT_EQ(h.max(), huge);
  EXPECT_EQ(h.percentile(100), huge);
  h.reset();
  EXPECT_EQ(h.count(), 0u);
}

}  // namespace
}  // namespace gatebench::load
