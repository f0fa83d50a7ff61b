// Change points of one series of measurements (a figure over commits): E-divisive means
// (Matteson & James 2014, "A nonparametric approach for multiple change point analysis of
// multivariate data", with distance exponent 1), as MongoDB's signal-processing-algorithms and
// Apache Otava (Hunter) use it, with a seeded permutation test for significance and recursive
// bisection. docs/history.md says why this method.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gatebench::tools {

// SplitMix64 (Steele, Lea, Flood 2014): a fixed generator, so permutations, p-values and the
// generated study series are the same on every platform and standard library.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next();
  double uniform();  // in [0, 1)
};

struct ChangePointOptions {
  double alpha = 0.01;     // a split is kept when its permutation p-value is <= alpha
  int permutations = 199;  // permutations per test; the smallest p-value is 1 / (permutations + 1)
  std::uint64_t seed = 1;  // the permutations are drawn from (seed, segment): deterministic
  std::size_t min_size = 2;  // fewest points on either side of a change point
};

struct ChangePoint {
  std::size_t index = 0;                   // the first point of the new segment
  double mean_before = 0, mean_after = 0;  // means of the neighbouring segments of the result
  double size = 0;     // (mean_after - mean_before) / |mean_before|: the relative change
  double p_value = 1;  // of the permutation test that accepted the split
  double q = 0;        // the E-divisive statistic at the split
};

// The best split of `x` (the point that starts the right part) and its statistic Q; every part
// has at least `min_size` points. Nothing (index 0) when x has fewer than 2 * min_size points.
struct Split {
  std::size_t index = 0;
  double q = 0;
};
Split e_divisive_best_split(std::span<const double> x, std::size_t min_size);

// Every significant change point of `x`, in index order. Deterministic for given options.
std::vector<ChangePoint> detect_change_points(std::span<const double> x,
                                              const ChangePointOptions& options = {});

// Steps of an exact series (instructions or system calls per request, counted, not sampled):
// a change point at every point that differs from its segment's first point by at least
// `threshold` of it, the same line `gatebench compare` draws between two commits, so a step is
// found at the first commit that moved it, with no noise model and no minimum segment size.
// p_value and q are 0.
std::vector<ChangePoint> detect_exact_steps(std::span<const double> x, double threshold);

}  // namespace gatebench::tools
