#include "macro/driver/measure/cpu_series.hpp"

#include <algorithm>

namespace gatebench::macro {

void CpuSeries::add(double t_s, double cpu_s) {
  if (!points_.empty() && t_s <= points_.back().t) return;
  points_.push_back({t_s, std::max(cpu_s, points_.empty() ? cpu_s : points_.back().cpu)});
}

double CpuSeries::at(double t) const {
  if (points_.empty()) return 0;
  if (t <= points_.front().t) return points_.front().cpu;
  if (t >= points_.back().t) return points_.back().cpu;
  auto after = std::upper_bound(points_.begin(), points_.end(), t,
                                [](double value, const Point& p) { return value < p.t; });
  const Point& b = *after;
  const Point& a = *(after - 1);
  return a.cpu + (b.cpu - a.cpu) * (t - a.t) / (b.t - a.t);
}

double CpuSeries::between(double t0, double t1) const {
  return t1 > t0 ? at(t1) - at(t0) : 0;
}

double CpuSeries::first_t() const {
  return points_.empty() ? 0 : points_.front().t;
}

double CpuSeries::last_t() const {
  return points_.empty() ? 0 : points_.back().t;
}

}  // namespace gatebench::macro
