// The detector's study: series with known steps (a documented generator with a fixed seed and
// noise at a spread measured on the project's machines), run through detect_change_points, and
// the share of steps found near where they are and the false change points (docs/history.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/src/history/change_points.hpp"

namespace gatebench::tools {

struct GeneratedSeries {
  std::vector<double> values;
  std::vector<std::size_t> steps;  // index of the first point after each step
};

// `length` points around level 1.0 with Gaussian noise of standard deviation `cv` times the
// level. The number of steps is drawn from 0..max_steps; each step multiplies the level by
// (1 + step) or (1 - step), direction drawn; every segment between steps (and before the first,
// after the last) has at least `min_segment` points.
GeneratedSeries generate_step_series(SplitMix64& rng, std::size_t length, double cv, double step,
                                     std::size_t max_steps, std::size_t min_segment);

struct StudyOptions {
  std::size_t series = 200;
  std::size_t length = 100;
  std::vector<double> cvs = {0.01, 0.022};
  double step = 0.05;
  std::size_t max_steps = 3;
  std::size_t min_segment = 10;
  std::size_t tolerance = 2;  // a step counts as found with a change point within this distance
  std::uint64_t seed = 1;
  ChangePointOptions detector;
};

struct StudyRow {
  double cv = 0;
  std::size_t series = 0, points = 0, steps = 0, found = 0, false_points = 0;
  double found_share() const { return steps ? double(found) / double(steps) : 1.0; }
  double false_per_100_points() const {
    return points ? 100.0 * double(false_points) / double(points) : 0;
  }
};

std::vector<StudyRow> run_change_point_study(const StudyOptions& options);
std::string study_markdown(const StudyOptions& options, const std::vector<StudyRow>& rows);

}  // namespace gatebench::tools
