// The report's tables per workload (issue 38 item 6): a gatebench.macro/2 file with two targets
// on two workloads, as the driver writes it (`target`, `workload`, an image under test), gives
// two tables with a row per target, the baseline's first, through the model, report.md,
// report.html and report.json; a scenario that is no target on a workload is in neither.
#include <gtest/gtest.h>

#include "tools/src/report/report_model.hpp"
#include "tools/src/report/report_tables.hpp"
#include "tools/src/report/report_writers.hpp"

namespace gatebench::tools {
namespace {

using nlohmann::json;

json interval(double median, double lo, double hi) {
  return {{"median", median}, {"lo", lo}, {"hi", hi}, {"n", 5}, {"level", 0.9375}};
}

json scenario(const std::string& name, const std::string& target, const std::string& workload,
              const std::string& baseline, double rps, double vs, json vs_interval) {
  json s = {{"name", name},
            {"status", "ok"},
            {"reason", ""},
            {"baseline", baseline},
            {"rps", rps},
            {"rps_per_gateway_cpu", rps / 2},
            {"latency_us", {{"p50", 200.0}, {"p90", 400.0}, {"p99", 900.0}}},
            {"cpu_percent", 180.0},
            {"peak_mb", 12.5},
            {"vs_nginx", vs},
            {"intervals", {{"vs_nginx", std::move(vs_interval)}}},
            {"errors", 0},
            {"rounds_planned", 5},
            {"rounds_ok", 5},
            {"rounds", json::array()}};
  if (!target.empty()) s["target"] = target;
  if (!workload.empty()) s["workload"] = workload;
  return s;
}

json two_targets_doc() {
  json mygw_tls = scenario("mygw-https-keepalive", "mygw", "https-keepalive",
                           "nginx-https-keepalive", 8000, 0.8, interval(0.8, 0.75, 0.82));
  mygw_tls["images"] = {
      {"target",
       {{"image", "localhost/mygw:1"}, {"id", "3f1c0ffee"}, {"digest", "sha256:abc123"}}}};
  // In the driver's order (by workload order, then name): the gateway's row comes before the
  // baseline's in the plain workload, so the table must put nginx first itself.
  return {{"schema", "gatebench.macro/2"},
          {"env", json::object()},
          {"run", json::object()},
          {"scenarios",
           {scenario("mygw-plain", "mygw", "plain", "nginx-baseline", 9000, 0.5,
                     interval(0.5, 0.48, 0.51)),
            scenario("nginx-baseline", "nginx", "plain", "nginx-baseline", 18000, 1.0,
                     interval(1, 1, 1)),
            scenario("ablation-none", "", "", "gateway-default", 17000, 0.95,
                     interval(0.95, 0.9, 0.97)),
            scenario("nginx-https-keepalive", "nginx", "https-keepalive", "nginx-https-keepalive",
                     10000, 1.0, interval(1, 1, 1)),
            mygw_tls}}};
}

struct Inputs {
  ResultSet macro = parse_result_set(two_targets_doc(), "macro.json");
  ReportModel model() const { return build_report_model(nullptr, &*macro.macro, nullptr, {}); }
};

TEST(ReportWorkloads, TwoTargetsOnTwoWorkloadsGiveTwoTables) {
  const Inputs in;
  const ReportModel m = in.model();
  ASSERT_EQ(m.workloads.size(), 2u);
  EXPECT_EQ(m.workloads[0].workload, "plain");
  ASSERT_EQ(m.workloads[0].rows.size(), 2u);
  EXPECT_EQ(m.workloads[0].rows[0].scenario->name, "nginx-baseline");  // the baseline first
  EXPECT_EQ(m.workloads[0].rows[1].target, "mygw");
  EXPECT_EQ(m.workloads[0].baselines, std::vector<std::string>{"nginx-baseline"});
  EXPECT_EQ(m.workloads[1].workload, "https-keepalive");
  ASSERT_EQ(m.workloads[1].rows.size(), 2u);
  EXPECT_EQ(m.workloads[1].rows[0].target, "nginx");
  EXPECT_EQ(m.workloads[1].rows[1].scenario->name, "mygw-https-keepalive");

  const auto tables = workload_tables(m);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].title, "Workload plain");
  ASSERT_EQ(tables[0].rows.size(), 2u);
  // target, scenario, req/s, per vCPU, p50, p90, p99, CPU %, peak MB, vs nginx, errors
  EXPECT_EQ(tables[0].rows[1],
            (std::vector<std::string>{"mygw", "mygw-plain", "9,000", "4,500", "200 µs", "400 µs",
                                      "900 µs", "180%", "12.5", "0.50 [0.48, 0.51]", "0"}));
  EXPECT_EQ(tables[0].head.size(), 11u);  // no image in this workload: no image column
  ASSERT_EQ(tables[1].head.size(), 12u);
  EXPECT_EQ(tables[1].head.back(), "image");
  EXPECT_EQ(tables[1].rows[0].back(), "–");
  EXPECT_EQ(tables[1].rows[1][9], "0.80 [0.75, 0.82]");
  EXPECT_EQ(tables[1].rows[1].back(), "target: localhost/mygw:1 sha256:abc123");
}

