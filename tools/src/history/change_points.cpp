#include "tools/src/history/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace gatebench::tools {

namespace {

void shuffle(std::vector<double>& v, SplitMix64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    // The modulo bias is below i / 2^64: no measurable effect on a p-value.
    const std::size_t j = static_cast<std::size_t>(rng.next() % i);
    std::swap(v[i - 1], v[j]);
  }
}

// p-value of the best split's statistic against the best splits of `permutations` shuffles of
// the same segment (the null hypothesis: no change, so every order is equally likely). Stops
// once the count already exceeds what alpha allows: the split is then rejected either way.
double permutation_p_value(std::span<const double> segment, double observed,
                           const ChangePointOptions& opt, std::size_t offset) {
  SplitMix64 rng{opt.seed ^ (0x51ed2701ULL * (offset + 1)) ^ (segment.size() << 32)};
  std::vector<double> shuffled(segment.begin(), segment.end());
  auto p_value = [&](int at_least) { return (at_least + 1.0) / (opt.permutations + 1.0); };
  int at_least = 0;
  for (int k = 0; k < opt.permutations; ++k) {
    shuffle(shuffled, rng);
    if (e_divisive_best_split(shuffled, opt.min_size).q >= observed) ++at_least;
    if (p_value(at_least) > opt.alpha) return 1.0;
  }
  return p_value(at_least);
}

struct Found {
  std::size_t index;
  double p, q;
};

void bisect(std::span<const double> x, std::size_t offset, const ChangePointOptions& opt,
            std::vector<Found>& found) {
  const Split s = e_divisive_best_split(x, opt.min_size);
  if (s.index == 0) return;
  const double p = permutation_p_value(x, s.q, opt, offset);
  if (p > opt.alpha) return;
  found.push_back({offset + s.index, p, s.q});
  bisect(x.first(s.index), offset, opt, found);
  bisect(x.subspan(s.index), offset + s.index, opt, found);
}

double mean(std::span<const double> x) {
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

}  // namespace

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

Split e_divisive_best_split(std::span<const double> x, std::size_t min_size) {
  const std::size_t n = x.size();
  min_size = std::max<std::size_t>(min_size, 1);
  Split best;
  if (n < 2 * min_size) return best;
  // row[k * (n + 1) + j] = sum over i < j of |x_k - x_i|, so that every sum of distances between
  // a point and a range is one subtraction and all (tau, kappa) pairs cost O(n^2) together.
  const std::size_t w = n + 1;
  std::vector<double> row(n * w, 0.0);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t j = 0; j < n; ++j) row[k * w + j + 1] = row[k * w + j] + std::abs(x[k] - x[j]);
  best.q = -std::numeric_limits<double>::infinity();
  double within_left = 0;  // distances within x[0, tau)
  for (std::size_t tau = 1; tau < n; ++tau) {
    within_left += row[(tau - 1) * w + tau - 1];
    if (tau < min_size) continue;
    const double a = static_cast<double>(tau);
    const double left_term = tau > 1 ? within_left / (a * (a - 1) / 2) : 0;
    // Matteson & James search the end kappa of the right part too (Y = x[tau, kappa)), so that
    // a change that reverts (a bump) is seen against the points before it, not diluted by the
    // points after it.
    double cross = 0, within_right = 0;
    for (std::size_t kappa = tau + 1; kappa <= n; ++kappa) {
      const std::size_t k = kappa - 1;  // the point kappa adds to the right part
      cross += row[k * w + tau];
      within_right += row[k * w + k] - row[k * w + tau];
      if (kappa - tau < min_size) continue;
      const double b = static_cast<double>(kappa - tau);
      // The divergence: twice the mean distance between the parts minus the mean distance
      // within each (a part of one point has no pairs: its term is 0).
      const double e =
          2 * cross / (a * b) - left_term - (b > 1 ? within_right / (b * (b - 1) / 2) : 0);
      const double q = a * b / (a + b) * e;
      if (q > best.q) best = {tau, q};
    }
  }
  return best;
}

namespace {

// The change points at `found` (index order), each with the means of its neighbouring segments.
std::vector<ChangePoint> with_segment_means(std::span<const double> x,
                                            const std::vector<Found>& found) {
  std::vector<ChangePoint> out;
  for (std::size_t k = 0; k < found.size(); ++k) {
    const std::size_t begin = k == 0 ? 0 : found[k - 1].index;
    const std::size_t end = k + 1 < found.size() ? found[k + 1].index : x.size();
    ChangePoint c;
    c.index = found[k].index;
    c.mean_before = mean(x.subspan(begin, c.index - begin));
    c.mean_after = mean(x.subspan(c.index, end - c.index));
    c.size = c.mean_before != 0 ? (c.mean_after - c.mean_before) / std::abs(c.mean_before) : 0;
    c.p_value = found[k].p;
    c.q = found[k].q;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::vector<ChangePoint> detect_change_points(std::span<const double> x,
                                              const ChangePointOptions& options) {
  std::vector<Found> found;
  bisect(x, 0, options, found);
  std::sort(found.begin(), found.end(),
            [](const Found& a, const Found& b) { return a.index < b.index; });
  return with_segment_means(x, found);
}

std::vector<ChangePoint> detect_exact_steps(std::span<const double> x, double threshold) {
  std::vector<Found> found;
  if (x.empty()) return {};
  double level = x[0];
  for (std::size_t i = 1; i < x.size(); ++i) {
    const bool moved =
        level != 0 ? std::abs(x[i] - level) >= threshold * std::abs(level) : x[i] != 0;
    if (!moved) continue;
    found.push_back({i, 0.0, 0.0});
    level = x[i];
  }
  return with_segment_means(x, found);
}

}  // namespace gatebench::tools
