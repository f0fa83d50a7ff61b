// report.html: one self-contained file (inline CSS and SVG, no script, no network) so it opens
// from a CI artifact or a mail attachment and renders in headless Chromium without errors.
#include <cmath>
#include <map>

#include "tools/src/report/report_ablation.hpp"
#include "tools/src/report/report_naive.hpp"
#include "tools/src/report/report_tables.hpp"
#include "tools/src/report/report_writers.hpp"
#include "tools/src/report/svg_chart.hpp"
#include "tools/src/results/format.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

constexpr const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ddd}
h3{font-size:1.05em}
table{border-collapse:collapse;margin:8px 0 16px;font-size:.9em}
th,td{border:1px solid #ddd;padding:3px 8px}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th{background:#f4f4f4}code{font-size:.95em}
svg.chart{display:block;margin:8px 0;font-size:12px;font-family:inherit}
svg.chart .ctitle{font-weight:600;font-size:13px}
.note{color:#666;font-size:.9em}
.charts{display:flex;flex-wrap:wrap;column-gap:16px}
.banner{background:#fff3cd;border:1px solid #e0c060;padding:6px 10px;font-weight:600}
)";

std::string cell(const std::string& s, bool numeric = false) {
  return std::string(numeric ? "<td class=\"n\">" : "<td>") + html_escape(s) + "</td>";
}

std::string ratio(const std::optional<double>& r) {
  return r ? "×" + fmt_sig(*r) : std::string("–");
}

void environment(const ReportModel& m, std::string& h) {
  h += "<h2>Environment</h2><table>";
  if (m.micro)
    for (const auto& [key, value] : m.micro->context.items())
      if (!value.is_array() && !value.is_object())
        h += "<tr>" + cell("micro: " + key) + cell(scalar_text(value)) + "</tr>";
  if (m.macro)
    for (const auto& [name, value] : macro_environment_rows(*m.macro))
      h += "<tr>" + cell(name) + cell(value) + "</tr>";
  h += "</table>";
}

// heading false: the table is its section's only content and the section's heading names it; a
// non-empty id lets a reader (and the first-screen test) find it.
void table(const ReportTable& t, std::string& h, bool heading = true, const std::string& id = "") {
  if (heading) h += "<h3>" + html_escape(t.title) + "</h3>";
  if (!t.note.empty()) h += "<p class=\"note\">" + html_escape(t.note) + "</p>";
  h += id.empty() ? "<table><tr>" : "<table id=\"" + id + "\"><tr>";
  for (const auto& c : t.head) h += "<th>" + html_escape(c) + "</th>";
  h += "</tr>";
  for (const auto& row : t.rows) {
    h += "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) h += cell(row[c], t.numeric[c]);
    h += "</tr>";
  }
  h += "</table>";
}

// Rounds at a fixed offered rate measure latency, not throughput: their req/s is the rate asked.
bool is_open_loop(const MacroScenario& s) {
  if (s.details.contains("steps")) return false;  // a search: its own table
  if (s.details.contains("offered_rate")) return true;
  for (const auto& r : s.rounds)
    if (r.details.contains("offered_rate") || r.counts.contains("offered_rate")) return true;
  return false;
}

// Scenarios compared in one chart run the same load: the protocol and connection reuse their
// names carry (macro/scenarios/*.json name every variant so), or a fixed offered rate.
std::string workload(const MacroScenario& s) {
  const std::string& n = s.name;
  auto has = [&](const char* part) { return n.find(part) != std::string::npos; };
  if (is_open_loop(s)) return "open loop at a fixed rate: latency";
  if (has("h2-one-stream")) return "HTTP/2, one stream at a time per connection";
  if (has("-h2")) return "HTTP/2, 10 streams per connection";
  if (has("newconn")) return "HTTPS, a new connection per request";
  if (has("resume")) return "HTTPS, a resumed session per connection";
  if (has("https")) return "HTTPS keep-alive";
  return "HTTP/1.1 keep-alive";
}

// The baseline in one colour in every chart, each target in its own (svg_chart.hpp palette).
int target_color(const MacroScenario& s) {
  const std::string base = s.name.substr(s.name.rfind('/') + 1);
  static const std::pair<const char*, int> kTargets[] = {{"nginx", kBaselineColor},
                                                         {"gateway", 0},
                                                         {"ablation", 0},
                                                         {"waf", 0},
                                                         {"haproxy", 1},
                                                         {"caddy", 4},
                                                         {"h2o", 6},
                                                         {"varnish", 7},
                                                         {"direct", 3}};
  for (const auto& [prefix, color] : kTargets)
    if (base.starts_with(prefix)) return color;
  return 2;
}

constexpr const char* kColorKey =
    "Colours: grey nginx (the baseline), blue the reference gateway, orange haproxy, green "
    "caddy, purple h2o, brown Varnish, teal the backend alone.";

void workload_charts(const ReportModel& m, std::string& h) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<Bar>> charts;
  for (const auto& sc : m.scenarios) {
    const MacroScenario& s = *sc.scenario;
    if (!s.rps || s.details.contains("steps")) continue;
    const std::string w = workload(s);
    if (!charts.count(w)) order.push_back(w);
    const std::string status = s.ok() ? "" : " (" + s.status + ")";
    if (is_open_loop(s)) {
      const auto p50 = s.latency_at(50), p99 = s.latency_at(99);
      if (!p99) continue;
      charts[w].push_back({s.name, *p99,
                           "p99 " + fmt_sig(*p99) + " µs" +
                               (p50 ? ", p50 " + fmt_sig(*p50) + " µs" : "") + " at " +
                               fmt_sig(*s.rps) + " req/s" + status,
                           target_color(s)});
    } else {
      std::string text = fmt_sig(*s.rps) + " req/s";
      if (s.vs_nginx) text += ", ×" + fmt_fixed(*s.vs_nginx, 2) + " nginx";
      charts[w].push_back({s.name, *s.rps, text + status, target_color(s)});
    }
  }
  if (order.empty()) return;
  h += "<p class=\"note\">One chart per workload; " + std::string(kColorKey) + "</p>";
  for (const auto& w : order) {
    const bool latency = w.starts_with("open loop");
    h += svg_bar_chart(
        w + (latency ? " (µs, shorter is better)" : " (req/s, median over the ok rounds)"),
        charts[w]);
  }
}

void seed_section(const ReportModel& m, std::string& h) {
  h += "<h2>Seed scenarios</h2>";
  if (!m.macro) {
    h += "<p>No macro.json was given.</p>";
    return;
  }
  if (const std::string banner = smoke_banner(m); !banner.empty())
    h += "<p class=\"banner\">" + html_escape(banner) + "</p>";
  table(seed_table(m), h, false, "seed-table");
  if (const ReportTable t = cpu_by_process_table(m); !t.rows.empty()) table(t, h);
}

void macro_section(const ReportModel& m, std::string& h) {
  h += "<h2>Macro scenarios in detail</h2>";
  workload_charts(m, h);
  // Percentile curves of the lead scenarios only: eighty curves in one chart say nothing.
  std::vector<Series> latency;
  for (const ScenarioCost* sc : lead_scenarios(m)) {
    const MacroScenario& s = *sc->scenario;
    if (!s.rps || is_open_loop(s)) continue;
    Series lat{s.name, {}, target_color(s) == kBaselineColor ? kBaselineColor : -1};
    // x = 1 / (1 - p): the usual percentile axis, equal room for 90, 99, 99.9.
    for (const auto& p : s.latency)
      if (p.percentile < 100) lat.points.emplace_back(1.0 / (1.0 - p.percentile / 100.0), p.us);
    if (!lat.points.empty()) latency.push_back(std::move(lat));
  }
  if (!latency.empty()) {
    Axis x{"percentile (log scale of 1/(1−p))",
           true,
           {{2, "50%"}, {10, "90%"}, {100, "99%"}, {1000, "99.9%"}, {10000, "99.99%"}}};
    h += svg_line_chart("Latency by percentile", latency, x, Axis{"latency (µs)", false, {}});
  }
  for (const auto& t : macro_tables(m)) table(t, h);

  h += "<h3>Per-second throughput</h3><div class=\"charts\">";
  bool any_series = false;
  for (const auto& sc : m.scenarios) {
    const auto series = per_second_series(*sc.scenario);
    if (series.empty()) continue;
    any_series = true;
    h += svg_line_chart(sc.scenario->name + " — req/s per second", series,
                        Axis{"time (s)", false, {}}, Axis{"req/s", false, {}}, kSmallChart);
  }
  h += "</div>";
  if (!any_series)
    h += "<p class=\"note\">No per-second series in macro.json (field <code>per_second</code>, "
         "written for gatebench-load runs).</p>";
}

void workload_section(const ReportModel& m, std::string& h) {
  const auto tables = workload_tables(m);
  if (tables.empty()) return;
  h += "<h2>Targets per workload</h2>";
  for (std::size_t i = 0; i < tables.size(); ++i)
    table(tables[i], h, true, "workload-" + m.workloads[i].workload);
}

void feature_section(const ReportModel& m, std::string& h) {
  const ReportTable features = ablation_table(m);
  const auto tables = attribution_tables(m);
  if (features.rows.empty() && tables.empty()) return;
  h += "<h2>What each feature costs</h2>";
  if (!features.rows.empty()) {
    const AblationBars bars = ablation_bars(m);
    if (!bars.bars.empty())
      h += svg_bar_chart(
          bars.instructions
              ? "What each feature costs: instructions per request over the default host"
              : "What each feature costs: CPU µs per request over the default host (time)",
          bars.bars);
    table(features, h);
  }
  for (const auto& t : tables) table(t, h);
}

void micro_summary(const ReportModel& m, std::string& h) {
  const ReportTable t = micro_summary_table(m);
  if (t.rows.empty()) return;
  h += "<h2>Micro summary</h2>";
  table(t, h, false, "micro-summary");
}

void micro_section(const ReportModel& m, std::string& h) {
  h += "<h2>Micro benchmarks in detail</h2><p class=\"note\">Medians over the repetitions; time "
       "per op is "
       "per item when the benchmark counts items, else per iteration (CPU time). Charts: one per "
       "hotpath/case, every implementation measured in the same run.</p>";
  // Group by hotpath/case, keeping suite order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const MicroRow*>> groups;
  for (const auto& r : m.micro_rows) {
    if (r.ns_per_op <= 0) continue;
    const std::string key = r.parts.hotpath + "/" + r.parts.case_name;
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  for (const auto& key : order) {
    const auto& rows = groups[key];
    double lo = rows[0]->ns_per_op, hi = lo;
    std::vector<Bar> bars;
    for (const MicroRow* r : rows) {
      lo = std::min(lo, r->ns_per_op);
      hi = std::max(hi, r->ns_per_op);
      const int color = r->parts.impl == "gatecore" ? 0 : r->parts.impl == "limit" ? 4 : 1;
      bars.push_back({r->parts.impl.empty() ? r->bench->name : r->parts.impl, r->ns_per_op,
                      fmt_time_ns(r->ns_per_op) +
                          (r->vs_gatecore ? "  ×" + fmt_sig(*r->vs_gatecore) + " gatecore" : ""),
                      color});
    }
    const bool log = hi / lo > 20;
    h += svg_bar_chart(key + " — time per op" + (log ? " (log scale)" : ""), bars, log);
  }
  h += "<table><tr><th>benchmark</th><th>time per op</th><th>items/s</th><th>reps</th><th>cv</th>"
       "<th>×gatecore</th><th>×limit</th></tr>";
  for (const auto& r : m.micro_rows) {
    const auto& b = *r.bench;
    if (!b.error.empty() || r.repetitions == 0) {
      h += "<tr>" + cell(b.name) + "<td colspan=\"6\">" +
           html_escape(b.error.empty() ? "no samples" : b.error) + "</td></tr>";
      continue;
    }
    const std::string naive = slower_than_naive_note(r.slower_than_naive);
    h += "<tr><td><code>" + html_escape(b.name) + "</code>" +
         (naive.empty() ? "" : " <strong>" + html_escape(naive) + "</strong>") + "</td>" +
         cell(fmt_time_ns(r.ns_per_op), true) +
         cell(r.items_per_second ? fmt_rate(*r.items_per_second) : "–", true) +
         cell(std::to_string(r.repetitions), true) + cell(fmt_percent(r.cv, false), true) +
         cell(ratio(r.vs_gatecore), true) + cell(ratio(r.vs_limit), true) + "</tr>";
  }
  h += "</table>";
}

void instructions_section(const ReportModel& m, std::string& h) {
  h += "<h2>Instructions per iteration (callgrind)</h2><table><tr><th>benchmark</th>"
       "<th>instructions</th><th>note</th></tr>";
  for (const auto& c : m.instructions->benchmarks)
    h += "<tr><td><code>" + html_escape(c.name) + "</code></td>" +
         cell(c.error.empty() ? fmt_sig(c.per_iteration, 4) : "–", true) + cell(c.error) + "</tr>";
  h += "</table>";
}

}  // namespace

std::string report_html(const ReportModel& m) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<link rel=\"icon\" href=\"data:,\"><title>gatebench report</title><style>";
  h += kStyle;
  h += "</style></head><body><h1>gatebench report</h1>";
  // What a reader came for first, the details after, the environment last (as report.md).
  seed_section(m, h);
  workload_section(m, h);
  feature_section(m, h);
  if (m.micro) micro_summary(m, h);
  if (m.macro) macro_section(m, h);
  if (m.micro) micro_section(m, h);
  if (m.instructions) instructions_section(m, h);
  environment(m, h);
  h += "<p class=\"note\">" + std::string("gatebench ") + kGatebenchVersion +
       " · schema of the data: report.json (" + kReportSchema + ")</p></body></html>\n";
  return h;
}

}  // namespace gatebench::tools
