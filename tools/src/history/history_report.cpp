#include "tools/src/history/history_report.hpp"

#include <re2/re2.h>

#include "macro/common/usage_error.hpp"
#include "tools/src/report/svg_chart.hpp"
#include "tools/src/results/format.hpp"

namespace gatebench::tools {

namespace {

std::string method_line(const ChangePointOptions& o) {
  return "Change points: E-divisive means with a permutation test (" +
         std::to_string(o.permutations) + " permutations, α = " + fmt_sig(o.alpha, 2) + ", seed " +
         std::to_string(o.seed) + ", at least " + std::to_string(o.min_size) +
         " points per side); in the exact counts per request (instructions_per_request, "
         "syscalls_per_request) every step of at least the exact threshold, at its first commit "
         "(p shown as \"exact\"); method in docs/history.md.";
}

std::string p_text(const AnalysedSeries& a, const ChangePoint& c) {
  return is_exact_figure(a.series.figure) ? "exact" : fmt_sig(c.p_value, 2);
}

std::string title(const AnalysedSeries& a) {
  const HistorySeries& s = a.series;
  return s.subject + " · " + s.figure + " (" + s.unit + ", " +
         (s.lower_is_better ? "lower" : "higher") + " is better)";
}

std::string machine_line(const HistorySeries& s) {
  return "machine " + s.fingerprint + " (" + s.machine + ")" + (s.smoke ? ", quick runs" : "");
}

const ChangePoint* change_at(const AnalysedSeries& a, std::size_t index) {
  for (const auto& c : a.change_points)
    if (c.index == index) return &c;
  return nullptr;
}

std::string change_text(const AnalysedSeries& a, const ChangePoint& c) {
  const std::string p = is_exact_figure(a.series.figure) ? "exact" : "p = " + p_text(a, c);
  return "change point " + fmt_percent(c.size) + " (" + p + ")" +
         (is_regression(a, c) ? ", regression" : ", improvement");
}

std::string value_text(double v) {
  return fmt_sig(v, 4);
}

struct ChangeRow {
  const AnalysedSeries* series;
  const ChangePoint* change;
};

std::vector<ChangeRow> every_change(const std::vector<AnalysedSeries>& all) {
  std::vector<ChangeRow> rows;
  for (const auto& a : all)
    for (const auto& c : a.change_points) rows.push_back({&a, &c});
  return rows;
}

std::string chart(const AnalysedSeries& a) {
  const HistorySeries& s = a.series;
  std::vector<Series> lines;
  Series values{s.figure, {}, 0};
  for (std::size_t i = 0; i < s.points.size(); ++i)
    values.points.emplace_back(static_cast<double>(i + 1), s.points[i].value);
  lines.push_back(std::move(values));
  if (!a.change_points.empty()) {
    // The segment means as one step line: flat within a segment, a jump at each change point.
    Series means{"segment means", {}, 1};
    std::size_t begin = 0;
    for (std::size_t k = 0; k <= a.change_points.size(); ++k) {
      const std::size_t end =
          k < a.change_points.size() ? a.change_points[k].index : s.points.size();
      double sum = 0;
      for (std::size_t i = begin; i < end; ++i) sum += s.points[i].value;
      const double m = sum / static_cast<double>(end - begin);
      means.points.emplace_back(static_cast<double>(begin + 1), m);
      means.points.emplace_back(static_cast<double>(end), m);
      begin = end;
    }
    lines.push_back(std::move(means));
    // Each change point as a one-point series: a marked dot with its size in the legend.
    for (const auto& c : a.change_points)
      lines.push_back({fmt_percent(c.size) + " @" + short_commit(s.points[c.index]).substr(0, 7),
                       {{static_cast<double>(c.index + 1), s.points[c.index].value}},
                       is_regression(a, c) ? 3 : 2});
  }
  return svg_line_chart(title(a), lines, Axis{"run (oldest to newest)"},
                        Axis{s.figure + " (" + s.unit + ")"});
}

}  // namespace

std::string short_commit(const HistoryPoint& p) {
  return p.commit.substr(0, 10) + (p.dirty ? "+dirty" : "");
}

std::set<std::string> default_history_figures() {
  return {"cpu_time", "rps",    "cpu_us_per_request",       "cpu_vs_load",
          "vs_nginx", "p99_us", "instructions_per_request", "syscalls_per_request"};
}

bool is_exact_figure(const std::string& figure) {
  return figure == "instructions_per_request" || figure == "syscalls_per_request";
}

std::vector<AnalysedSeries> analyse_history(const std::vector<HistorySeries>& all,
                                            const HistorySelection& sel,
                                            const ChangePointOptions& options) {
  const RE2 filter(sel.filter, RE2::Quiet);
  if (!filter.ok())
    throw common::UsageError("--filter: not a valid RE2 expression: " + filter.error());
  std::vector<AnalysedSeries> out;
  for (const auto& s : all) {
    if (!sel.figures.empty() && !sel.figures.contains(s.figure)) continue;
    if (!sel.include_smoke && s.smoke) continue;
    if (!sel.filter.empty() && !RE2::PartialMatch(s.subject, filter)) continue;
    std::vector<double> values;
    for (const auto& p : s.points) values.push_back(p.value);
    out.push_back({s, is_exact_figure(s.figure) ? detect_exact_steps(values, sel.exact_threshold)
                                                : detect_change_points(values, options)});
  }
  return out;
}

bool is_regression(const AnalysedSeries& s, const ChangePoint& c) {
  return s.series.lower_is_better ? c.size > 0 : c.size < 0;
}

const ChangePoint* newest_regression(const AnalysedSeries& s, std::size_t recent) {
  if (s.change_points.empty()) return nullptr;
  const ChangePoint& last = s.change_points.back();
  const std::size_t n = s.series.points.size();
  if (!is_regression(s, last) || last.index + recent < n) return nullptr;
  return &last;
}

std::string history_markdown(const std::vector<AnalysedSeries>& all, const std::string& db,
                             const ChangePointOptions& options) {
  std::string md = "# gatebench history\n\nDatabase `" + db + "`: " + std::to_string(all.size()) +
                   " series. " + method_line(options) + "\n\n## Change points\n\n";
  const auto changes = every_change(all);
  if (changes.empty()) {
    md += "No change point in any series.\n";
  } else {
    md +=
        "| benchmark / scenario | figure | machine | commit | run | before | after | change | p "
        "| |\n|---|---|---|---|---:|---:|---:|---:|---:|---|\n";
    for (const auto& [a, c] : changes)
      md += "| " + md_code_cell(a->series.subject) + " | " + a->series.figure + " | " +
            a->series.fingerprint + (a->series.smoke ? " (quick)" : "") + " | " +
            short_commit(a->series.points[c->index]) + " | " + std::to_string(c->index + 1) +
            " | " + value_text(c->mean_before) + " | " + value_text(c->mean_after) + " | " +
            fmt_percent(c->size) + " | " + p_text(*a, *c) + " | " +
            (is_regression(*a, *c) ? "regression" : "improvement") + " |\n";
  }
  md += "\n## Series\n";
  for (const auto& a : all) {
    md += "\n### " + md_cell(title(a)) + "\n\n" + md_cell(machine_line(a.series)) + "\n\n";
    md += "| run | commit | time | value | samples | |\n|---:|---|---|---:|---:|---|\n";
    for (std::size_t i = 0; i < a.series.points.size(); ++i) {
      const HistoryPoint& p = a.series.points[i];
      const ChangePoint* c = change_at(a, i);
      md += "| " + std::to_string(i + 1) + " | " + short_commit(p) + " | " + p.time + " | " +
            value_text(p.value) + " | " + std::to_string(p.samples.size()) + " | " +
            (c ? change_text(a, *c) : "") + " |\n";
    }
  }
  return md;
}

std::string history_html(const std::vector<AnalysedSeries>& all, const std::string& db,
                         const ChangePointOptions& options) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<link rel=\"icon\" href=\"data:,\"><title>gatebench history</title><style>"
      "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}"
      "h2{border-bottom:1px solid #ddd}table{border-collapse:collapse;font-size:.9em}"
      "th,td{border:1px solid #ddd;padding:3px 8px}td.n{text-align:right}"
      "th{background:#f4f4f4}tr.cp{background:#fff3cd}svg.chart{display:block;margin:8px 0;"
      "font-size:12px}.note{color:#666}</style></head><body><h1>gatebench history</h1>";
  h += "<p class=\"note\">Database <code>" + html_escape(db) +
       "</code>: " + std::to_string(all.size()) + " series. " + html_escape(method_line(options)) +
       "</p>";
  h += "<h2>Change points</h2>";
  const auto changes = every_change(all);
  if (changes.empty()) {
    h += "<p>No change point in any series.</p>";
  } else {
    h += "<table><tr><th>benchmark / scenario</th><th>figure</th><th>machine</th><th>commit</th>"
         "<th>run</th><th>before</th><th>after</th><th>change</th><th>p</th><th></th></tr>";
    for (const auto& [a, c] : changes)
      h += "<tr><td><code>" + html_escape(a->series.subject) + "</code></td><td>" +
           html_escape(a->series.figure) + "</td><td>" + html_escape(a->series.fingerprint) +
           "</td><td>" + html_escape(short_commit(a->series.points[c->index])) +
           "</td><td class=\"n\">" + std::to_string(c->index + 1) + "</td><td class=\"n\">" +
           value_text(c->mean_before) + "</td><td class=\"n\">" + value_text(c->mean_after) +
           "</td><td class=\"n\">" + fmt_percent(c->size) + "</td><td class=\"n\">" +
           p_text(*a, *c) + "</td><td>" + (is_regression(*a, *c) ? "regression" : "improvement") +
           "</td></tr>";
    h += "</table>";
  }
  h += "<h2>Series</h2>";
  for (const auto& a : all) {
    h += "<h3>" + html_escape(title(a)) + "</h3><p class=\"note\">" +
         html_escape(machine_line(a.series)) + "</p>" + chart(a);
    h += "<table><tr><th>run</th><th>commit</th><th>time</th><th>value</th><th>samples</th>"
         "<th></th></tr>";
    for (std::size_t i = 0; i < a.series.points.size(); ++i) {
      const HistoryPoint& p = a.series.points[i];
      const ChangePoint* c = change_at(a, i);
      h += std::string(c ? "<tr class=\"cp\">" : "<tr>") + "<td class=\"n\">" +
           std::to_string(i + 1) + "</td><td><code>" + html_escape(short_commit(p)) +
           "</code></td><td>" + html_escape(p.time) + "</td><td class=\"n\">" +
           value_text(p.value) + "</td><td class=\"n\">" + std::to_string(p.samples.size()) +
           "</td><td>" + (c ? html_escape(change_text(a, *c)) : "") + "</td></tr>";
    }
    h += "</table>";
  }
  h += "</body></html>\n";
  return h;
}

}  // namespace gatebench::tools
