// A scenario's "cache" block: validation naming the field, the hit ratio from gatebench-load's
// header counts, the reason a round fails, the generator's arguments and macro.json's figures.
#include "macro/driver/plan/cache_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "macro/driver/output/macro_json.hpp"
#include "macro/driver/plan/plan.hpp"
#include "macro/driver/plan/scenario.hpp"
#include "macro/driver/results/load_json.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {
namespace {

using nlohmann::json;

std::string scenario_with(const std::string& cache) {
  return R"({"name": "c", "description": "d", "ports": {"proxy": 18081},
    "services": [{"name": "proxy", "role": "gateway", "binary": "nginx",
                  "ready": {"port": "proxy"}}],
    "load": {"port": "proxy"}, "cache": )" +
         cache + "}";
}

std::string error_of(const std::string& cache) {
  try {
    parse_scenario(scenario_with(cache), "c.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

const char* kCache =
    R"({"status_header": "X-Cache-Status", "hit_values": ["hit", "HIT"],
        "expect_hit_ratio": [0.95, 1.0]})";

TEST(CacheCheck, ParsedFromTheScenario) {
  const Scenario s = parse_scenario(scenario_with(kCache), "c.json");
  ASSERT_TRUE(s.cache);
  EXPECT_EQ(s.cache->status_header, "X-Cache-Status");
  EXPECT_EQ(s.cache->hit_values, (std::vector<std::string>{"hit", "HIT"}));
  EXPECT_DOUBLE_EQ(s.cache->expect_lo, 0.95);
  EXPECT_DOUBLE_EQ(s.cache->expect_hi, 1.0);
  EXPECT_EQ(counted_name(*s.cache), "x-cache-status");
  std::string without = scenario_with("0");
  without.erase(without.find(R"(, "cache": 0)"), std::string(R"(, "cache": 0)").size());
  EXPECT_FALSE(parse_scenario(without, "c.json").cache);
}

TEST(CacheCheck, ErrorsNameTheField) {
  EXPECT_EQ(error_of("[]"), "c.json: /cache: expected an object");
  EXPECT_EQ(error_of(R"({"status_header": "X-Cache", "hit_values": ["HIT"],
                        "expect_hit_ratio": [0.9, 1], "miss_values": []})"),
            "c.json: /cache/miss_values: unknown field");
  EXPECT_EQ(error_of(R"({"hit_values": ["HIT"], "expect_hit_ratio": [0.9, 1]})"),
            "c.json: /cache/status_header: missing (expected a string)");
  EXPECT_EQ(error_of(R"({"status_header": "X Cache", "hit_values": ["HIT"],
                        "expect_hit_ratio": [0.9, 1]})"),
            "c.json: /cache/status_header: expected a header name such as X-Cache-Status");
  EXPECT_EQ(error_of(R"({"status_header": "X-Cache", "hit_values": [],
                        "expect_hit_ratio": [0.9, 1]})"),
            "c.json: /cache/hit_values: expected a non-empty array of header values");
  EXPECT_EQ(error_of(R"({"status_header": "X-Cache", "hit_values": ["HIT"],
                        "expect_hit_ratio": [0.9]})"),
            "c.json: /cache/expect_hit_ratio: expected [lowest, highest], two numbers from 0 to 1");
  EXPECT_EQ(error_of(R"({"status_header": "X-Cache", "hit_values": ["HIT"],
                        "expect_hit_ratio": [0.9, 1.5]})"),
            "c.json: /cache/expect_hit_ratio/1: expected a number from 0 to 1");
  EXPECT_EQ(error_of(R"({"status_header": "X-Cache", "hit_values": ["HIT"],
                        "expect_hit_ratio": [1, 0.5]})"),
            "c.json: /cache/expect_hit_ratio: expected the lowest ratio first");
}

LoadResult counted(std::map<std::string, uint64_t> values) {
  LoadResult r;
  r.header_counts["x-cache-status"] = std::move(values);
  return r;
}

