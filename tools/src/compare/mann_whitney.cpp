#include "tools/src/compare/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace gatebench::tools {

MannWhitneyResult mann_whitney_two_sided(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("mann_whitney_two_sided: empty sample");
  const double n1 = static_cast<double>(x.size());
  const double n2 = static_cast<double>(y.size());
  const double n = n1 + n2;

  struct Value {
    double v;
    bool from_x;
  };
  std::vector<Value> all;
  all.reserve(x.size() + y.size());
  for (double v : x) all.push_back({v, true});
  for (double v : y) all.push_back({v, false});
  std::sort(all.begin(), all.end(), [](const Value& a, const Value& b) { return a.v < b.v; });

  // Average ranks over runs of ties; the tie term sum(t^3 - t) feeds the variance correction.
  double rank_sum_x = 0.0;
  double tie_term = 0.0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].v == all[i].v) ++j;
    const double t = static_cast<double>(j - i);
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].from_x) rank_sum_x += avg_rank;
    tie_term += t * t * t - t;
    i = j;
  }

  const double u1 = rank_sum_x - n1 * (n1 + 1.0) / 2.0;
  const double u2 = n1 * n2 - u1;
  const double mu = n1 * n2 / 2.0;
  const double variance = n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
  const double big_u = std::max(u1, u2);
  if (variance <= 0.0) return {u1, 0.0, 1.0};
  const double z = (big_u - mu - 0.5) / std::sqrt(variance);
  // 2 * norm.sf(z); z < 0 only when U1 == U2, where scipy clips the result to 1.
  const double p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return {u1, z, p};
}

}  // namespace gatebench::tools
