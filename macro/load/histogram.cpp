#include "macro/load/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace gatebench::load {

void Histogram::merge(const Histogram& other) {
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
  min_ = std::min(min_, other.min_);
}

void Histogram::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_ = 0;
  sum_ = 0;
  max_ = 0;
  min_ = UINT64_MAX;
}

std::uint64_t Histogram::lower_bound(std::size_t index) {
  if (index < 2 * kSubCount) return index;
  const std::size_t rest = index - 2 * kSubCount;
  const int shift = static_cast<int>(rest / kSubCount) + 1;
  const std::uint64_t mantissa = kSubCount + rest % kSubCount;
  return mantissa << shift;
}

std::uint64_t Histogram::width(std::size_t index) {
  if (index < 2 * kSubCount) return 1;
  return 1ULL << (static_cast<int>((index - 2 * kSubCount) / kSubCount) + 1);
}

double Histogram::stdev() const {
  if (total_ < 2) return 0;
  const double mu = mean();
  long double acc = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    const double mid =
        static_cast<double>(lower_bound(i)) + static_cast<double>(width(i) - 1) / 2.0;
    const long double d = mid - mu;
    acc += d * d * static_cast<long double>(counts_[i]);
  }
  return std::sqrt(static_cast<double>(acc / static_cast<long double>(total_)));
}

std::uint64_t Histogram::percentile(double p) const {
  if (total_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total_)));
  rank = std::clamp<std::uint64_t>(rank, 1, total_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const std::uint64_t mid = lower_bound(i) + (width(i) - 1) / 2;
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

}  // namespace gatebench::load
