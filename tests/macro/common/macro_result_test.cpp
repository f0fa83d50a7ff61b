#include "macro/common/macro_result.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "macro/common/usage_error.hpp"

namespace gatebench::common {
namespace {

using nlohmann::json;
using testing::HasSubstr;

MacroRound full_round() {
  MacroRound r;
  r.round = 3;
  r.position = 2;
  r.status = "failed";
  r.reason = "errors: 2.0% of requests";
  MacroRoundLoad& l = r.load.emplace();
  l.rps = 1234.5;
  l.requests = 2469;
  l.measured_s = 2.001;
  l.latency_us = {100, 200, 300, 400, 150.5};
  l.errors = 49;
  l.error_rate = 0.0198;
  l.per_second = {{0, 1200, 290, 1, 55.5}, {1, 1269, std::nullopt, 0, std::nullopt}};
  l.cpu_us_per_request = {750.25, 375, std::nullopt};
  l.rps_per_gateway_cpu = 1333.3;
  l.window_source = "load generator";
  l.window_s = 2.002;
  l.machine_cpu = MacroMachineCpu{180, 20, 1.5};
  l.handshakes = MacroRoundHandshakes{2000, 469, 1234.5};
  l.cpu_us_per_handshake = MacroCpuPerRole{800.5, std::nullopt, 100};
  l.harness_limit = "the load generator was saturated";
  l.hit_ratio = Figure(0.9995);
  MacroTargetUsage& t = r.target.emplace();
  t.cpu_percent = 90.5;
  t.cpu_by_process = {{"gatebench-gateway", 90.5}};
  t.peak_mb = 12.5;
  t.peak_rss_mb = 20.5;
  r.cpu_by_role = {{"load", 50}, {"backend", 25}};
  r.counts = {{"connect_errors", 2}, {"timeouts", 3}};
  r.vs_nginx = 0.8;
  r.cpu_vs_nginx = 1.5;
  r.p99_vs_nginx = std::nullopt;
  r.latency_delta_us = MacroLatencyDelta{10, 20, std::nullopt, 40};
  r.details = {{"offered_rate", 1000}};
  r.artifacts = {"round-3/gw/load.json", "round-3/gw/gateway.log"};
  return r;
}

// Every member away from its default, so a field the writer or the reader forgets shows.
MacroResult full_result() {
  MacroResult m;
  m.env = {"0123abcd",
           true,
           "Test CPU",
           2,
           "6.1.0",
           "GNU 12.2.0",
           "podman",
           {"0", std::nullopt, "1"},
           "wrk",
           "2026-12-07T11:00:00Z",
           {{"a", {"ssh", "10.0.0.1", {"load"}, "Other CPU", 8, "6.2"}},
            {"b", {"local", "", {"gateway", "backend"}, "", 0, ""}}},
           {{"nginx", "1.22.1"}, {"haproxy", "2.6.12"}}};
  m.run = {2, 1, 16, true, 3, 42, 0.01, true};
  MacroScenario s;
  s.name = "gateway-plain";
  s.group = "targets";
  s.workload = "plain";
  s.target = "gateway";
  s.status = "failed";
  s.reason = "round 3: errors";
  s.baseline = "nginx-plain";
  s.latency_baseline = "direct";
  s.images = {{"gateway", {{"image", "gatebench/gateway"}, {"id", "sha256:1"}}}};
  s.expect_hit_ratio = std::pair(0.95, 1.0);
  s.rounds_planned = 3;
  s.rounds_ok = 1;
  MacroMedians& med = s.medians.emplace();
  med.rps = 1200.5;
  med.rps_per_gateway_cpu = 1300.1;
  med.latency_us = {1, 2, 3, std::nullopt, 1.5};
  med.cpu_percent = 88.8;
  med.cpu_by_process = {{"gatebench-gateway", 88.8}, {"sidecar", std::nullopt}};
  med.cpu_by_role = {{"load", 50.0}};
  med.peak_mb = 12.5;
  med.peak_rss_mb = 21.5;
  med.cpu_us_per_request = {{"target", 750.25}, {"load", 375.0}, {"backend", std::nullopt}};
  med.machine_cpu = {{"busy_percent", 180.0}, {"idle_percent", 20.0}};
  med.handshakes = MacroScenarioHandshakes{1234.5, 6000, 1400, {{"target", 800.5}}};
  med.target_role = "gateway";
  med.target_cpus = 2;
  med.vs_nginx = 0.8;
  med.cpu_vs_nginx = 1.5;
  med.p99_vs_nginx = 1.25;
  med.intervals = {{"rps", MacroMedianInterval{1200.5, 1100, 1300, 3, 0.75}},
                   {"vs_nginx", std::nullopt}};
  med.hit_ratio = Figure(std::nullopt);
  med.latency_delta_us = MacroLatencyDelta{1, 2, 3, 4};
  med.per_second = {{0, 1200, 290, 1, 55.5}};
  med.details = {{"steps", json::array({1, 2})}};
  med.example_round = 2;
  s.errors = 49;
  s.requests = 7000;
  s.error_rate = 0.007;
  s.counts = {{"timeouts", 3}};
  s.artifacts = {"round-3/gw/load.json"};
  s.rounds = {full_round(), MacroRound{}};
  m.scenarios.push_back(s);
  MacroScenario skipped;
  skipped.name = "varnish-hit";
  skipped.status = "skipped";
  skipped.reason = "varnishd not installed";
  MacroRound none;
  none.status = "skipped";
  none.reason = skipped.reason;
  skipped.rounds = {none};
  m.scenarios.push_back(skipped);
  return m;
}

TEST(MacroResult, EveryFieldSurvivesTheRoundTrip) {
  const json written = to_json(full_result());
  const MacroResult read = parse_macro_result(written.dump(2), "macro.json");
  EXPECT_EQ(to_json(read), written);
  EXPECT_EQ(written["schema"], kMacroSchema);
  // Absent, null and a value stay apart where the file tells them apart.
  const MacroScenario& s = read.scenarios[0];
  ASSERT_TRUE(s.medians);
  ASSERT_TRUE(s.medians->hit_ratio);
  EXPECT_FALSE(*s.medians->hit_ratio);
  EXPECT_FALSE(s.medians->intervals.at("vs_nginx"));
  EXPECT_EQ(s.rounds[0].load->hit_ratio, Figure(0.9995));
  EXPECT_FALSE(s.rounds[1].load);
  EXPECT_FALSE(s.rounds[1].latency_delta_us);
  EXPECT_EQ(read.env.hosts.at("b").address, "");
  EXPECT_TRUE(written["env"]["hosts"]["b"]["address"].is_null());
  EXPECT_TRUE(written["run"]["smoke"].get<bool>());
  EXPECT_EQ(written["run"]["interval"]["level"], kMacroIntervalLevel);
}

TEST(MacroResult, AScenarioWithoutAnOkRoundWritesItsMediansAsNull) {
  const json written = to_json(full_result());
  const json& s = written["scenarios"][1];
  for (const char* key : {"rps", "rps_per_gateway_cpu", "latency_us", "cpu_percent",
                          "cpu_by_process", "peak_mb", "vs_nginx", "cpu_vs_nginx", "p99_vs_nginx",
                          "cpu_us_per_request", "errors", "requests", "error_rate"})
    EXPECT_TRUE(s.contains(key) && s[key].is_null()) << key;
  for (const char* key : {"group", "workload", "target_role", "intervals", "counts", "images"})
    EXPECT_FALSE(s.contains(key)) << key;
  const MacroResult read = parse_macro_result(written.dump(), "macro.json");
  EXPECT_FALSE(read.scenarios[1].medians);
  EXPECT_FALSE(read.scenarios[1].errors);
}

TEST(MacroResult, AnAbsentMemberKeepsItsDefault) {
  const MacroResult r = parse_macro_result(
      R"({"schema": "gatebench.macro/2", "scenarios": [{"name": "a", "status": "ok",
          "rps": 10, "rounds": [{"status": "ok", "rps": 10}, {"status": "failed"}]}]})",
      "hand.json");
  ASSERT_EQ(r.scenarios.size(), 1u);
  const MacroScenario& s = r.scenarios[0];
  EXPECT_EQ(s.rounds_planned, 2);
  EXPECT_EQ(s.rounds_ok, 1);
  ASSERT_TRUE(s.medians);
  EXPECT_EQ(s.medians->rps, 10.0);
  EXPECT_EQ(s.rounds[1].round, 2);
  ASSERT_TRUE(s.rounds[0].load);
  EXPECT_EQ(s.rounds[0].load->requests, 0u);
  EXPECT_FALSE(s.rounds[1].load);
  EXPECT_EQ(r.run.rounds, 0);
}

