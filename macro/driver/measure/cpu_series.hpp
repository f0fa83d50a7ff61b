#pragma once
// Cumulative CPU time sampled over a run, integrated over any interval inside it: the load
// generator reports its measured window afterwards, and CPU per request must come from exactly
// that window, not from process start to exit detection.
#include <vector>

namespace gatebench::macro {

class CpuSeries {
 public:
  // `cpu_s` is cumulative and `t_s` increasing; a sample out of order is ignored.
  void add(double t_s, double cpu_s);

  // CPU seconds used between t0 and t1 (t0 <= t1), the cumulative value interpolated linearly
  // between samples; instants outside the sampled span take the nearest sample's value.
  double between(double t0, double t1) const;
  // The cumulative value at t, as above.
  double at(double t) const;

  bool empty() const { return points_.empty(); }
  double first_t() const;
  double last_t() const;

 private:
  struct Point {
    double t;
    double cpu;
  };
  std::vector<Point> points_;
};

}  // namespace gatebench::macro
