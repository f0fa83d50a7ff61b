// report.json's one type (tools/src/results/report_file.cpp): the golden report reads and writes
// back unchanged, every part and table of a hand-made one survives the round trip, and a wrong
// member is an error naming its pointer.
#include "tools/src/results/report_file.hpp"

#include <gtest/gtest.h>

#include "macro/common/usage_error.hpp"
#include "tests/tools/tool_test_support.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

using nlohmann::json;

ReportFile read(const json& doc) {
  return report_file_from_json(common::JsonField(doc, "report.json"));
}

std::string error_of(const json& doc) {
  try {
    read(doc);
  } catch (const common::UsageError& e) {
    return e.what();
  }
  return "no error";
}

// Every part present, each with the members that are written only sometimes.
ReportFile every_part() {
  ReportFile r;
  r.generator = "gatebench 0.1.0";
  r.inputs = {"micro.json", "macro.json", "ir.json", std::nullopt};
  ReportMicro& micro = r.micro.emplace();
  micro.context = {{"date", "2026-12-07T10:00:00+00:00"}};
  micro.benchmarks.push_back({"cidr/gatecore/list_1k",
                              "cidr",
                              "gatecore",
                              "list_1k",
                              3,
                              {10.5, 11, 10.75},
                              {10, 10.5, 10.25},
                              {1e8, 0.9e8, 0.95e8},
                              {},
                              "",
                              ReportMicroFigures{{10.25, 10.75, 0.95e8, std::nullopt},
                                                 0.02,
                                                 10.25,
                                                 1.0,
                                                 std::nullopt,
                                                 "",
                                                 std::vector<std::string>{"cidr/naive/list_1k"}}});
  micro.benchmarks.push_back({"cidr/peer/list_1k",
                              "cidr",
                              "peer",
                              "list_1k",
                              0,
                              {},
                              {},
                              {},
                              {},
                              "skipped: no AVX-512",
                              std::nullopt});
  InstructionRun& ir = r.instructions.emplace();
  ir.benchmarks.push_back({"cidr/gatecore/list_1k", 120.5, 1.0, "", {{"n", 1000}}});
  ir.benchmarks.push_back({"cidr/peer/list_1k", 0, std::nullopt, "skipped", json::object()});
  common::MacroResult& macro = r.macro.emplace();
  macro.env.commit = "0123456789abcdef";
  macro.run.rounds = 1;
  common::MacroScenario& s = macro.scenarios.emplace_back();
  s.name = "gateway-default";
  s.baseline = "nginx-baseline";
  s.rounds.emplace_back();
  ReportMacroInstructions& counts = r.macro_instructions.emplace();
  counts.env = {{"commit", "fedcba98"}, {"dirty", false}};
  counts.scenarios = {{"gateway-default", "ok", "", 6886.02},
                      {"gateway-h2", "skipped", "no h2load", std::nullopt}};
  ReportAttribution& a = r.cost_attribution.emplace().emplace_back();
  a.label = "rules − default";
  a.scenario = "gateway-rules";
  a.baseline = "gateway-default";
  a.difference_cpu_us_per_request = 1.5;
  a.micro = {{"rules/gatecore/default", 120.5}};
  a.unmatched_patterns = {"^rules/none$"};
  a.resolved = false;
  a.counter = "server_ns";
  a.instructions.micro = {{"rules/gatecore/default", 900}};
  a.instructions.micro_scaled_by_counter = true;
  a.instructions.not_attributable = {"tokens: no count"};
  a.instructions.remainder_share = -0.2;
  r.handshakes.emplace().push_back({"gateway-https-newconn", "ok", true, 1500, 192, 0, 633,
                                    MacroInterval{633, 600, 700, 5, 0.9375}, 1050,
                                    "tls/handshake_tls13_full", 242, 2.6, std::nullopt,
                                    std::nullopt});
  ReportCacheHits& c = r.cache_hit_ratio.emplace().emplace_back();
  c.scenario = "gateway-cache-memory-hit";
  c.status = "failed";
  c.expected = std::pair(0.95, 1.0);
  c.hit_ratio = 0.9499;
  c.verdict = "missed";
  c.verdict_rounds = {2};
  c.rounds = {{1, "ok", 0.99, "met"}, {2, "failed", 0.9499, "missed"}};
  ReportWorkload& w = r.workloads.emplace().emplace_back();
  w.workload = "plain";
  w.baselines = {"nginx-baseline"};
  w.rows.push_back({"gateway", "gateway-default", "ok", "nginx-baseline", 9000, 4500, 200, 400, 900,
                    180, 12.5, 0.5, std::nullopt, 0,
                    json{{"target", {{"image", "gatebench/gateway"}, {"id", "sha256:1"}}}}});
  w.rows.push_back({"nginx", "nginx-baseline", "ok", "nginx-baseline", 18000, std::nullopt,
                    std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, 1.0,
                    MacroInterval{1, 1, 1, 3, 0.75}, std::nullopt, nullptr});
  return r;
}

TEST(ReportFile, TheGoldenReportReadsAndWritesBackUnchanged) {
  const json golden = load_json_file(test::data("report_golden.json"));
  EXPECT_EQ(to_json(read(golden)), golden);
}