void expect_macro_error(const std::string& text, const std::string& message) {
  try {
    parse_macro_result(text, "bad.json");
    FAIL() << "no error for " << text;
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr(message)) << text;
  }
}

TEST(MacroResult, BadFieldsAreErrorsNamingThePointer) {
  const std::string head = R"({"schema": "gatebench.macro/2", "scenarios": [)";
  expect_macro_error(R"({"schema": "gatebench.macro/3", "scenarios": []})",
                     "bad.json: /schema: expected gatebench.macro/2");
  expect_macro_error("[]", "bad.json: /schema: expected gatebench.macro/2");
  expect_macro_error(R"({"schema": "gatebench.macro/2"})", "bad.json: /scenarios");
  expect_macro_error(head + R"({"status": "ok"}]})", "bad.json: /scenarios/0/name: missing");
  expect_macro_error(head + R"({"name": "a", "status": "fine"}]})",
                     "bad.json: /scenarios/0/status: expected ok, skipped or failed, got 'fine'");
  expect_macro_error(head + R"({"name": "a", "status": "ok", "rounds": [{"status": "ok",
                          "requests": 5}]}]})",
                     "bad.json: /scenarios/0/rounds/0/rps: missing");
  expect_macro_error(head + R"({"name": "a", "status": "ok", "rounds": [{"status": "ok",
                          "rps": 1, "requests": -1}]}]})",
                     "bad.json: /scenarios/0/rounds/0/requests");
  expect_macro_error(head + R"({"name": "a", "status": "ok", "rounds_ok": 1, "intervals":
                          {"rps": {"median": 1, "lo": 2, "hi": 1, "n": 3, "level": 0.75}}}]})",
                     "bad.json: /scenarios/0/intervals/rps/lo: expected <= hi");
  expect_macro_error(head + R"({"name": "a", "status": "ok", "expect_hit_ratio": [0.9]}]})",
                     "bad.json: /scenarios/0/expect_hit_ratio: expected [lowest, highest]");
  expect_macro_error(head + R"({"name": "a", "status": "ok", "rounds_ok": 1,
                          "cpu_by_role": {"load": "x"}}]})",
                     "bad.json: /scenarios/0/cpu_by_role/load");
  expect_macro_error(R"({"schema": "gatebench.macro/2", "env": {"cpus": "two"}, "scenarios": []})",
                     "bad.json: /env/cpus");
  expect_macro_error(R"({"schema": "gatebench.macro/2", "run": {"quick": 1}, "scenarios": []})",
                     "bad.json: /run/quick");
  expect_macro_error("{", "bad.json");
}

