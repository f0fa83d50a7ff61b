// macro.json from synthetic round results: statuses, paired ratios and medians.
#include "macro/driver/output/macro_json.hpp"

#include <gtest/gtest.h>

#include <string_view>

#include "macro/common/child_process.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {
namespace {

using nlohmann::json;

ScenarioResult round_of(const std::string& name, int round, double rps, double cpu_s, double p99_us,
                        uint64_t errors = 0) {
  ScenarioResult r;
  r.name = name;
  r.round = round;
  r.position = 1;
  r.baseline = "nginx-baseline";
  r.status = Status::ok;
  LoadResult load;
  load.rps = rps;
  load.duration_s = 2;
  load.requests = static_cast<uint64_t>(rps * 2);
  load.p50_us = p99_us / 4;
  load.p99_us = p99_us;
  load.errors = errors;
  r.load = load;
  TreeUsage usage;
  usage.cpu_percent = 100 * cpu_s / 2;
  usage.peak_mb = 10;
  r.target = usage;
  r.cpu_s_by_role = {{"target", cpu_s}, {"load", cpu_s / 2}, {"backend", cpu_s / 4}};
  r.cpu_by_role = {{"load", 50.0}};
  r.window_s = 2;
  r.window_source = "load generator";
  r.target_role = "gateway";
  return r;
}

json make(const std::vector<ScenarioResult>& results, int rounds) {
  Options options;
  options.rounds = rounds;
  return make_macro_json(EnvInfo{}, CpuLayout{}, options, "gatebench-load", results,
                         {"nginx-baseline", "gateway-default"}, false);
}

const json& scenario_of(const json& doc, const std::string& name) {
  for (const auto& s : doc["scenarios"])
    if (s["name"] == name) return s;
  throw std::runtime_error("no scenario " + name);
}

TEST(MacroJson, RatiosArePairedWithTheSameRoundsBaseline) {
  // The machine is twice as fast in round 2: both scenarios move, the paired ratio does not.
  std::vector<ScenarioResult> rs = {round_of("nginx-baseline", 1, 1000, 1.0, 1000),
                                    round_of("gateway-default", 1, 800, 1.2, 1500),
                                    round_of("nginx-baseline", 2, 2000, 1.0, 500),
                                    round_of("gateway-default", 2, 1600, 1.2, 750),
                                    round_of("nginx-baseline", 3, 1000, 1.0, 1000),
                                    round_of("gateway-default", 3, 800, 1.2, 1500)};
  const json doc = make(rs, 3);
  EXPECT_EQ(doc["schema"], "gatebench.macro/2");
  const json& g = scenario_of(doc, "gateway-default");
  EXPECT_EQ(g["status"], "ok");
  EXPECT_EQ(g["rounds_ok"], 3);
  ASSERT_EQ(g["rounds"].size(), 3u);
  for (const auto& r : g["rounds"]) EXPECT_DOUBLE_EQ(r["vs_nginx"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(g["vs_nginx"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(g["intervals"]["vs_nginx"]["lo"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(g["intervals"]["vs_nginx"]["hi"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(g["intervals"]["vs_nginx"]["level"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(g["p99_vs_nginx"].get<double>(), 1.5);
  // CPU per request: 1.2 s over 1600 requests = 750 us, against nginx's 1.0 s / 2000 = 500 us.
  EXPECT_DOUBLE_EQ(g["rounds"][0]["cpu_us_per_request"]["target"].get<double>(), 750);
  EXPECT_DOUBLE_EQ(g["rounds"][0]["cpu_vs_nginx"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(g["rounds"][0]["rps_per_gateway_cpu"].get<double>(), 1333.3);
  EXPECT_DOUBLE_EQ(g["rounds"][0]["cpu_us_per_request"]["load"].get<double>(), 375);
  EXPECT_DOUBLE_EQ(g["rps"].get<double>(), 800);
  EXPECT_EQ(g["requests"], 1600 + 3200 + 1600);
}

TEST(MacroJson, AFailedRoundFailsTheScenarioWithItsReason) {
  std::vector<ScenarioResult> rs = {
      round_of("nginx-baseline", 1, 1000, 1, 1000), round_of("gateway-default", 1, 800, 1.2, 1500),
      round_of("nginx-baseline", 2, 1000, 1, 1000), round_of("gateway-default", 2, 800, 1.2, 1500)};
  rs[3].status = Status::failed;
  rs[3].reason = "load invalid: achieved 90% of the offered rate";
  const json doc = make(rs, 2);
  const json& g = scenario_of(doc, "gateway-default");
  EXPECT_EQ(g["status"], "failed");
  EXPECT_EQ(g["reason"], "round 2: load invalid: achieved 90% of the offered rate");
  EXPECT_EQ(g["rounds_ok"], 1);
  EXPECT_EQ(g["rounds"][1]["status"], "failed");
  // What the failed round measured stays visible in its entry, not in the medians.
  EXPECT_TRUE(g["rounds"][1]["rps"].is_number());
  EXPECT_EQ(scenario_of(doc, "nginx-baseline")["status"], "ok");
}

TEST(MacroJson, AFailedBaselineFailsTheScenariosMeasuredAgainstIt) {
  std::vector<ScenarioResult> rs = {round_of("nginx-baseline", 1, 1000, 1, 1000),
                                    round_of("gateway-default", 1, 800, 1.2, 1500)};
  rs[0].status = Status::failed;
  rs[0].reason = "proxy exited with status 1 during the run: bind failed";
  const json doc = make(rs, 1);
  const json& g = scenario_of(doc, "gateway-default");
  EXPECT_EQ(g["status"], "failed");
  EXPECT_EQ(g["reason"],
            "baseline nginx-baseline failed: round 1: proxy exited with status 1 during the run: "
            "bind failed");
  EXPECT_TRUE(g["vs_nginx"].is_null());
  EXPECT_TRUE(g["rounds"][0]["vs_nginx"].is_null());
  EXPECT_TRUE(g["rps"].is_number());  // its own figures are still there
}

TEST(MacroJson, SkippedEveryRoundIsSkippedAndErrorsAreSummed) {
  std::vector<ScenarioResult> rs = {round_of("nginx-baseline", 1, 1000, 1, 1000, 3),
                                    round_of("nginx-baseline", 2, 1000, 1, 1000, 4)};
  ScenarioResult skipped;
  skipped.name = "gateway-default";
  skipped.baseline = "nginx-baseline";
  skipped.status = Status::skipped;
  skipped.reason = "gatebench-gateway not built";
  for (int round : {1, 2}) {
    skipped.round = round;
    rs.push_back(skipped);
  }
  const json doc = make(rs, 2);
  const json& g = scenario_of(doc, "gateway-default");
  EXPECT_EQ(g["status"], "skipped");
  EXPECT_EQ(g["reason"], "gatebench-gateway not built");
  EXPECT_TRUE(g["rps"].is_null());
  const json& n = scenario_of(doc, "nginx-baseline");
  EXPECT_EQ(n["errors"], 7);
  EXPECT_NEAR(n["error_rate"].get<double>(), 7.0 / 4000, 1e-12);
}

TEST(MacroJson, FewerRoundsThanPlannedIsNotOk) {
  // An interrupted run: round 2 never happened for this scenario.
  std::vector<ScenarioResult> rs = {round_of("nginx-baseline", 1, 1000, 1, 1000)};
  const json doc = make(rs, 2);
  EXPECT_EQ(scenario_of(doc, "nginx-baseline")["status"], "failed");
}

// True when `text` has the shape of `pattern`, where 'd' stands for any decimal digit. (Not
// std::regex: GCC 12 warns inside libstdc++'s regex at -O1 with the sanitizers.)
bool has_shape(std::string_view text, std::string_view pattern) {
  if (text.size() != pattern.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (pattern[i] == 'd' ? !digit : text[i] != pattern[i]) return false;
  }
  return true;
}

// env.date: when the run started, in micro.json's context.date format, so `gatebench history`
// orders macro runs by when they ran, not by when they were added.
TEST(MacroJson, EnvCarriesTheStartDateInUtc) {
  const EnvInfo env = collect_env_info("");
  EXPECT_TRUE(has_shape(env.date, "dddd-dd-ddTdd:dd:dd+00:00")) << env.date;
  Options options;
  const json doc = make_macro_json(env, CpuLayout{}, options, "gatebench-load", {}, {}, false);
  EXPECT_EQ(doc["env"]["date"], env.date);
}

// env.versions: the version line of each third-party program the run used, asked with its own
// flag; gatebench's binaries and programs this driver does not know are not asked.
TEST(MacroJson, EnvNamesTheVersionsOfTheProgramsItKnows) {
  const std::string nginx = common::find_on_path("nginx", {"/usr/sbin"});
  ASSERT_FALSE(nginx.empty()) << "nginx not installed (ci/setup installs it)";
  const auto version = program_version(nginx);
  ASSERT_TRUE(version.has_value());
  EXPECT_TRUE(version->starts_with("nginx version: nginx/")) << *version;
  EXPECT_EQ(program_version("/nonexistent/nginx"), std::nullopt);
  EXPECT_EQ(program_version("/bin/true"), std::nullopt);  // not a program it knows
  EnvInfo env;
  env.versions = {{"nginx", *version}};
  Options options;
  const json doc = make_macro_json(env, CpuLayout{}, options, "gatebench-load", {}, {}, false);
  EXPECT_EQ(doc["env"]["versions"]["nginx"], *version);
  // Nothing known: no field, as before.
  EXPECT_FALSE(
      make_macro_json(EnvInfo{}, CpuLayout{}, options, "gatebench-load", {}, {}, false)["env"]
          .contains("versions"));
}

// The report's tables per workload read `target` and `workload`: expansions and the hand-written
// names they replaced carry them; a scenario that is no target on a workload has neither.
TEST(MacroJson, ScenariosNameTheirTargetAndWorkload) {
  const std::vector<std::string> targets = {"nginx", "gateway", "my-gw"};
  const std::vector<std::string> workloads = {"plain", "h2", "h2-one-stream", "protected"};
  auto id = [&](const std::string& name) {
    const auto got = scenario_identity(name, targets, workloads);
    return got ? got->target + " x " + got->workload : std::string("none");
  };
  EXPECT_EQ(id("my-gw-plain"), "my-gw x plain");
  EXPECT_EQ(id("gateway-h2-one-stream"), "gateway x h2-one-stream");  // the longest workload
  EXPECT_EQ(id("nginx-baseline"), "nginx x plain");
  EXPECT_EQ(id("nginx-modsecurity-crs"), "nginx x protected");
  EXPECT_EQ(id("gateway-h2-protected"), "none");  // gateway-h2 is no target
  EXPECT_EQ(id("ablation-none"), "none");
  EXPECT_EQ(id("plain"), "none");

  // Through make_macro_json, with the shipped targets and workloads.
  const json doc = make({round_of("nginx-baseline", 1, 1000, 1.0, 1000),
                         round_of("gateway-default", 1, 800, 1.2, 1500)},
                        1);
  EXPECT_EQ(scenario_of(doc, "gateway-default")["target"], "gateway");
  EXPECT_EQ(scenario_of(doc, "gateway-default")["workload"], "plain");
  EXPECT_EQ(scenario_of(doc, "nginx-baseline")["target"], "nginx");
}

// What the driver writes, common::MacroResult reads back whole: the type is the file.
TEST(MacroJson, ReadsBackThroughTheCommonTypeUnchanged) {
  std::vector<ScenarioResult> rs = {round_of("nginx-baseline", 1, 1000, 1, 1000, 3),
                                    round_of("gateway-default", 1, 800, 1.2, 1500),
                                    round_of("nginx-baseline", 2, 2000, 1, 500),
                                    round_of("gateway-default", 2, 1600, 1.2, 750, 2),
                                    round_of("nginx-baseline", 3, 1000, 1, 1000),
                                    round_of("gateway-default", 3, 800, 1.2, 1500)};
  rs[1].latency_baseline = "nginx-baseline";
  rs[3].latency_baseline = "nginx-baseline";
  rs[5].latency_baseline = "nginx-baseline";
  rs[5].status = Status::failed;
  rs[5].reason = "errors above the limit";
  rs[1].load->counts = {{"timeouts", 2}};
  rs[1].load->per_second = {{0, 790, 1400, 0}, {1, 810, std::nullopt, 1}};
  rs[1].target_cpu_per_second = {60.04};
  rs[1].extra = {{"offered_rate", 800}};
  rs[1].artifacts = {"round-1/gateway-default/load.json"};
  const json doc = make(rs, 3);
  const common::MacroResult read = common::macro_result_from_json(doc, "macro.json");
  EXPECT_EQ(common::to_json(read), doc);
  ASSERT_EQ(read.scenarios.size(), 2u);
  EXPECT_EQ(read.scenarios[1].rounds_ok, 2);
  ASSERT_TRUE(read.scenarios[1].medians);
  EXPECT_TRUE(read.scenarios[1].medians->latency_delta_us);
}

}  // namespace
}  // namespace gatebench::macro
