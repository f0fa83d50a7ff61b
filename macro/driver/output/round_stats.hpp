#pragma once
// Medians over rounds and the distribution-free confidence interval of a median.
#include <optional>
#include <vector>

namespace gatebench::macro {

struct MedianInterval {
  double median = 0;
  double lo = 0;
  double hi = 0;
  int n = 0;
  double level = 0;  // the interval's actual coverage; below the target when n is small
};

// Median of the values (mean of the two middle ones for an even count); nothing when empty.
std::optional<double> median_of(std::vector<double> values);

// The order-statistics interval [x(k), x(n+1-k)] of the median: the widest k whose coverage
// under Binomial(n, 1/2) is at least `target` (0.95). When even [min, max] covers less (n <= 5
// at 95%), [min, max] with its actual coverage: n = 5 gives 0.9375, n = 3 gives 0.75. No
// assumption about the figures' distribution, which on shared machines is skewed by slow spells.
// Nothing for fewer than 2 values.
std::optional<MedianInterval> median_interval(std::vector<double> values, double target = 0.95);

}  // namespace gatebench::macro
