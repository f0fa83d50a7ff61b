// `gatebench history show` and `check`: the series of the history database with their change
// points, as Markdown (history.md) and self-contained HTML with inline SVG charts (history.html),
// and the regression verdict of the newest points.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tools/src/history/change_points.hpp"
#include "tools/src/history/history_db.hpp"

namespace gatebench::tools {

struct AnalysedSeries {
  HistorySeries series;
  std::vector<ChangePoint> change_points;
};

struct HistorySelection {
  std::string filter;             // RE2, matched anywhere in the benchmark or scenario name
  std::set<std::string> figures;  // empty: every figure
  bool include_smoke = true;
  // The step line of the exact figures (is_exact_figure): a change of at least this much from
  // the segment's first point is a change point (detect_exact_steps).
  double exact_threshold = 0.01;
};

// Counts per request (gatebench-macro --instructions): exact, so their steps are found by
// detect_exact_steps rather than by the permutation test.
bool is_exact_figure(const std::string& figure);

// The figures shown and checked unless --figure says otherwise: the ones the gates use.
std::set<std::string> default_history_figures();

// Throws common::UsageError for a filter that is not a valid RE2 expression.
std::vector<AnalysedSeries> analyse_history(const std::vector<HistorySeries>& all,
                                            const HistorySelection& selection,
                                            const ChangePointOptions& options);

// A change point in the figure's bad direction: time or CPU up, throughput down.
bool is_regression(const AnalysedSeries& s, const ChangePoint& c);
// The series' last change point when it is a regression among its newest `recent` points.
const ChangePoint* newest_regression(const AnalysedSeries& s, std::size_t recent);

std::string history_markdown(const std::vector<AnalysedSeries>& series, const std::string& db,
                             const ChangePointOptions& options);
std::string history_html(const std::vector<AnalysedSeries>& series, const std::string& db,
                         const ChangePointOptions& options);
std::string short_commit(const HistoryPoint& p);

}  // namespace gatebench::tools