// gatebench.macro/1: one run per scenario, the figures at the top level. It reads as one round
// per scenario with the figures /2 adds derived from it, and writes as /2.
TEST(MacroResult, AV1FileReadsAsOneRoundPerScenario) {
  const MacroResult r = parse_macro_result(R"({"schema": "gatebench.macro/1",
      "env": {"commit": "abc", "cpus": 2},
      "scenarios": [
        {"name": "nginx-baseline", "status": "ok", "rps": 1000, "cpu_percent": 50,
         "cpu_by_role": {"load": 20}, "latency_us": {"p50": 100, "p99": 400}, "errors": 0},
        {"name": "gw", "status": "ok", "rps": 500, "cpu_percent": 100, "vs_nginx": 0.5,
         "cpu_by_role": {"load": 10, "backend": 5}, "latency_us": {"p50": 150, "p99": 600},
         "errors": 2, "cpu_by_process": {"gatebench-gateway": 100}},
        {"name": "off", "status": "skipped", "reason": "no certificate", "rps": null}]})",
                                           "v1.json");
  ASSERT_EQ(r.scenarios.size(), 3u);
  EXPECT_EQ(r.env.commit, "abc");
  const MacroScenario& gw = r.scenarios[1];
  EXPECT_EQ(gw.baseline, "nginx-baseline");
  EXPECT_EQ(gw.rounds_planned, 1);
  EXPECT_EQ(gw.rounds_ok, 1);
  ASSERT_TRUE(gw.medians);
  // 100% of one CPU over 500 req/s: 2000 µs per request; the baseline's is 500.
  EXPECT_DOUBLE_EQ(*gw.medians->cpu_us_per_request.at("target"), 2000);
  EXPECT_DOUBLE_EQ(*gw.medians->cpu_us_per_request.at("load"), 200);
  EXPECT_DOUBLE_EQ(*gw.medians->cpu_us_per_request.at("backend"), 100);
  EXPECT_DOUBLE_EQ(*gw.medians->cpu_vs_nginx, 4);
  EXPECT_DOUBLE_EQ(*gw.medians->p99_vs_nginx, 1.5);
  ASSERT_EQ(gw.rounds.size(), 1u);
  const MacroRound& round = gw.rounds[0];
  EXPECT_EQ(round.position, 2);
  EXPECT_EQ(round.status, "ok");
  ASSERT_TRUE(round.load && round.target);
  EXPECT_EQ(round.load->rps, 500);
  EXPECT_EQ(round.load->errors, 2u);
  EXPECT_EQ(round.load->cpu_us_per_request.target, 2000);
  EXPECT_EQ(round.target->cpu_by_process.at("gatebench-gateway"), 100);
  EXPECT_EQ(round.vs_nginx, 0.5);
  EXPECT_EQ(round.cpu_vs_nginx, 4);
  const MacroScenario& off = r.scenarios[2];
  EXPECT_FALSE(off.medians);
  EXPECT_EQ(off.rounds_ok, 0);
  ASSERT_EQ(off.rounds.size(), 1u);
  EXPECT_EQ(off.rounds[0].reason, "no certificate");
  EXPECT_FALSE(off.rounds[0].load);
  // Written again it is a /2 file that reads back to the same.
  const json written = to_json(r);
  EXPECT_EQ(written["schema"], kMacroSchema);
  EXPECT_EQ(to_json(parse_macro_result(written.dump(), "again.json")), written);
}

// report.json of a /1 input wrote the target's CPU per request as a number.
TEST(MacroResult, AV1CpuPerRequestNumberIsTheTargets) {
  const MacroResult r = parse_macro_result(R"({"schema": "gatebench.macro/1", "scenarios": [
      {"name": "gw", "status": "ok", "rps": 500, "cpu_us_per_request": 1500}]})",
                                           "report.json");
  EXPECT_DOUBLE_EQ(*r.scenarios[0].medians->cpu_us_per_request.at("target"), 1500);
  expect_macro_error(R"({"schema": "gatebench.macro/1", "scenarios": [
      {"name": "gw", "status": "ok", "latency_us": {"p50": 1}}]})",
                     "bad.json: /scenarios/0/rps: missing (expected a number)");
}

}  // namespace
}  // namespace gatebench::common
