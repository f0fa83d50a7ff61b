// Log-linear latency histogram in the spirit of HdrHistogram: every power of two is split into
// 2^kSubBits equal sub-buckets, so a recorded value is known to within 1/2^kSubBits of itself
// (reported at the bucket midpoint: half that). With kSubBits = 7 that is <= 0.4% from 1 us to
// 2^kMaxExponent ns; values below 2^(kSubBits+1) ns are exact. Fixed layout, so histograms of
// different threads merge by adding counts.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gatebench::load {

class Histogram {
 public:
  static constexpr int kSubBits = 7;
  static constexpr std::uint64_t kSubCount = 1ULL << kSubBits;
  // 2^37 ns = 137 s: covers the 60 s the contract asks for with room for long timeouts.
  static constexpr int kMaxExponent = 37;
  static constexpr std::size_t kBucketCount =
      2 * kSubCount + static_cast<std::size_t>(kMaxExponent - kSubBits - 1) * kSubCount;
  static constexpr std::uint64_t kMaxTrackable = (1ULL << kMaxExponent) - 1;

  Histogram() : counts_(kBucketCount, 0) {}

  // Values above kMaxTrackable land in the last bucket; max() still reports them exactly.
  void record(std::uint64_t value_ns) {
    counts_[index_of(value_ns)] += 1;
    total_ += 1;
    sum_ += value_ns;
    if (value_ns > max_) max_ = value_ns;
    if (value_ns < min_) min_ = value_ns;
  }

  void merge(const Histogram& other);
  void reset();

  std::uint64_t count() const { return total_; }
  std::uint64_t max() const { return total_ ? max_ : 0; }
  std::uint64_t min() const { return total_ ? min_ : 0; }
  double mean() const {
    return total_ ? static_cast<double>(sum_) / static_cast<double>(total_) : 0;
  }
  // From bucket midpoints (so record() needs no squares): within the bucket precision.
  double stdev() const;
  // Value at percentile p in [0, 100]: the midpoint of the bucket holding the ceil(p% * count)-th
  // smallest value (clamped to [min, max], so p = 100 gives the exact max). 0 when empty.
  std::uint64_t percentile(double p) const;

  std::size_t bucket_count() const { return counts_.size(); }
  std::uint64_t bucket(std::size_t index) const { return counts_[index]; }
  static std::size_t index_of(std::uint64_t value) {
    if (value > kMaxTrackable) value = kMaxTrackable;
    if (value < 2 * kSubCount) return static_cast<std::size_t>(value);
    const int exponent = std::bit_width(value) - 1;  // >= kSubBits + 1
    const int shift = exponent - kSubBits;
    const std::uint64_t mantissa = value >> shift;  // in [kSubCount, 2 * kSubCount)
    return static_cast<std::size_t>(
        2 * kSubCount + static_cast<std::uint64_t>(shift - 1) * kSubCount + (mantissa - kSubCount));
  }
  // Smallest value mapped to the bucket, and the width of the bucket.
  static std::uint64_t lower_bound(std::size_t index);
  static std::uint64_t width(std::size_t index);

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  // 2^64 ns is 584 years of summed latency: no overflow in practice.
  std::uint64_t sum_ = 0;
};

}  // namespace gatebench::load
