// Two-sided Mann–Whitney U test, computed the way scipy.stats.mannwhitneyu(x, y,
// alternative='two-sided') does for the samples the gate accepts (both sides > 8 values, or any
// ties): normal approximation with tie correction and continuity correction. See docs/compare.md.
#pragma once

#include <span>

namespace gatebench::tools {

struct MannWhitneyResult {
  double u1;  // U statistic of the first sample (scipy's `statistic`)
  double z;   // standardised max(U1, U2) after continuity correction
  double p;   // two-sided p-value in [0, 1]
};

// Both samples must be non-empty (the caller enforces the minimum repetitions). When every value
// is identical the variance is zero; the result is p = 1 (scipy 1.10 yields the same after
// clipping), because no ordering evidence exists.
MannWhitneyResult mann_whitney_two_sided(std::span<const double> x, std::span<const double> y);

}  // namespace gatebench::tools