TEST(ReportWorkloads, MarkdownHtmlAndJsonShowTheSameRows) {
  const Inputs in;
  const ReportModel m = in.model();
  const std::string md = report_markdown(m);
  const auto plain = md.find("### Workload plain");
  const auto tls = md.find("### Workload https-keepalive");
  ASSERT_NE(plain, std::string::npos) << md;
  ASSERT_NE(tls, std::string::npos) << md;
  EXPECT_LT(md.find("## Seed scenarios"), md.find("## Targets per workload"));
  const std::string plain_md = md.substr(plain, tls - plain);
  EXPECT_LT(plain_md.find("| nginx | nginx-baseline |"), plain_md.find("| mygw | mygw-plain |"));
  EXPECT_NE(plain_md.find("| 0.50 [0.48, 0.51] |"), std::string::npos) << plain_md;
  EXPECT_EQ(plain_md.find("ablation-none"), std::string::npos) << plain_md;
  EXPECT_NE(md.find("| target: localhost/mygw:1 sha256:abc123 |"), std::string::npos) << md;

  const std::string html = report_html(m);
  EXPECT_NE(html.find("<h2>Targets per workload</h2>"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"workload-plain\">"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"workload-https-keepalive\">"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">0.80 [0.75, 0.82]</td>"), std::string::npos);

  const json j = report_json(m);
  ASSERT_EQ(j["workloads"].size(), 2u);
  const json& row = j["workloads"][0]["rows"][1];
  EXPECT_EQ(row["target"], "mygw");
  EXPECT_EQ(row["scenario"], "mygw-plain");
  EXPECT_EQ(row["vs_nginx"], 0.5);
  EXPECT_EQ(row["vs_nginx_interval"]["lo"], 0.48);
  EXPECT_EQ(row["p99_us"], 900.0);
  EXPECT_EQ(j["workloads"][1]["rows"][1]["images"]["target"]["digest"], "sha256:abc123");
  EXPECT_EQ(j["workloads"][0]["baselines"], json({"nginx-baseline"}));
}

// A macro.json written before the driver named targets and workloads has no such tables.
TEST(ReportWorkloads, NoTablesWithoutTargetAndWorkload) {
  json doc = two_targets_doc();
  for (auto& s : doc["scenarios"]) {
    s.erase("target");
    s.erase("workload");
  }
  const ResultSet set = parse_result_set(doc, "macro.json");
  const ReportModel m = build_report_model(nullptr, &*set.macro, nullptr, {});
  EXPECT_TRUE(m.workloads.empty());
  EXPECT_EQ(report_markdown(m).find("Targets per workload"), std::string::npos);
  EXPECT_EQ(report_json(m)["workloads"], json::array());
}

// Issue 38 item 3: the environment names the programs' versions (macro.json env.versions) one a
// row and each image under test once, with the scenarios that ran it, in report.md and
// report.html alike.
TEST(ReportWorkloads, EnvironmentListsVersionsAndImages) {
  json doc = two_targets_doc();
  doc["env"] = {{"runtime", "podman"},
                {"versions", {{"nginx", "nginx version: nginx/1.22.1"}, {"wrk", "wrk 4.1.0"}}}};
  json second = doc["scenarios"][4];
  second["name"] = "mygw-https-newconn";
  doc["scenarios"].push_back(second);
  const ResultSet macro = parse_result_set(doc, "macro.json");
  const ReportModel m = build_report_model(nullptr, &*macro.macro, nullptr, {});
  const auto rows = macro_environment_rows(*macro.macro);
  using Row = std::pair<std::string, std::string>;
  // The env as macro.json's type holds it: what the file left out makes no row, the pinning and
  // the dirty flag the driver always writes read as unpinned and clean.
  EXPECT_EQ(rows,
            (std::vector<Row>{{"macro: dirty", "false"},
                              {"macro: pinning", R"({"backend":null,"gateway":null,"load":null})"},
                              {"macro: runtime", "podman"},
                              {"macro: version of nginx", "nginx version: nginx/1.22.1"},
                              {"macro: version of wrk", "wrk 4.1.0"},
                              {"macro: image (mygw-https-keepalive, mygw-https-newconn)",
                               "target: localhost/mygw:1 sha256:abc123"}}));
  const std::string md = report_markdown(m);
  const std::string env = md.substr(md.find("## Environment"));
  EXPECT_NE(env.find("| macro: version of nginx | nginx version: nginx/1.22.1 |"),
            std::string::npos)
      << env;
  EXPECT_NE(env.find("| macro: image (mygw-https-keepalive, mygw-https-newconn) | target: "
                     "localhost/mygw:1 sha256:abc123 |"),
            std::string::npos)
      << env;
  const std::string html = report_html(m);
  EXPECT_NE(html.find("<td>macro: version of wrk</td><td>wrk 4.1.0</td>"), std::string::npos);
}

}  // namespace
}  // namespace gatebench::tools
