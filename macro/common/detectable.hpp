// What a time-based macro comparison can see: the minimum detectable change (MDC) of the macro
// gate at 95% power, from the rounds per side and the per-round spread, and the inverse, the
// rounds a target change needs (docs/gating.md, "What a time figure could have seen").
//
// The gate (docs/compare.md) flags a measure when a two-sided Mann–Whitney test over the rounds
// gives p < alpha AND the medians moved by at least a minimum change (the "line"). With a
// per-round spread s (standard deviation over the median) the difference of two medians of nb
// and nh rounds spreads by sqrt(pi/2) * s * sqrt(1/nb + 1/nh) (the median of normal samples is
// sqrt(pi/2) times as variable as their mean), so a true change d is past the line with
// probability Phi((d - line) / that): 95% needs d >= line + z(0.95) * it. The rank test needs
// d >= (z(1 - alpha/2) + z(0.95)) * s * sqrt(1/nb + 1/nh) * sqrt(pi/3) (its efficiency against
// the t test is 3/pi), and nothing when its smallest possible p-value, 2 / C(nb + nh, nb), is
// not below alpha. The MDC is the larger of the two. The model was checked against the 180-round
// study of docs/gating.md: it predicts 95.5% and 94% detection of the +7.35% seen there at 36 and
// 30 rounds per side; the study caught 95% and 90%.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace gatebench::common {

// Standard normal quantile (inverse CDF), p in (0, 1); |error| < 1.2e-9 (Acklam's rational
// approximation refined by one Halley step).
double normal_quantile(double p);

// Standard deviation over the median of one set of rounds; none with fewer than 2 values or a
// median of 0.
std::optional<double> relative_spread(std::span<const double> values);
// Both sides' relative spreads pooled by their degrees of freedom (each side needs 2 values).
std::optional<double> pooled_relative_spread(std::span<const double> base,
                                             std::span<const double> head);

// The smallest true relative change the gate flags with 95% probability; none when the rank
// test cannot reach alpha with so few rounds.
std::optional<double> minimum_detectable_change(double spread, std::size_t base_rounds,
                                                std::size_t head_rounds, double line,
                                                double alpha = 0.05);

// The rounds per side a target change needs, and the line that goes with them.
struct RoundsForChange {
  std::size_t rounds = 0;   // per side; 0 when not reachable within max_rounds
  double line = 0;          // --cpu-threshold to compare with
  double seen_change = 0;   // the target change as the gated measure sees it
  double mdc = 0;           // the MDC at those rounds and that line
  double false_alarms = 0;  // probability an A/A comparison passes the line (two-sided)
};
// The study behind --detect (docs/gating.md, 180 rounds, 2026-12-01 22:28 UTC, quiet 2-vCPU VM):
// one round's cpu_vs_load spread by 4.7-5.1% (sd over median) at --quick length (2 s measured),
// and cpu_vs_load showed a rise of the target's CPU per request at about 3/4 of its size (+9.8%
// as +7.6%, +10.7% as +6.9%, +10.0% as +7.4% over the studies). The macro gate's default line on
// CPU per request is compare's --cpu-threshold, 5%. The time the chosen rounds take comes from
// the driver's estimate of the plans (macro/driver/system/progress.hpp).
inline constexpr double kStudyRoundSpread = 0.047;
inline constexpr double kStudyMeasuredSeconds = 2.0;
inline constexpr double kStudySeenShare = 0.75;
inline constexpr double kDefaultCpuLine = 0.05;

// `target`: the change of the target's CPU per request to catch; `seen_share`: the share of it
// the gated measure shows (cpu_vs_load sees about 3/4, docs/gating.md); `spread`: per round.
// The default line is kept where the rounds catch the seen change with it; where a lower line
// would need fewer rounds, the line is lowered to seen - z(0.95) * (spread of the difference),
// but not below z(0.995) times that spread, so an unchanged scenario passes it at most 1% of the
// time (the median criterion alone; the rank test lowers it further). `min_rounds`: compare's
// --min-rounds.
RoundsForChange rounds_for_change(double target, double spread, double seen_share,
                                  double default_line, std::size_t min_rounds = 5,
                                  std::size_t max_rounds = 1000, double alpha = 0.05);

// --detect's plan for a rise `target` of CPU per request, runs of `measured_seconds` each: the
// study's spread scaled by sqrt(kStudyMeasuredSeconds / measured_seconds) (on the assumption
// that the noise of a longer run falls as 1/sqrt(time)), its seen share and the default line.
double study_round_spread(double measured_seconds);
RoundsForChange rounds_for_cpu_change(double target, double measured_seconds);

// A share as a percentage for "no change of 14% or more": no decimals from 10% or when whole
// ("5%"), else one ("4.6%").
std::string percent_text(double fraction);

}  // namespace gatebench::common
