// The report's HTTPS new-connection table: handshakes/s and CPU per handshake of both sides from
// macro.json, beside the micro floor's server_ns from the same report, and a scenario the
// driver found limited by the harness shown as such in JSON, Markdown and HTML.
#include <gtest/gtest.h>

#include "tools/src/report/report_model.hpp"
#include "tools/src/report/report_tables.hpp"
#include "tools/src/report/report_writers.hpp"
#include "tools/src/results/micro_counters.hpp"

namespace gatebench::tools {
// Named, not anonymous: a unity batch may hold report_attribution_test.cpp, whose helpers have
// the same names (docs/testing.md).
namespace handshakes_test {

using nlohmann::json;

json handshake_scenario(const std::string& name, const std::string& status,
                        const std::string& reason, int full, int resumed, double target_us) {
  return {{"name", name},
          {"status", status},
          {"reason", reason},
          {"baseline", "nginx-https-newconn"},
          {"rps", 1500.0},
          {"cpu_us_per_request", {{"target", target_us}, {"load", 1000.0}, {"backend", 40.0}}},
          {"handshakes", {{"per_s", 1500.0}, {"full", full}, {"resumed", resumed}}},
          {"cpu_us_per_handshake", {{"target", target_us}, {"load", 1050.0}, {"backend", 40.0}}},
          {"intervals",
           {{"cpu_us_per_handshake",
             {{"median", target_us},
              {"lo", target_us - 20},
              {"hi", target_us + 30},
              {"n", 5},
              {"level", 0.9375}}}}},
          {"rounds", json::array()}};
}

json macro_doc() {
  return {{"schema", "gatebench.macro/2"},
          {"env", json::object()},
          {"run", json::object()},
          {"scenarios",
           {handshake_scenario("gateway-https-newconn", "ok", "", 192, 0, 600),
            handshake_scenario("nginx-https-newconn", "failed",
                               "limited by the harness in round 1: the machine left idle CPU", 192,
                               0, 700),
            handshake_scenario("gateway-https-resume-tickets", "ok", "", 192, 40000, 400)}}};
}

json micro_doc() {
  auto row = [](const std::string& name, int rep, double server_ns, double client_ns) {
    return json{{"name", name},
                {"run_name", name},
                {"run_type", "iteration"},
                {"repetitions", 3},
                {"repetition_index", rep},
                {"iterations", 1000},
                {"real_time", 480000.0},
                {"cpu_time", 480000.0},
                {"time_unit", "ns"},
                {"items_per_second", 2083.0},
                {"server_ns", server_ns},
                {"client_ns", client_ns}};
  };
  json list = json::array();
  for (int rep = 0; rep < 3; ++rep) {
    list.push_back(row("tls/handshake_tls13_full", rep, 240000.0 + 10000.0 * rep, 700000.0));
    list.push_back(row("tls/handshake_tls13_resumed", rep, 160000.0, 150000.0));
  }
  return {{"context", json::object()}, {"benchmarks", list}};
}

struct Inputs {
  ResultSet micro = parse_result_set(micro_doc(), "micro.json");
  ResultSet macro = parse_result_set(macro_doc(), "macro.json");
  MicroCounters counters = MicroCounters::from_gbench_json(micro_doc());
  ReportModel model() const {
    return build_report_model(&*micro.micro, &*macro.macro, nullptr, {}, &counters);
  }
};

TEST(MicroCounters, MediansOverRepetitionsAndNothingForOtherDocuments) {
  const auto c = MicroCounters::from_gbench_json(micro_doc());
  EXPECT_EQ(c.median("tls/handshake_tls13_full", "server_ns"), 250000.0);
  EXPECT_FALSE(c.median("tls/handshake_tls13_full", "cpu_time"));  // Google Benchmark's own
  EXPECT_FALSE(c.median("tls/none", "server_ns"));
  const auto none = MicroCounters::from_gbench_json(json{{"schema", "gatebench.report/1"}});
  EXPECT_FALSE(none.median("tls/handshake_tls13_full", "server_ns"));
}

TEST(ReportHandshakes, ServerCostBesideTheFloorOfTheSameReport) {
  const Inputs in;
  const ReportModel m = in.model();
  ASSERT_EQ(m.handshakes.size(), 3u);
  const HandshakeRow& gw = m.handshakes[0];
  EXPECT_FALSE(gw.harness_limited);
  EXPECT_EQ(gw.floor_benchmark, "tls/handshake_tls13_full");
  EXPECT_DOUBLE_EQ(*gw.floor_us, 250.0);
  EXPECT_DOUBLE_EQ(*gw.vs_floor, 600.0 / 250.0);
  EXPECT_DOUBLE_EQ(*gw.load_us, 1050.0);
  EXPECT_DOUBLE_EQ(*gw.client_floor_us, 700.0);
  EXPECT_DOUBLE_EQ(*gw.load_vs_client_floor, 1050.0 / 700.0);
  ASSERT_NE(gw.target_interval, nullptr);
  EXPECT_DOUBLE_EQ(gw.target_interval->hi, 630.0);
  EXPECT_TRUE(m.handshakes[1].harness_limited);
  // Most handshakes resumed: the resumed floor.
  EXPECT_EQ(m.handshakes[2].floor_benchmark, "tls/handshake_tls13_resumed");
  EXPECT_DOUBLE_EQ(*m.handshakes[2].vs_floor, 400.0 / 160.0);
}

TEST(ReportHandshakes, NoFloorWithoutCounters) {
  const Inputs in;
  const ReportModel m = build_report_model(&*in.micro.micro, &*in.macro.macro, nullptr, {});
  ASSERT_EQ(m.handshakes.size(), 3u);
  EXPECT_FALSE(m.handshakes[0].floor_us);
  EXPECT_FALSE(m.handshakes[0].vs_floor);
  EXPECT_FALSE(m.handshakes[0].client_floor_us);
  EXPECT_FALSE(m.handshakes[0].load_vs_client_floor);
}

TEST(ReportHandshakes, JsonMarkdownAndHtmlShowTheHarnessLimit) {
  const Inputs in;
  const ReportModel m = in.model();
  const json j = report_json(m);
  ASSERT_EQ(j["handshakes"].size(), 3u);
  EXPECT_EQ(j["handshakes"][0]["vs_floor"], 600.0 / 250.0);
  EXPECT_EQ(j["handshakes"][0]["floor_server_us"], 250.0);
  EXPECT_EQ(j["handshakes"][0]["floor_client_us"], 700.0);
  EXPECT_EQ(j["handshakes"][0]["load_vs_client_floor"], 1.5);
  EXPECT_EQ(j["handshakes"][1]["limited_by_harness"], true);
  EXPECT_EQ(j["handshakes"][1]["status"], "failed");
  const std::string md = report_markdown(m);
  EXPECT_NE(md.find("### HTTPS new connections: handshakes"), std::string::npos);
  EXPECT_NE(md.find("| nginx-https-newconn | limited by the harness |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ×2.40 | 700 | ×1.50 |"), std::string::npos) << md;
  EXPECT_NE(md.find("600 [580, 630]"), std::string::npos) << md;
  const std::string html = report_html(m);
  EXPECT_NE(html.find("limited by the harness"), std::string::npos);
  EXPECT_NE(html.find("tls/handshake_tls13_full"), std::string::npos);
}

}  // namespace handshakes_test
}  // namespace gatebench::tools
