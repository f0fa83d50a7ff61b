// Small inline-SVG charts for report.html (no scripts, no network): horizontal bar charts and
// line charts with linear or log axes. Output is deterministic text, so reports diff cleanly.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gatebench::tools {

struct Bar {
  std::string label;
  double value = 0;
  std::string text;  // printed after the bar
  int color = 0;     // palette index
};

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y)
  int color = -1;  // palette index; -1: the series' place in the chart
};

struct Axis {
  std::string label;
  bool log = false;
  std::vector<std::pair<double, std::string>> ticks;  // empty: automatic
};

// The label column is as wide as the longest label and the chart as wide as its title, so no
// text is cut. log_scale draws bar lengths on a log axis (for ratios spanning decades); reference
// draws a dashed vertical line at that value (e.g. 1.0 for "as fast as nginx"), ignored when <= 0.
std::string svg_bar_chart(const std::string& title, const std::vector<Bar>& bars,
                          bool log_scale = false, double reference = 0);
struct ChartSize {
  double width = 760, height = 320;
  double legend = 210;  // room on the right for the series names
};
inline constexpr ChartSize kSmallChart{460, 200, 90};  // one per scenario, side by side

std::string svg_line_chart(const std::string& title, const std::vector<Series>& series,
                           const Axis& x, const Axis& y, const ChartSize& size = {});

const char* palette_color(int index);
// The palette's grey: the baseline (nginx) in every chart, never a target's colour.
inline constexpr int kBaselineColor = 8;

// Width in pixels of `s` in the charts' 12 px sans-serif, rounded up: a generous average glyph
// width (digits and capitals are wider than the mean), so that labels are never cut.
double text_width(const std::string& s);

}  // namespace gatebench::tools