TEST(CacheCheck, HitRatioCountsEveryResponse) {
  const Scenario s = parse_scenario(scenario_with(kCache), "c.json");
  const CacheCheck& c = *s.cache;
  // Absent headers and other values are responses the cache did not answer as a hit.
  const auto ratio = hit_ratio(c, counted({{"HIT", 90}, {"hit", 5}, {"MISS", 3}, {"(absent)", 2}}));
  ASSERT_TRUE(ratio);
  EXPECT_DOUBLE_EQ(*ratio, 0.95);
  EXPECT_FALSE(hit_ratio_failure(c, ratio));
  const auto low = hit_ratio(c, counted({{"HIT", 94}, {"MISS", 6}, {"(absent)", 0}}));
  EXPECT_EQ(hit_ratio_failure(c, low),
            "hit ratio 0.9400 outside the expected [0.95, 1] (X-Cache-Status)");
  EXPECT_FALSE(hit_ratio(c, counted({{"(absent)", 0}})));
  EXPECT_FALSE(hit_ratio(c, LoadResult{}));
  EXPECT_EQ(hit_ratio_failure(c, std::nullopt),
            "no response counted for the cache's X-Cache-Status header");
  // Values are compared exactly: "Hit" is not one of ["hit", "HIT"].
  EXPECT_DOUBLE_EQ(*hit_ratio(c, counted({{"Hit", 1}, {"HIT", 1}})), 0.5);
}

TEST(CacheCheck, ReadFromTheLoadJson) {
  const LoadResult r = parse_load_json(
      R"j({"schema": "gatebench.load/1", "elapsed_s": 1, "requests": 10, "requests_per_s": 10,
          "header_counts": {"x-cache-status": {"HIT": 7, "(other)": 1, "(absent)": 2}}})j",
      "l.json");
  ASSERT_TRUE(r.header_counts.contains("x-cache-status"));
  EXPECT_EQ(r.header_counts.at("x-cache-status").at("HIT"), 7u);
  EXPECT_EQ(r.header_counts.at("x-cache-status").at("(absent)"), 2u);
  const Scenario s = parse_scenario(scenario_with(kCache), "c.json");
  EXPECT_DOUBLE_EQ(*hit_ratio(*s.cache, r), 0.7);
  EXPECT_THROW(parse_load_json(R"({"schema": "gatebench.load/1", "elapsed_s": 1, "requests": 1,
          "requests_per_s": 1, "header_counts": {"x-cache-status": {"HIT": "many"}}})",
                               "l.json"),
               LoadParseError);
}

TEST(CacheCheck, GatebenchLoadIsAskedToCount) {
  LoadPlan p;
  p.tool = "gatebench-load";
  p.url = "http://127.0.0.1:1/";
  p.count_header = "X-Cache-Status";
  const auto args = p.args(1, std::nullopt, "l.json", "s.lua");
  const auto at = std::find(args.begin(), args.end(), "--count-header");
  ASSERT_NE(at, args.end());
  EXPECT_EQ(*(at + 1), "X-Cache-Status");
  p.count_header.clear();
  const auto plain = p.args(1, std::nullopt, "l.json", "s.lua");
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "--count-header"), plain.end());
}

ScenarioResult cache_round(int round, double ratio, Status status = Status::ok) {
  ScenarioResult r;
  r.name = "cache-hit";
  r.round = round;
  r.baseline = "cache-hit";
  r.status = status;
  LoadResult load;
  load.rps = 1000;
  load.duration_s = 1;
  load.requests = 1000;
  r.load = load;
  r.cpu_s_by_role = {{"target", 0.5}};
  r.window_s = 1;
  r.hit_ratio = ratio;
  r.expect_hit_ratio = std::pair(0.95, 1.0);
  return r;
}

TEST(CacheCheck, MacroJsonHasTheRoundsAndTheMedian) {
  Options options;
  options.rounds = 3;
  const json doc = make_macro_json(
      EnvInfo{}, CpuLayout{}, options, "gatebench-load",
      {cache_round(1, 0.97), cache_round(2, 0.99), cache_round(3, 0.98)}, {"cache-hit"}, false);
  const json& s = doc["scenarios"][0];
  EXPECT_EQ(s["status"], "ok");
  EXPECT_DOUBLE_EQ(s["hit_ratio"].get<double>(), 0.98);
  EXPECT_EQ(s["expect_hit_ratio"], json::array({0.95, 1.0}));
  EXPECT_EQ(s["intervals"]["hit_ratio"]["n"], 3);
  EXPECT_DOUBLE_EQ(s["rounds"][1]["hit_ratio"].get<double>(), 0.99);
  // A scenario without a cache check has no such figures.
  ScenarioResult plain = cache_round(1, 0);
  plain.name = "plain";
  plain.baseline = "plain";
  plain.hit_ratio.reset();
  plain.expect_hit_ratio.reset();
  options.rounds = 1;
  const json other =
      make_macro_json(EnvInfo{}, CpuLayout{}, options, "gatebench-load", {plain}, {"plain"}, false);
  EXPECT_FALSE(other["scenarios"][0].contains("hit_ratio"));
  EXPECT_FALSE(other["scenarios"][0]["rounds"][0].contains("hit_ratio"));
}

}  // namespace
}  // namespace gatebench::macro
