#include "macro/driver/output/round_stats.hpp"

#include <algorithm>
#include <cmath>

namespace gatebench::macro {

std::optional<double> median_of(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

namespace {

// P(k <= B <= n - k) for B ~ Binomial(n, 1/2), k counted from 0: the probability that the
// interval between the (k+1)-th smallest and the (k+1)-th largest value holds the true median.
double coverage(int n, int k) {
  double below = 0;  // P(B <= k - 1)... summed as P(B < k+1) for the lower tail
  double term = std::pow(0.5, n);
  for (int i = 0; i <= k; ++i) {
    below += term;
    term = term * (n - i) / (i + 1);
  }
  return 1 - 2 * below;
}

}  // namespace

std::optional<MedianInterval> median_interval(std::vector<double> values, double target) {
  const int n = static_cast<int>(values.size());
  if (n < 2) return std::nullopt;
  std::sort(values.begin(), values.end());
  // k = 0 is [min, max]; the widest k still at or above the target narrows the interval most.
  int k = 0;
  while (k + 1 < n - 1 - k && coverage(n, k + 1) >= target) ++k;
  MedianInterval out;
  out.median = *median_of(values);
  out.lo = values[static_cast<std::size_t>(k)];
  out.hi = values[static_cast<std::size_t>(n - 1 - k)];
  out.n = n;
  out.level = coverage(n, k);
  return out;
}

}  // namespace gatebench::macro
