// New-connection rounds: handshake counts from gatebench-load's JSON, CPU per handshake, the
// machine's CPU, and the "limited by the harness" verdict in macro.json.
#include <gtest/gtest.h>

#include "macro/driver/output/macro_json.hpp"
#include "macro/driver/output/round_json.hpp"
#include "macro/driver/results/load_json.hpp"

namespace gatebench::macro {
namespace {

using nlohmann::json;

const char* kNewConnLoad = R"({"schema": "gatebench.load/1", "valid": true, "invalid_reasons": [],
  "config": {"threads": 2, "mode": "closed", "close": true},
  "elapsed_s": 2.0, "requests": 4000, "requests_per_s": 2000.0,
  "latency_us": {"p50": 100, "p90": 200, "p99": 300, "p999": 400, "mean": 120},
  "errors": {"total": 0},
  "handshakes": {"full": 16, "resumed": 3984, "per_s": 2000.0}})";

TEST(HandshakeFigures, LoadJsonCarriesHandshakesAndTheRunsSettings) {
  const LoadResult r = parse_load_json(kNewConnLoad, "x.json");
  ASSERT_TRUE(r.handshakes_full && r.handshakes_resumed);
  EXPECT_EQ(*r.handshakes_full, 16u);
  EXPECT_EQ(*r.handshakes_resumed, 3984u);
  EXPECT_EQ(r.counts.at("handshakes_full"), 16);
  EXPECT_EQ(r.counts.at("handshakes_resumed"), 3984);
  EXPECT_EQ(r.threads, 2);
  EXPECT_TRUE(r.closed_loop);
  EXPECT_TRUE(r.new_connections);
}

TEST(HandshakeFigures, OlderLoadJsonLeavesThemUnknown) {
  const LoadResult r = parse_load_json(R"({"schema": "gatebench.load/1", "elapsed_s": 1,
    "requests": 10, "requests_per_s": 10, "latency_us": {}})",
                                       "old.json");
  EXPECT_FALSE(r.handshakes_full.has_value());
  EXPECT_EQ(r.threads, 0);
  EXPECT_FALSE(r.new_connections);
}

// One round: `load_cpu_s` / `target_cpu_s` CPU seconds over a 2 s window, the machine `busy_s`
// and `idle_s` (2 CPUs: busy + idle = 4 s).
ScenarioResult newconn_round(const std::string& name, int round, double load_cpu_s,
                             double target_cpu_s, double busy_s, double idle_s, int threads = 1) {
  ScenarioResult r;
  r.name = name;
  r.round = round;
  r.baseline = "nginx-https-newconn";
  r.status = Status::ok;
  LoadResult load = parse_load_json(kNewConnLoad, "x.json");
  load.threads = threads;
  r.load = load;
  r.cpu_s_by_role = {{"target", target_cpu_s}, {"load", load_cpu_s},     {"backend", 0.2},
                     {"machine", busy_s},      {"machine_idle", idle_s}, {"machine_steal", 0.5}};
  r.window_s = 2;
  r.target_cpus = 2;
  r.target_role = "gateway";
  return r;
}

TEST(HandshakeFigures, CpuPerHandshakeOfEveryRole) {
  const ScenarioResult r = newconn_round("gateway-https-newconn", 1, 1.6, 1.2, 3.8, 0.2, 2);
  const json j = round_json(r, nullptr, nullptr);
  EXPECT_EQ(j["handshakes"]["full"], 16);
  EXPECT_EQ(j["handshakes"]["resumed"], 3984);
  EXPECT_DOUBLE_EQ(j["handshakes"]["per_s"].get<double>(), 2000);
  // 1.2 s of the target's CPU over 4,000 handshakes.
  EXPECT_DOUBLE_EQ(j["cpu_us_per_handshake"]["target"].get<double>(), 300);
  EXPECT_DOUBLE_EQ(j["cpu_us_per_handshake"]["load"].get<double>(), 400);
  EXPECT_DOUBLE_EQ(j["cpu_us_per_handshake"]["backend"].get<double>(), 50);
  EXPECT_DOUBLE_EQ(j["machine_cpu"]["busy_percent"].get<double>(), 190);
  EXPECT_DOUBLE_EQ(j["machine_cpu"]["idle_percent"].get<double>(), 10);
  // 0.5 s of the 3.8 s busy went to other guests.
  EXPECT_DOUBLE_EQ(j["machine_cpu"]["steal_percent"].get<double>(), 25);
  EXPECT_TRUE(j["harness_limit"].is_null()) << j["harness_limit"];
}

TEST(HandshakeFigures, ASaturatedGeneratorIsTheHarness) {
  // One thread at 95% of a CPU: it could not have asked faster.
  const auto why = harness_limit(newconn_round("x", 1, 1.9, 1.0, 3.9, 0.1));
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "the load generator was saturated (1 thread running or waiting for a CPU 95% of the "
            "window, 95% CPU)");
  // Two threads at the same CPU are not.
  EXPECT_FALSE(harness_limit(newconn_round("x", 1, 1.9, 1.0, 3.9, 0.1, 2)).has_value());
  // On a shared machine the thread got 80% of a CPU but waited for one the rest of the time.
  ScenarioResult waiting = newconn_round("x", 1, 1.6, 1.0, 3.9, 0.1);
  waiting.cpu_s_by_role["load_runnable"] = 1.94;
  ASSERT_TRUE(harness_limit(waiting).has_value());
  EXPECT_EQ(*harness_limit(waiting),
            "the load generator was saturated (1 thread running or waiting for a CPU 97% of the "
            "window, 80% CPU)");
  waiting.cpu_s_by_role["load_runnable"] = 1.7;  // idle 15% of the time: it kept up
  EXPECT_FALSE(harness_limit(waiting).has_value());
}

