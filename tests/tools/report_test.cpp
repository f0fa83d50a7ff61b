// `gatebench report` from fixed inputs (data/report_micro.json: a real token run;
// data/report_macro.json: synthetic, make_report_fixtures.py) against golden files, the model's
// ratios and cost attribution, and the HTML in headless Chromium.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <filesystem>
#include <fstream>

#include "tool_test_support.hpp"
#include "tools/src/bad_input.hpp"
#include "tools/src/json_file.hpp"
#include "tools/src/process.hpp"
#include "tools/src/report_model.hpp"
#include "tools/src/report_writers.hpp"

namespace gatebench::tools {
namespace {

struct Inputs {
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
  const Inputs in;
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

TEST(ReportModel, CostAttribution) {
  const Inputs in;
  const auto m = in.model();
  const Attribution* queue = nullptr;
  for (const auto& a : m.attribution)
    if (a.rule.scenario == "gateway-queue") queue = &a;
  ASSERT_NE(queue, nullptr);
  // 191% / 74,000 req/s - 190% / 78,000 req/s, in µs of CPU per request.
  EXPECT_NEAR(*queue->difference_us, 1.91 / 74000 * 1e6 - 1.90 / 78000 * 1e6, 1e-9);
  ASSERT_EQ(queue->micro.size(), 1u);
  EXPECT_EQ(queue->micro[0].first, "token/gatecore/admission");
  EXPECT_NEAR(*queue->explained_share, queue->micro[0].second / 1000 / *queue->difference_us,
              1e-12);
  for (const auto& a : m.attribution)
    if (a.rule.scenario == "gateway-https-newconn") {
      EXPECT_FALSE(a.difference_us);  // skipped in the fixture
    }
}

TEST(ReportModel, AttributionRulesFileErrorsNameTheField) {
  const auto dir = test::scratch_dir("attribution");
  const auto file = (dir / "rules.json").string();
  std::ofstream(file) << R"([{"label": "x", "scenario": "a", "baseline": "b", "micro": ["("]}])";
  try {
    load_attribution_rules(file);
    FAIL() << "expected BadInput";
  } catch (const BadInput& e) {
    EXPECT_EQ(std::string(e.what()), file + ":/0/micro/0: not a valid regex (missing ): ()");
  }
  std::filesystem::remove_all(dir);
}

TEST(ReportWriters, MarkdownMatchesGolden) {
  const Inputs in;
  EXPECT_EQ(report_markdown(in.model()), read_text_file(test::data("report_golden.md")));
}

TEST(ReportWriters, JsonMatchesGoldenAndRoundTripsThroughCompare) {
  const Inputs in;
  const auto j = report_json(in.model());
  EXPECT_EQ(j, load_json_file(test::data("report_golden.json")));
  const auto set = parse_result_set(j, "report.json");
  ASSERT_TRUE(set.micro && set.macro);
  EXPECT_FALSE(set.instructions);
  EXPECT_EQ(set.micro->find("token/gatecore/pass")->cpu_ns,
            in.micro.micro->find("token/gatecore/pass")->cpu_ns);
  EXPECT_EQ(set.macro->scenarios.size(), in.macro.macro->scenarios.size());
}

TEST(ReportWriters, HtmlIsSelfContained) {
  const Inputs in;
  const std::string html = report_html(in.model());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Every src/href must be inline: nothing may be fetched.
  const RE2 ref(R"re((?:src|href)\s*=\s*"([^"]*)")re");
  re2::StringPiece rest(html);
  std::string url;
  while (RE2::FindAndConsume(&rest, ref, &url)) EXPECT_EQ(url.rfind("data:", 0), 0u) << url;
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // Bars for req/s and vs nginx, latency and per-second curves, two micro groups.
  std::size_t svgs = 0;
  for (std::size_t p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1))
    ++svgs;
  EXPECT_EQ(svgs, 6u);
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

// Opens report.html in headless Chromium and fails on any console message (script errors,
// failed loads reported to the console) or a DOM without the report.
TEST(ReportHtml, RendersInHeadlessChromiumWithoutConsoleErrors) {
  const std::string chromium = find_on_path("chromium");
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed (apt-get install chromium)";
  const auto dir = test::scratch_dir("report-chromium");
  const Inputs in;
  write_text_file((dir / "report.html").string(), report_html(in.model()));
  const auto profile = dir / "profile";
  std::filesystem::create_directories(profile);
  const auto dom = (dir / "dom.html").string(), log = (dir / "chromium.log").string();
  const int rc = run_process(
      {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
       "--disable-component-update", "--no-first-run", "--user-data-dir=" + profile.string(),
       "--enable-logging=stderr", "--v=0", "--dump-dom",
       "file://" + (dir / "report.html").string()},
      dom, log);
  ASSERT_EQ(rc, 0) << read_text_file(log);
  const std::string rendered = read_text_file(dom);
  EXPECT_NE(rendered.find("Cost attribution"), std::string::npos);
  EXPECT_NE(rendered.find("<polyline"), std::string::npos);
  const std::string messages = read_text_file(log);
  EXPECT_EQ(messages.find(":CONSOLE"), std::string::npos) << messages;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::tools