TEST(ReportFile, EveryPartSurvivesTheRoundTrip) {
  const json written = to_json(every_part());
  const ReportFile back = read(written);
  EXPECT_EQ(to_json(back), written);
  EXPECT_EQ(written["schema"], kReportSchema);
  EXPECT_EQ(written["inputs"]["macro_instructions"], nullptr);
  EXPECT_FALSE(written["instructions"].contains("schema"));
  ASSERT_TRUE(back.micro && back.instructions && back.macro && back.macro_instructions);
  ASSERT_EQ(back.micro->benchmarks.size(), 2u);
  const ReportMicroRow& row = back.micro->benchmarks[0];
  EXPECT_EQ(row.case_name, "list_1k");
  EXPECT_EQ(row.repetitions, 3u);
  ASSERT_TRUE(row.figures);
  EXPECT_EQ(row.figures->median.items_per_second, 0.95e8);
  EXPECT_FALSE(row.figures->median.bytes_per_second);
  EXPECT_FALSE(row.figures->vs_limit);
  EXPECT_EQ(row.figures->slower_than_naive, std::vector<std::string>{"cidr/naive/list_1k"});
  EXPECT_EQ(back.micro->benchmarks[1].error, "skipped: no AVX-512");
  EXPECT_FALSE(back.micro->benchmarks[1].figures);
  EXPECT_EQ(back.instructions->benchmarks[0].items_per_iteration, 1.0);
  EXPECT_EQ(back.macro->scenarios[0].baseline, "nginx-baseline");
  EXPECT_EQ(back.macro_instructions->scenarios[0].instructions_per_request, 6886.02);
  EXPECT_FALSE(back.macro_instructions->scenarios[1].instructions_per_request);
  ASSERT_TRUE(back.cost_attribution && back.handshakes && back.cache_hit_ratio && back.workloads);
  EXPECT_EQ(back.cost_attribution->at(0).resolved, false);
  EXPECT_EQ(back.cost_attribution->at(0).counter, "server_ns");
  EXPECT_EQ(back.cost_attribution->at(0).instructions.not_attributable,
            std::vector<std::string>{"tokens: no count"});
  EXPECT_EQ(written["cost_attribution"][0]["instructions"]["micro"][0]["instructions_per_op"], 900);
  EXPECT_EQ(back.handshakes->at(0).server_cpu_us_per_handshake_interval->n, 5u);
  EXPECT_EQ(back.handshakes->at(0).floor_benchmark, "tls/handshake_tls13_full");
  EXPECT_EQ(back.cache_hit_ratio->at(0).expected, std::pair(0.95, 1.0));
  EXPECT_EQ(back.cache_hit_ratio->at(0).rounds.at(1).verdict, "missed");
  EXPECT_EQ(back.workloads->at(0).rows.at(0).images["target"]["id"], "sha256:1");
  EXPECT_EQ(written["workloads"][0]["rows"][1]["images"], nullptr);
  EXPECT_EQ(written["workloads"][0]["rows"][1]["vs_nginx_interval"]["level"], 0.75);
  // A report without the macro part has none of its tables.
  ReportFile micro_only;
  micro_only.micro = every_part().micro;
  const json bare = to_json(micro_only);
  for (const char* table : {"cost_attribution", "handshakes", "cache_hit_ratio", "workloads"})
    EXPECT_EQ(bare[table], nullptr) << table;
  EXPECT_EQ(to_json(read(bare)), bare);
}

// compare and history read the micro part as micro.json's samples, and the counts as the
// gatebench.macro_instructions/1 file they came from.
TEST(ReportFile, PartsAsTheFilesTheyCameFrom) {
  const ReportFile r = every_part();
  const MicroRun micro = micro_run_from(*r.micro);
  ASSERT_NE(micro.find("cidr/gatecore/list_1k"), nullptr);
  EXPECT_EQ(micro.find("cidr/gatecore/list_1k")->cpu_ns, (std::vector<double>{10, 10.5, 10.25}));
  EXPECT_EQ(micro.find("cidr/peer/list_1k")->error, "skipped: no AVX-512");
  EXPECT_EQ(micro.context["date"], "2026-12-07T10:00:00+00:00");
  const common::MacroCountFile counts = macro_count_from(*r.macro_instructions);
  EXPECT_EQ(counts.env["commit"], "fedcba98");
  ASSERT_NE(counts.find("gateway-default"), nullptr);
  EXPECT_EQ(counts.find("gateway-default")->instructions_per_request, 6886.02);
  EXPECT_EQ(counts.find("gateway-h2")->status, "skipped");
}

TEST(ReportFile, AWrongMemberNamesItsPointer) {
  EXPECT_EQ(error_of({{"schema", "gatebench.macro/2"}}),
            "report.json: /schema: expected gatebench.report/1");
  EXPECT_EQ(error_of(json::object()), "report.json: /schema: expected gatebench.report/1");
  json doc = to_json(every_part());
  doc["micro"]["benchmarks"][0]["cpu_time_ns"] = {1.0};
  EXPECT_EQ(error_of(doc),
            "report.json: /micro/benchmarks/0/cpu_time_ns: expected as many values as "
            "real_time_ns");
  doc = to_json(every_part());
  doc["macro_instructions"]["scenarios"][0].erase("instructions_per_request");
  EXPECT_EQ(error_of(doc),
            "report.json: /macro_instructions/scenarios/0/instructions_per_request: missing "
            "(expected a number)");
  doc = to_json(every_part());
  doc["macro"]["scenarios"][0]["rounds_ok"] = "one";
  EXPECT_EQ(error_of(doc), "report.json: /macro/scenarios/0/rounds_ok: expected an integer");
}

}  // namespace
}  // namespace gatebench::tools