TEST(HandshakeFigures, IdleCpuWhileTheTargetIsBelowItsCpusIsTheHarness) {
  // A quarter of the machine idle, the target at 60% of its 2 CPUs.
  const auto why = harness_limit(newconn_round("x", 1, 1.0, 1.2, 3.0, 1.0, 2));
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "the machine left 25% of its CPU idle while the target used 60% of 2 CPUs");
  // The same idle share with the target at its CPUs (pinned apart from the rest): the target is
  // the limit, which is what the scenario measures.
  ScenarioResult pinned = newconn_round("x", 1, 1.0, 3.8, 3.0, 1.0, 2);
  EXPECT_FALSE(harness_limit(pinned).has_value());
}

TEST(HandshakeFigures, OnlyClosedLoopNewConnectionRoundsAreJudged) {
  ScenarioResult open = newconn_round("x", 1, 1.9, 1.0, 3.0, 1.0);
  open.load->closed_loop = false;
  EXPECT_FALSE(harness_limit(open).has_value());
  ScenarioResult keepalive = newconn_round("x", 1, 1.9, 1.0, 3.0, 1.0);
  keepalive.load->new_connections = false;
  EXPECT_FALSE(harness_limit(keepalive).has_value());
  EXPECT_FALSE(round_json(keepalive, nullptr, nullptr).contains("handshakes"));
  // Without the machine's figures and the thread count there is nothing to judge by.
  ScenarioResult unknown = newconn_round("x", 1, 1.9, 1.0, 3.0, 1.0, 0);
  unknown.cpu_s_by_role.erase("machine");
  EXPECT_FALSE(harness_limit(unknown).has_value());
}

json make(const std::vector<ScenarioResult>& results, bool quick = false) {
  Options options;
  options.rounds = 2;
  options.quick = quick;
  return make_macro_json(EnvInfo{}, CpuLayout{}, options, "gatebench-load", results,
                         {"nginx-https-newconn", "gateway-https-newconn"}, false);
}

const json& scenario_in(const json& doc, const std::string& name) {
  for (const auto& s : doc["scenarios"])
    if (s["name"] == name) return s;
  throw std::runtime_error("no scenario " + name);
}

TEST(HandshakeFigures, AHarnessLimitedScenarioFailsButKeepsItsFigures) {
  const std::vector<ScenarioResult> rs = {
      newconn_round("nginx-https-newconn", 1, 1.9, 1.0, 3.9, 0.1),  // saturated generator
      newconn_round("nginx-https-newconn", 2, 1.9, 1.0, 3.9, 0.1),
      newconn_round("gateway-https-newconn", 1, 1.6, 1.2, 3.8, 0.2, 2),
      newconn_round("gateway-https-newconn", 2, 1.6, 1.0, 3.8, 0.2, 2)};
  const json doc = make(rs);
  const json& n = scenario_in(doc, "nginx-https-newconn");
  EXPECT_EQ(n["status"], "failed");
  EXPECT_EQ(n["reason"],
            "limited by the harness in rounds 1, 2; round 1: the load generator was saturated "
            "(1 thread running or waiting for a CPU 95% of the window, 95% CPU)");
  EXPECT_EQ(n["rounds_ok"], 2);
  EXPECT_DOUBLE_EQ(n["rps"].get<double>(), 2000);  // reported, not gated on
  EXPECT_DOUBLE_EQ(n["cpu_us_per_handshake"]["target"].get<double>(), 250);
  // The gateway's own rounds were fine; its baseline's were not.
  const json& g = scenario_in(doc, "gateway-https-newconn");
  EXPECT_EQ(g["status"], "failed");
  EXPECT_EQ(g["reason"].get<std::string>().rfind("baseline nginx-https-newconn failed: limited", 0),
            0u)
      << g["reason"];
  EXPECT_DOUBLE_EQ(g["handshakes"]["per_s"].get<double>(), 2000);
  EXPECT_EQ(g["handshakes"]["full"], 32);
  EXPECT_EQ(g["handshakes"]["resumed"], 2 * 3984);
  // Medians of 300 and 250 us, with the interval of the target's.
  EXPECT_DOUBLE_EQ(g["cpu_us_per_handshake"]["target"].get<double>(), 275);
  EXPECT_DOUBLE_EQ(g["intervals"]["cpu_us_per_handshake"]["lo"].get<double>(), 250);
  EXPECT_DOUBLE_EQ(g["intervals"]["cpu_us_per_handshake"]["hi"].get<double>(), 300);
  EXPECT_DOUBLE_EQ(g["machine_cpu"]["busy_percent"].get<double>(), 190);
}

TEST(HandshakeFigures, SmokeRunsAreNotJudged) {
  const std::vector<ScenarioResult> rs = {
      newconn_round("nginx-https-newconn", 1, 1.9, 1.0, 3.9, 0.1),
      newconn_round("nginx-https-newconn", 2, 1.9, 1.0, 3.9, 0.1)};
  const json doc = make(rs, true);
  const json& n = scenario_in(doc, "nginx-https-newconn");
  EXPECT_EQ(n["status"], "ok");
  EXPECT_TRUE(n["rounds"][0]["harness_limit"].is_string());  // still said per round
}

}  // namespace
}  // namespace gatebench::macro
