#include "tools/src/history/history_study.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tools/src/results/format.hpp"

namespace gatebench::tools {

namespace {

double gaussian(SplitMix64& rng) {  // Box-Muller: one of the pair, for simplicity
  const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

std::size_t below(SplitMix64& rng, std::size_t n) {
  return static_cast<std::size_t>(rng.next() % n);
}

}  // namespace

GeneratedSeries generate_step_series(SplitMix64& rng, std::size_t length, double cv, double step,
                                     std::size_t max_steps, std::size_t min_segment) {
  GeneratedSeries g;
  std::size_t steps = below(rng, max_steps + 1);
  while (steps > 0 && (steps + 1) * min_segment > length) --steps;
  // Positions: the free room beyond the minimum segments is spread over the steps+1 segments by
  // sorted uniform cuts, which keeps every segment at least min_segment long.
  const std::size_t room = length - (steps + 1) * min_segment;
  std::vector<std::size_t> cuts;
  for (std::size_t k = 0; k < steps; ++k) cuts.push_back(below(rng, room + 1));
  std::sort(cuts.begin(), cuts.end());
  for (std::size_t k = 0; k < steps; ++k) g.steps.push_back(cuts[k] + (k + 1) * min_segment);
  double level = 1.0;
  std::size_t next = 0;
  for (std::size_t i = 0; i < length; ++i) {
    if (next < g.steps.size() && i == g.steps[next]) {
      level *= (rng.next() & 1) ? 1 + step : 1 - step;
      ++next;
    }
    g.values.push_back(level * (1 + cv * gaussian(rng)));
  }
  return g;
}

std::vector<StudyRow> run_change_point_study(const StudyOptions& o) {
  std::vector<StudyRow> rows;
  for (const double cv : o.cvs) {
    SplitMix64 rng{o.seed};  // the same step layout for every noise level
    StudyRow row;
    row.cv = cv;
    for (std::size_t s = 0; s < o.series; ++s) {
      const GeneratedSeries g =
          generate_step_series(rng, o.length, cv, o.step, o.max_steps, o.min_segment);
      ChangePointOptions d = o.detector;
      d.seed = o.detector.seed + s;
      const auto found = detect_change_points(g.values, d);
      std::vector<bool> matched(g.steps.size(), false);
      for (const auto& c : found) {
        bool hit = false;
        for (std::size_t k = 0; k < g.steps.size() && !hit; ++k) {
          const std::size_t distance =
              c.index > g.steps[k] ? c.index - g.steps[k] : g.steps[k] - c.index;
          if (!matched[k] && distance <= o.tolerance) matched[k] = hit = true;
        }
        if (!hit) ++row.false_points;  // also a second change point near one step
      }
      row.series += 1;
      row.points += g.values.size();
      row.steps += g.steps.size();
      row.found += static_cast<std::size_t>(std::count(matched.begin(), matched.end(), true));
    }
    rows.push_back(row);
  }
  return rows;
}

std::string study_markdown(const StudyOptions& o, const std::vector<StudyRow>& rows) {
  std::string md =
      "| noise (CV per point) | series | points | " + fmt_percent(o.step, false) +
      " steps | found within " + std::to_string(o.tolerance) +
      " points | false change points | per 100 points |\n|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : rows)
    md += "| " + fmt_percent(r.cv, false) + " | " + std::to_string(r.series) + " | " +
          std::to_string(r.points) + " | " + std::to_string(r.steps) + " | " +
          std::to_string(r.found) + " (" + fmt_percent(r.found_share(), false) + ") | " +
          std::to_string(r.false_points) + " | " + fmt_fixed(r.false_per_100_points(), 2) + " |\n";
  return md;
}

}  // namespace gatebench::tools
