#include "macro/common/detectable.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

namespace gatebench::common {

namespace {

constexpr double kPower = 0.95;
constexpr double kFalseAlarm = 0.01;  // two-sided share of A/A comparisons past the line

// sqrt(pi/2): a median's standard error over a mean's, normal samples.
const double kMedianFactor = std::sqrt(std::numbers::pi / 2);
// sqrt(pi/3): the rank test's sample size over the t test's for the same power (ARE 3/pi).
const double kRankFactor = std::sqrt(std::numbers::pi / 3);

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

// log C(n, k)
double log_choose(std::size_t n, std::size_t k) {
  return std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(k) + 1) -
         std::lgamma(static_cast<double>(n - k) + 1);
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

double normal_quantile(double p) {
  // P. J. Acklam's coefficients.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  if (!(p > 0 && p < 1)) return std::nan("");
  constexpr double low = 0.02425;
  double x;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - low) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Halley step on Phi(x) - p.
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

std::optional<double> relative_spread(std::span<const double> values) {
  if (values.size() < 2) return std::nullopt;
  const double med = median_of({values.begin(), values.end()});
  if (med == 0) return std::nullopt;
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(values.size() - 1)) / std::fabs(med);
}

std::optional<double> pooled_relative_spread(std::span<const double> base,
                                             std::span<const double> head) {
  const auto b = relative_spread(base), h = relative_spread(head);
  if (!b || !h) return std::nullopt;
  const double db = static_cast<double>(base.size() - 1), dh = static_cast<double>(head.size() - 1);
  return std::sqrt((*b * *b * db + *h * *h * dh) / (db + dh));
}

std::optional<double> minimum_detectable_change(double spread, std::size_t base_rounds,
                                                std::size_t head_rounds, double line,
                                                double alpha) {
  if (base_rounds == 0 || head_rounds == 0 || !(spread >= 0)) return std::nullopt;
  // The exact rank test's smallest two-sided p: both sides fully separated.
  if (std::log(2.0) - log_choose(base_rounds + head_rounds, base_rounds) >= std::log(alpha))
    return std::nullopt;
  const double root =
      std::sqrt(1.0 / static_cast<double>(base_rounds) + 1.0 / static_cast<double>(head_rounds));
  const double z_power = normal_quantile(kPower);
  const double by_line = line + z_power * kMedianFactor * spread * root;
  const double by_test = (normal_quantile(1 - alpha / 2) + z_power) * kRankFactor * spread * root;
  return std::max(by_line, by_test);
}

RoundsForChange rounds_for_change(double target, double spread, double seen_share,
                                  double default_line, std::size_t min_rounds,
                                  std::size_t max_rounds, double alpha) {
  RoundsForChange out;
  out.seen_change = target * seen_share;
  const double z_power = normal_quantile(kPower);
  const double z_alarm = normal_quantile(1 - kFalseAlarm / 2);
  for (std::size_t n = std::max<std::size_t>(min_rounds, 2); n <= max_rounds; ++n) {
    const double sd = kMedianFactor * spread * std::sqrt(2.0 / static_cast<double>(n));
    // The default line where it catches the seen change; else the highest line that does, as
    // long as an unchanged scenario stays behind it (the default line's false alarms were
    // measured, a lower one's are held to the model's 1%).
    double line = default_line;
    auto mdc = minimum_detectable_change(spread, n, n, line, alpha);
    if (!mdc || *mdc > out.seen_change + 1e-12) {
      line = std::min(default_line, out.seen_change - z_power * sd);
      if (line < z_alarm * sd) continue;
      mdc = minimum_detectable_change(spread, n, n, line, alpha);
      if (!mdc || *mdc > out.seen_change + 1e-12) continue;
    }
    out.rounds = n;
    out.line = line;
    out.mdc = *mdc;
    out.false_alarms = 2 * (1 - normal_cdf(line / sd));
    return out;
  }
  return out;
}

double study_round_spread(double measured_seconds) {
  return kStudyRoundSpread * std::sqrt(kStudyMeasuredSeconds / measured_seconds);
}

RoundsForChange rounds_for_cpu_change(double target, double measured_seconds) {
  return rounds_for_change(target, study_round_spread(measured_seconds), kStudySeenShare,
                           kDefaultCpuLine);
}

std::string percent_text(double fraction) {
  char text[32];
  const double pct = fraction * 100;
  const bool whole = pct >= 10 || std::fabs(pct - std::round(pct)) < 0.05;
  std::snprintf(text, sizeof text, whole ? "%.0f%%" : "%.1f%%", pct);
  return text;
}

}  // namespace gatebench::common
