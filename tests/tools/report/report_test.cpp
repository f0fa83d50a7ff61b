// `gatebench report` from fixed inputs (data/report_micro.json: a real token run;
// data/report_macro.json: synthetic gatebench.macro/2, make_report_fixtures.py) against golden
// files, the model's ratios and cost attribution, the macro tables, and the HTML in headless
// Chromium.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <filesystem>
#include <fstream>

#include "macro/common/child_process.hpp"
#include "macro/common/usage_error.hpp"
#include "tests/tools/tool_test_support.hpp"
#include "tools/src/compare/compare.hpp"
#include "tools/src/report/report_model.hpp"
#include "tools/src/report/report_tables.hpp"
#include "tools/src/report/report_writers.hpp"
#include "tools/src/report/svg_chart.hpp"
#include "tools/src/results/format.hpp"
#include "tools/src/results/json_file.hpp"
#include "tools/src/results/macro_instructions.hpp"

namespace gatebench::tools {
namespace {

struct ReportInputs {
  ResultSet micro = load_result_set(test::data("report_micro.json"));
  ResultSet macro = load_result_set(test::data("report_macro.json"));
  ReportModel model() const {
    ReportModel m =
        build_report_model(&*micro.micro, &*macro.macro, nullptr, default_attribution_rules());
    m.micro_file = "report_micro.json";
    m.macro_file = "report_macro.json";
    return m;
  }
};

const MicroRow& row(const ReportModel& m, const std::string& name) {
  for (const auto& r : m.micro_rows)
    if (r.bench->name == name) return r;
  throw std::runtime_error("no row " + name);
}

TEST(ReportModel, SplitsBenchmarkNames) {
  auto n = split_benchmark_name("rules/gatecore/protected_30/get");
  EXPECT_EQ(n.hotpath, "rules");
  EXPECT_EQ(n.impl, "gatecore");
  EXPECT_EQ(n.case_name, "protected_30/get");
  n = split_benchmark_name("tls/handshake_full");
  EXPECT_EQ(n.impl, "");
  EXPECT_EQ(n.case_name, "handshake_full");
}

TEST(ReportModel, RatiosWithinHotpathAndCase) {
  const ReportInputs in;
  const auto m = in.model();
  const auto& gc = row(m, "token/gatecore/admission");
  const auto& peer = row(m, "token/hmac_oneshot/admission");
  const auto& limit = row(m, "token/limit/admission");
  EXPECT_DOUBLE_EQ(*gc.vs_gatecore, 1.0);
  EXPECT_DOUBLE_EQ(*peer.vs_gatecore, peer.ns_per_op / gc.ns_per_op);
  EXPECT_DOUBLE_EQ(*gc.vs_limit, gc.ns_per_op / limit.ns_per_op);
  EXPECT_EQ(gc.limit_name, "token/limit/admission");
  EXPECT_FALSE(limit.vs_limit);
  // items/s is counted, so time per op is per item.
  EXPECT_NEAR(gc.ns_per_op, 1e9 / *gc.items_per_second, 1e-9);
  // Grouped: gatecore first and the limit last within token/admission.
  EXPECT_EQ(m.micro_rows[0].bench->name, "token/gatecore/admission");
  EXPECT_EQ(m.micro_rows[3].bench->name, "token/limit/admission");
}

const Attribution& attribution(const ReportModel& m, const std::string& scenario) {
  for (const auto& a : m.attribution)
    if (a.rule.scenario == scenario) return a;
  throw std::runtime_error("no attribution for " + scenario);
}

TEST(ReportModel, CostAttributionUsesTheMediansAndTheirIntervals) {
  const ReportInputs in;
  const auto m = in.model();
  const MacroRun& run = *in.macro.macro;
  const auto& pass = attribution(m, "gateway-challenge-pass");
  const double scenario_us = *run.find("gateway-challenge-pass")->cpu_us_per_request.target;
  const double default_us = *run.find("gateway-default")->cpu_us_per_request.target;
  EXPECT_NEAR(*pass.difference_us, scenario_us - default_us, 1e-9);
  EXPECT_EQ(pass.resolved, true);  // [26.95, 27.89] against [23.76, 24.41]
  ASSERT_EQ(pass.micro.size(), 1u);
  EXPECT_EQ(pass.micro[0].first, "token/gatecore/pass");
  EXPECT_NEAR(*pass.explained_share, pass.micro[0].second / 1000 / *pass.difference_us, 1e-12);
  EXPECT_NE(explained_text(pass), "not resolved");
  // queue's interval [23.72, 24.47] overlaps default's: no share, "not resolved".
  const auto& queue = attribution(m, "gateway-queue");
  EXPECT_EQ(queue.resolved, false);
  EXPECT_FALSE(queue.explained_share);
  EXPECT_EQ(explained_text(queue), "not resolved");
  EXPECT_NE(queue.note.find("not resolved"), std::string::npos);
  // A failed scenario has no difference.
  const auto& keepalive = attribution(m, "gateway-https-keepalive");
  EXPECT_FALSE(keepalive.difference_us);
  EXPECT_EQ(keepalive.note, "scenario not ok or without CPU%/req/s");
}

TEST(ReportModel, V1MacroIsOneRoundPerScenario) {
  const auto set = load_result_set(test::data("macro_head.json"));
  const auto m = build_report_model(nullptr, &*set.macro, nullptr, default_attribution_rules());
  ASSERT_EQ(m.scenarios.size(), 5u);
  // 190% / 72,000 req/s in µs of CPU per request; no interval from one round.
  EXPECT_NEAR(*m.scenarios[1].cpu_us_per_request, 1.90 / 72000 * 1e6, 1e-9);
  EXPECT_EQ(m.scenarios[1].scenario->rounds.size(), 1u);
  const auto& protected_ = attribution(m, "gateway-protected");
  EXPECT_FALSE(protected_.resolved);
  EXPECT_NEAR(*protected_.difference_us, 1.90 / 58500 * 1e6 - 1.90 / 72000 * 1e6, 1e-9);
  // p99 / nginx p99 of the same file, which /1 does not carry.
  EXPECT_NEAR(*m.scenarios[1].scenario->p99_vs_nginx, 2050.0 / 1700.0, 1e-12);
  const std::string md = report_markdown(m);
  EXPECT_NE(md.find("| gateway-https-newconn | all | skipped | no TLS certificate |"),
            std::string::npos);
}

TEST(ReportModel, AttributionRulesFileErrorsNameTheField) {
  const auto dir = test::scratch_dir("attribution");
  const auto file = (dir / "rules.json").string();
  std::ofstream(file) << R"([{"label": "x", "scenario": "a", "baseline": "b", "micro": ["("]}])";
  try {
    load_attribution_rules(file);
    FAIL() << "expected common::UsageError";
  } catch (const common::UsageError& e) {
    EXPECT_EQ(std::string(e.what()), file + ": /0/micro/0: not a valid regex (missing ): ()");
  }
  std::filesystem::remove_all(dir);
}

TEST(ReportWriters, MarkdownMatchesGolden) {
  const ReportInputs in;
  EXPECT_EQ(report_markdown(in.model()), read_text_file(test::data("report_golden.md")));
}

TEST(ReportWriters, MarkdownCellsFromTheInputsCannotBreakATable) {
  ReportInputs in;
  in.micro.micro->benchmarks[0].name = "token/gatecore/a|b";
  in.macro.macro->env.kernel = "Linux | `6.1`\nnext";
  const std::string md = report_markdown(in.model());
  EXPECT_NE(md.find("`token/gatecore/a\\|b`"), std::string::npos);
  EXPECT_NE(md.find("| macro: kernel | Linux \\| \\`6.1\\` next |"), std::string::npos);
  EXPECT_EQ(md.find("a|b"), std::string::npos);
}

TEST(ReportWriters, JsonMatchesGoldenAndRoundTripsThroughCompare) {
  const ReportInputs in;
  const auto j = report_json(in.model());
  EXPECT_EQ(j, load_json_file(test::data("report_golden.json")));
  const auto set = parse_result_set(j, "report.json");
  ASSERT_TRUE(set.micro && set.macro);
  EXPECT_FALSE(set.instructions);
  EXPECT_EQ(set.micro->find("token/gatecore/pass")->cpu_ns,
            in.micro.micro->find("token/gatecore/pass")->cpu_ns);
  EXPECT_EQ(set.macro->scenarios.size(), in.macro.macro->scenarios.size());
  // report.json's macro part is macro.json as its one writer writes it, and reads back so.
  EXPECT_EQ(common::to_json(set.macro->file()), j["macro"]);
  // report.json keeps the rounds: compare of two reports runs the per-round test.
  const MacroScenario* s = set.macro->find("gateway-queue");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->rounds.size(), 5u);
  const auto c = compare_result_sets(set, set, {});
  EXPECT_FALSE(c.has_regression());
  EXPECT_EQ(j["cost_attribution"][1]["resolved"], false);
}

TEST(ReportWriters, HtmlIsSelfContained) {
  const ReportInputs in;
  const std::string html = report_html(in.model());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Every src/href must be inline: nothing may be fetched.
  const RE2 ref(R"re((?:src|href)\s*=\s*"([^"]*)")re");
  re2::StringPiece rest(html);
  std::string url;
  while (RE2::FindAndConsume(&rest, ref, &url)) EXPECT_EQ(url.rfind("data:", 0), 0u) << url;
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // Three workload charts (HTTP/1.1 keep-alive, HTTPS keep-alive, the open-loop latency), the
  // latency curves, one per-second chart for each of the 9 scenarios with ok rounds, two micro
  // groups, and the feature-cost bars (queue and challenge-pass against gateway-default).
  std::size_t svgs = 0;
  for (std::size_t p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1))
    ++svgs;
  EXPECT_EQ(svgs, 16u);
}

// A failed scenario is reported with its reason, the failed round with its own, and what its ok
// rounds measured; the tables of the request mix, the search steps and the open-loop rounds.
TEST(ReportWriters, MacroTablesShowStatusCountsStepsAndOpenLoop) {
  const ReportInputs in;
  const std::string md = report_markdown(in.model());
  for (const char* line :
       {"| gateway-https-keepalive | all | failed | round 3: error rate 0.40% above "
        "max_error_rate 0.10% |",
        "| gateway-https-keepalive | 3 (position 1) | failed | error rate 0.40% above "
        "max_error_rate 0.10% |",
        "| gateway-https-newconn | all | skipped | prepare: openssl not found |",
        "| gateway-https-keepalive | failed | 4/5 |", "| waf-mix | traversal | attack | ",
        "| waf-mix | post | benign |  |  | ",
        "| max-throughput/gateway-default | 0 | closed loop |",
        "| latency-at-rate/gateway-default | 4 | failed | 10,000 | – | 370 | achieved rate 9630/s "
        "is below 99% of 10000/s |"})
    EXPECT_NE(md.find(line), std::string::npos) << line;
  // Attacks blocked / missed, benign served / wrongly blocked, summed over the five rounds.
  const RE2 total(R"(\| waf-mix \| all \|  \| ([\d,]+) \| 1 \| ([\d,]+) \| 2 \|)");
  EXPECT_TRUE(RE2::PartialMatch(md, total)) << md;
  EXPECT_NE(md.find("0.78 ["), std::string::npos);  // default's vs nginx with its interval
  EXPECT_EQ(md.find("smoke figures"), std::string::npos);
}

// The shipped corpus has 264 templates (attack-*, benign-*): only those with unexpected answers
// are listed, then the totals, and attack-* templates count as attacks.
TEST(ReportWriters, ALargeMixListsTheUnexpectedTemplatesThenTheTotals) {
  ReportInputs in;
  for (MacroScenario& s : in.macro.macro->scenarios) {
    if (s.name != "waf-mix") continue;
    s.counts = nlohmann::json::object();
    for (int i = 0; i < 7; ++i) {
      const std::string n = std::to_string(i);
      s.counts["attack-" + n + ".as_expected"] = 10;
      s.counts["attack-" + n + ".unexpected"] = i == 3 ? 1 : 0;
      s.counts["benign-" + n + ".as_expected"] = 20;
      s.counts["benign-" + n + ".unexpected"] = 0;
    }
  }
  const std::string md = report_markdown(in.model());
  EXPECT_NE(md.find("| waf-mix | attack-3 | attack | 10 | 1 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| waf-mix | attack-2 |"), std::string::npos);
  EXPECT_EQ(md.find("| waf-mix | benign-0 |"), std::string::npos);
  EXPECT_NE(md.find("| waf-mix | all 14 templates |  | 70 | 1 | 140 | 0 |"), std::string::npos)
      << md;
}

TEST(ReportWriters, QuickRunCarriesTheSmokeBanner) {
  ReportInputs in;
  in.macro.macro->run.quick = true;
  const auto m = in.model();
  EXPECT_NE(report_markdown(m).find("> **quick run: smoke figures, not results**"),
            std::string::npos);
  EXPECT_NE(report_html(m).find("<p class=\"banner\">quick run: smoke figures, not results</p>"),
            std::string::npos);
}

// Positions of `parts` in `text`, each searched after the previous one: npos once one is missing
// or out of order.
std::size_t in_order(const std::string& text, const std::vector<std::string>& parts) {
  std::size_t at = 0;
  for (const auto& p : parts) {
    at = text.find(p, at);
    if (at == std::string::npos) return at;
    at += p.size();
  }
  return at;
}

// The reader's first questions first: the seed table and where the CPU went, what each feature
// costs, the micro summary; every table after them, the environment last.
TEST(ReportWriters, MarkdownLeadsWithTheSeedTableAndEndsWithTheEnvironment) {
  const ReportInputs in;
  const std::string md = report_markdown(in.model());
  EXPECT_NE(in_order(md, {"# gatebench report\n\n## Seed scenarios\n", "| scenario | req/s |",
                          "| nginx-baseline |", "| gateway-default |", "### CPU by process",
                          "## What each feature costs", "## Micro summary",
                          "## Macro scenarios, every table", "### Throughput and latency",
                          "## Micro benchmarks, every row", "## Environment"}),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("## ", md.find("## Environment") + 1), std::string::npos);
  // The seed table holds the seed scenarios only, vs nginx with its interval.
  const std::string seed = md.substr(0, md.find("### CPU by process"));
  EXPECT_EQ(seed.find("waf-mix"), std::string::npos) << seed;
  EXPECT_NE(seed.find("| gateway-https-keepalive (failed) |"), std::string::npos) << seed;
  EXPECT_NE(seed.find(" | 0.78 ["), std::string::npos) << seed;
}

TEST(ReportWriters, HtmlLeadsWithTheSeedTableAndEndsWithTheEnvironment) {
  const ReportInputs in;
  const std::string html = report_html(in.model());
  std::vector<std::string> h2;
  for (std::size_t p = html.find("<h2>"); p != std::string::npos; p = html.find("<h2>", p + 1))
    h2.push_back(html.substr(p + 4, html.find("</h2>", p) - p - 4));
  const std::vector<std::string> expected = {"Seed scenarios",
                                             "What each feature costs",
                                             "Micro summary",
                                             "Macro scenarios in detail",
                                             "Micro benchmarks in detail",
                                             "Environment"};
  EXPECT_EQ(h2, expected);
  // Nothing between the heading and the seed table but its note.
  EXPECT_NE(in_order(html, {"<h1>gatebench report</h1><h2>Seed scenarios</h2><p class=\"note\">",
                            "</p><table id=\"seed-table\"><tr><th>scenario</th>"}),
            std::string::npos);
}

// One row per hot path and case with gatecore, its fastest peer and its limit (the token run:
// evp_mac is faster than hmac_oneshot on both cases).
TEST(ReportWriters, MicroSummaryHasGatecoreBestPeerAndLimitPerCase) {
  const ReportInputs in;
  const ReportModel m = in.model();
  const ReportTable t = micro_summary_table(m);
  ASSERT_EQ(t.rows.size(), 2u);
  for (const auto& r : t.rows) {
    const std::string name = "token/gatecore/" + r[1];
    const MicroRow& g = row(m, name);
    const MicroRow& evp = row(m, "token/evp_mac/" + r[1]);
    const MicroRow& oneshot = row(m, "token/hmac_oneshot/" + r[1]);
    ASSERT_LT(evp.ns_per_op, oneshot.ns_per_op) << r[1];
    EXPECT_EQ(r[0], "token");
    EXPECT_EQ(r[3].rfind("evp_mac ", 0), 0u) << r[3];
    EXPECT_EQ(r[4].rfind("limit ", 0), 0u) << r[4];
    EXPECT_EQ(r[5], "×" + fmt_sig(evp.ns_per_op / g.ns_per_op));
    EXPECT_EQ(r[6], "×" + fmt_sig(*g.vs_limit));
  }
}

// One chart per workload: the open-loop round drawn as latency in a chart of its own, the HTTPS
// scenario apart from the HTTP/1.1 ones, nginx in the baseline's grey.
TEST(ReportHtml, OneChartPerWorkloadBaselineInGreyOpenLoopAsLatency) {
  const ReportInputs in;
  const std::string html = report_html(in.model());
  auto chart = [&](const std::string& title) {
    const std::size_t at = html.find("<title>" + title);
    if (at == std::string::npos) return std::string();
    return html.substr(at, html.find("</svg>", at) - at);
  };
  const std::string http = chart("HTTP/1.1 keep-alive (req/s");
  const std::string https = chart("HTTPS keep-alive (req/s");
  const std::string open = chart("open loop at a fixed rate: latency (µs");
  ASSERT_FALSE(http.empty() || https.empty() || open.empty()) << html;
  EXPECT_NE(http.find(">nginx-baseline<"), std::string::npos);
  EXPECT_EQ(http.find("latency-at-rate"), std::string::npos);
  EXPECT_EQ(http.find("gateway-https-keepalive"), std::string::npos);
  EXPECT_NE(https.find("gateway-https-keepalive"), std::string::npos);
  EXPECT_NE(open.find(">latency-at-rate/gateway-default<"), std::string::npos);
  EXPECT_NE(open.find("p99 "), std::string::npos) << open;
  // nginx-baseline's bar, the first of the HTTP/1.1 chart, is grey; the gateway's is not.
  const std::size_t nginx_bar = http.find("<rect", http.find(">nginx-baseline<"));
  EXPECT_NE(http.find(std::string("fill=\"") + palette_color(kBaselineColor) + "\"", nginx_bar),
            std::string::npos);
  EXPECT_EQ(http.find(palette_color(kBaselineColor), http.find(">gateway-default<")),
            std::string::npos);
}

// The label column is as wide as the longest label: the bar starts right of where it ends.
TEST(SvgChart, BarLabelsAreNeverCut) {
  const std::string label = "latency-at-rate/gateway-https-resume-tickets-and-more";
  const std::string svg = svg_bar_chart("t", {{label, 1, "1 req/s", 0}, {"x", 2, "2 req/s", 1}});
  const RE2 rect(R"re(<rect x="([\d.]+)")re");
  double x = 0;
  ASSERT_TRUE(RE2::PartialMatch(svg, rect, &x)) << svg;
  EXPECT_GE(x, text_width(label) + 6) << svg;
  const RE2 width(R"re(<svg[^>]* width="([\d.]+)")re");
  double w = 0;
  ASSERT_TRUE(RE2::PartialMatch(svg, width, &w));
  const std::string long_title(150, 't');
  double tw = 0;
  ASSERT_TRUE(RE2::PartialMatch(svg_bar_chart(long_title, {{"a", 1, "1", 0}}), width, &tw));
  EXPECT_GE(tw, text_width(long_title));
}

TEST(ReportCli, WritesThreeFilesAndRejectsBadInput) {
  const auto dir = test::scratch_dir("report-cli");
  EXPECT_EQ(test::run_gatebench("report " + test::data("report_micro.json") + " " +
                                test::data("report_macro.json") + " -o " + dir.string()),
            0);
  for (const char* f : {"report.json", "report.md", "report.html"})
    EXPECT_GT(std::filesystem::file_size(dir / f), 100u) << f;
  EXPECT_EQ(load_json_file((dir / "report.json").string())["schema"], "gatebench.report/1");
  // Micro only, macro only.
  EXPECT_EQ(test::run_gatebench("report " + test::data("report_micro.json") + " -o " +
                                (dir / "m").string()),
            0);
  EXPECT_EQ(test::run_gatebench("report - " + test::data("report_macro.json") + " -o " +
                                (dir / "M").string()),
            0);
  EXPECT_EQ(test::run_gatebench("report " + test::data("report_macro.json") + " -o " +
                                (dir / "x").string()),
            2);  // macro given where micro is expected
  EXPECT_EQ(test::run_gatebench("report " + test::data("report_micro.json")), 2);  // no -o
  std::filesystem::remove_all(dir);
}

// A count far outside int's range (1e30) was converted with undefined behaviour; it is refused
// like a negative count, naming the field.
TEST(ReportCli, ACountOutOfRangeIsExit2NamingTheField) {
  const auto dir = test::scratch_dir("report-count");
  nlohmann::json macro = load_json_file(test::data("report_macro.json"));
  macro["scenarios"][0]["rounds_planned"] = 1e30;
  const std::string file = (dir / "macro.json").string();
  std::ofstream(file) << macro.dump();
  const std::string err = (dir / "err.txt").string();
  EXPECT_EQ(test::run_gatebench("report - " + file + " -o " + (dir / "r").string(),
                                (dir / "out.txt").string(), err),
            2);
  const std::string text = read_text_file(err);
  EXPECT_NE(text.find("/scenarios/0/rounds_planned"), std::string::npos) << text;
  EXPECT_NE(text.find("expected an integer"), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}

// macro_real_driver.json is gatebench-macro's own output (nginx-baseline and gateway-default, 3
// rounds of 1 s; artifact lists emptied): the report and the gate read what the driver writes.
TEST(ReportRealDriver, ReportAndCompareReadTheDriversFile) {
  const auto set = load_result_set(test::data("macro_real_driver.json"));
  ASSERT_TRUE(set.macro);
  // Read and written again through the one type, the driver's file is unchanged but for what its
  // driver did not write yet (env.date and dirty, each round's harness_limit).
  nlohmann::json file = load_json_file(test::data("macro_real_driver.json"));
  file["env"]["date"] = "";
  file["env"]["dirty"] = false;
  for (auto& s : file["scenarios"])
    for (auto& r : s["rounds"]) r["harness_limit"] = nullptr;
  EXPECT_EQ(common::to_json(set.macro->file()), file);
  const MacroScenario* gw = set.macro->find("gateway-default");
  ASSERT_NE(gw, nullptr);
  EXPECT_EQ(gw->rounds.size(), 3u);
  EXPECT_EQ(gw->baseline, "nginx-baseline");
  ASSERT_TRUE(gw->cpu_us_per_request.target && gw->cpu_us_per_request.load &&
              gw->cpu_us_per_request.backend);
  ASSERT_NE(gw->interval("vs_nginx"), nullptr);
  EXPECT_DOUBLE_EQ(gw->interval("vs_nginx")->level, 0.75);
  for (const auto& r : gw->rounds) {
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(r.vs_nginx && r.p99_vs_nginx && r.cpu_us_per_request.target);
    EXPECT_FALSE(r.per_second.empty());
  }
  const auto m = build_report_model(nullptr, &*set.macro, nullptr, default_attribution_rules());
  const std::string md = report_markdown(m);
  EXPECT_NE(md.find("| gateway-default | ok | 3/3 |"), std::string::npos) << md;
  EXPECT_NE(md.find("75.0% (n = 3)"), std::string::npos) << md;
  EXPECT_EQ(md.find("Status reasons"), std::string::npos);  // every round was ok
  const std::string html = report_html(m);
  EXPECT_NE(html.find("gateway-default — req/s per second"), std::string::npos);
  // A 1 s round has one per-second entry: drawn as a point, since a line needs two.
  EXPECT_NE(html.find("<circle "), std::string::npos);
  // Compared with itself: 3 rounds are too few for a verdict, and nothing regresses.
  auto c = compare_result_sets(set, set, {});
  EXPECT_FALSE(c.has_regression());
  ASSERT_EQ(c.rows.size(), 3u);  // nginx-baseline is the baseline, not gated
  for (const auto& r : c.rows) {
    EXPECT_EQ(r.verdict, Verdict::too_few_rounds) << r.measure;
    EXPECT_EQ(r.base_n, 3u);
  }
  CompareOptions opt;
  opt.min_rounds = 3;
  c = compare_result_sets(set, set, opt);
  for (const auto& r : c.rows) EXPECT_EQ(r.verdict, Verdict::no_change) << r.measure;
}

// The "what each feature costs" chart from instructions per request (the attribution fixtures:
// ablation-iplist +660, ablation-headers +400 over gateway-default) as Chromium renders it: one
// bar per feature inside the chart's SVG, with its label and figure, and no console message.
TEST(ReportHtml, AblationChartRendersInHeadlessChromium) {
  const std::string chromium = common::find_on_path("chromium");
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed (apt-get install chromium)";
  const auto dir = test::scratch_dir("report-ablation-chromium");
  const MacroInstructionRun counted =
      load_macro_instructions(test::data("attribution_instructions.json"));
  const ResultSet micro = load_result_set(test::data("attribution_micro_instructions.json"));
  const ReportModel m = build_report_model(nullptr, nullptr, &*micro.instructions,
                                           default_attribution_rules(), nullptr, &counted);
  write_text_file((dir / "report.html").string(), report_html(m));
  const auto page = test::render_in_chromium(chromium, (dir / "report.html").string(), dir);
  ASSERT_EQ(page.exit_code, 0) << read_text_file(page.log_file);
  const std::string rendered = read_text_file(page.dom_file);
  const std::size_t chart =
      rendered.find("What each feature costs: instructions per request over the default host");
  ASSERT_NE(chart, std::string::npos) << rendered;
  const std::size_t end = rendered.find("</svg>", chart);
  ASSERT_NE(end, std::string::npos);
  const std::string svg = rendered.substr(chart, end - chart);
  std::size_t bars = 0;
  for (std::size_t at = svg.find("<rect"); at != std::string::npos; at = svg.find("<rect", at + 1))
    ++bars;
  EXPECT_GE(bars, 2u) << svg;
  EXPECT_NE(svg.find("IP list (1,000 CIDRs)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("660 instructions"), std::string::npos) << svg;
  EXPECT_NE(svg.find("security headers"), std::string::npos) << svg;
  EXPECT_NE(svg.find("400 instructions"), std::string::npos) << svg;
  const std::string messages = read_text_file(page.log_file);
  EXPECT_EQ(messages.find(":CONSOLE"), std::string::npos) << messages;
  std::filesystem::remove_all(dir);
}

// Opens report.html in headless Chromium and fails on any console message (script errors,
// failed loads reported to the console) or a DOM without the report.
TEST(ReportHtml, RendersInHeadlessChromiumWithoutConsoleErrors) {
  const std::string chromium = common::find_on_path("chromium");
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed (apt-get install chromium)";
  const auto dir = test::scratch_dir("report-chromium");
  const ReportInputs in;
  write_text_file((dir / "report.html").string(), report_html(in.model()));
  const auto page = test::render_in_chromium(chromium, (dir / "report.html").string(), dir);
  ASSERT_EQ(page.exit_code, 0) << read_text_file(page.log_file);
  const std::string rendered = read_text_file(page.dom_file);
  EXPECT_NE(rendered.find("Cost attribution"), std::string::npos);
  EXPECT_NE(rendered.find("Status reasons"), std::string::npos);
  EXPECT_NE(rendered.find("Max-throughput steps"), std::string::npos);
  EXPECT_NE(rendered.find("<polyline"), std::string::npos);
  const std::string messages = read_text_file(page.log_file);
  EXPECT_EQ(messages.find(":CONSOLE"), std::string::npos) << messages;
  std::filesystem::remove_all(dir);
}

// The first screen of report.html (a 1280 x 800 window, as a laptop opens it) shows the seed table:
// its heading and its first row lie above the fold. A copy of the report gets a script that writes
// the table's layout into the DOM Chromium dumps; a screenshot of the same screen is kept beside
// it for a person to look at.
TEST(ReportHtml, FirstScreenShowsTheSeedTableInHeadlessChromium) {
  const std::string chromium = common::find_on_path("chromium");
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed (apt-get install chromium)";
  const auto dir = test::scratch_dir("report-first-screen");
  const ReportInputs in;
  std::string html = report_html(in.model());
  const std::string probe =
      "<script>const t=document.getElementById('seed-table');"
      "const row=t.rows[1].getBoundingClientRect();"
      "document.body.setAttribute('data-seed-top',Math.round(t.getBoundingClientRect().top));"
      "document.body.setAttribute('data-first-row-bottom',Math.round(row.bottom));"
      "document.body.setAttribute('data-first-row',t.rows[1].cells[0].textContent);"
      "document.body.setAttribute('data-screen',window.innerHeight);</script>";
  html.insert(html.rfind("</body>"), probe);
  write_text_file((dir / "report.html").string(), html);
  const auto profile = dir / "profile";
  std::filesystem::create_directories(profile);
  const std::vector<std::string> common_args = {chromium,
                                                "--headless",
                                                "--no-sandbox",
                                                "--disable-gpu",
                                                "--disable-background-networking",
                                                "--disable-component-update",
                                                "--no-first-run",
                                                "--hide-scrollbars",
                                                "--window-size=1280,800",
                                                "--user-data-dir=" + profile.string()};
  auto args = common_args;
  args.insert(args.end(), {"--dump-dom", "file://" + (dir / "report.html").string()});
  ASSERT_EQ(common::run_to_exit(common::command(args, (dir / "dom.html").string(),
                                                (dir / "chromium.log").string())),
            0)
      << read_text_file((dir / "chromium.log").string());
  const std::string dom = read_text_file((dir / "dom.html").string());
  const RE2 attrs(
      R"re(data-seed-top="(-?\d+)" data-first-row-bottom="(-?\d+)" data-first-row="([^"]*)" data-screen="(\d+)")re");
  int top = -1, bottom = -1, screen = -1;
  std::string first_row;
  ASSERT_TRUE(RE2::PartialMatch(dom, attrs, &top, &bottom, &first_row, &screen))
      << dom.substr(0, 600);
  EXPECT_EQ(first_row, "nginx-baseline");
  EXPECT_GT(top, 0);
  EXPECT_LE(bottom, screen) << "the seed table's first row ends below the first screen";
  EXPECT_GT(screen, 500);  // the window less Chromium's own frame
  // The screenshot of the same first screen, for the eye (Chromium writes a PNG).
  args = common_args;
  args.insert(args.end(), {"--screenshot=" + (dir / "first-screen.png").string(),
                           "file://" + (dir / "report.html").string()});
  ASSERT_EQ(common::run_to_exit(
                common::command(args, (dir / "shot.out").string(), (dir / "shot.log").string())),
            0);
  const std::string png = read_text_file((dir / "first-screen.png").string());
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::tools
