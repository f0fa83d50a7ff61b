// merge_gbench_runs: repetitions of several processes become one Google Benchmark run whose
// aggregates are recomputed over all of them.
#include "tools/src/results/gbench_merge.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "macro/common/usage_error.hpp"

namespace gatebench::tools {
namespace {

using nlohmann::json;

json row(const std::string& name, int rep, double cpu, double items) {
  return {{"name", name},
          {"family_index", 0},
          {"per_family_instance_index", 0},
          {"run_name", name},
          {"run_type", "iteration"},
          {"repetitions", 2},
          {"repetition_index", rep},
          {"threads", 1},
          {"iterations", 1000},
          {"real_time", cpu + 1},
          {"cpu_time", cpu},
          {"time_unit", "ns"},
          {"items_per_second", items}};
}

json aggregate(const std::string& name, const std::string& which, double cpu) {
  return {{"name", name + "_" + which}, {"run_name", name}, {"run_type", "aggregate"},
          {"aggregate_name", which},    {"real_time", cpu}, {"cpu_time", cpu},
          {"time_unit", "ns"}};
}

const json* find(const json& doc, const std::string& name) {
  for (const auto& r : doc["benchmarks"])
    if (r["name"] == name) return &r;
  return nullptr;
}

TEST(GbenchMerge, KeepsEveryRepetitionAndRecomputesAggregates) {
  const json a = {
      {"context", {{"host_name", "a"}}},
      {"benchmarks", {row("x", 0, 10, 100), row("x", 1, 12, 80), aggregate("x", "median", 11)}}};
  const json b = {{"context", {{"host_name", "b"}}},
                  {"benchmarks", {row("x", 0, 30, 30), row("x", 1, 14, 70)}}};
  const json m = merge_gbench_runs({a, b}, {"a.json", "b.json"});
  EXPECT_EQ(m["context"]["host_name"], "a");
  EXPECT_EQ(m["context"]["gatebench_processes"], 2);
  int iterations = 0;
  for (const auto& r : m["benchmarks"]) {
    if (r["run_type"] != "iteration") continue;
    EXPECT_EQ(r["repetition_index"], iterations);
    EXPECT_EQ(r["repetitions"], 4);
    ++iterations;
  }
  EXPECT_EQ(iterations, 4);
  const json* median = find(m, "x_median");
  ASSERT_NE(median, nullptr);
  EXPECT_DOUBLE_EQ((*median)["cpu_time"].get<double>(), 13.0);  // of 10 12 14 30, not 11
  EXPECT_DOUBLE_EQ((*median)["items_per_second"].get<double>(), 75.0);
  EXPECT_EQ((*median)["repetitions"], 4);
  const json* mean = find(m, "x_mean");
  ASSERT_NE(mean, nullptr);
  EXPECT_DOUBLE_EQ((*mean)["cpu_time"].get<double>(), 16.5);
  const json* stddev = find(m, "x_stddev");
  const json* cv = find(m, "x_cv");
  ASSERT_NE(stddev, nullptr);
  ASSERT_NE(cv, nullptr);
  const double sd = std::sqrt(251.0 / 3);  // sample stddev of 10 12 14 30 (mean 16.5)
  EXPECT_NEAR((*stddev)["cpu_time"].get<double>(), sd, 1e-9);
  EXPECT_NEAR((*cv)["cpu_time"].get<double>(), sd / 16.5, 1e-12);
  EXPECT_EQ((*cv)["aggregate_unit"], "percentage");
}

TEST(GbenchMerge, FailedBenchmarkGetsNoAggregates) {
  json failed = row("y", 0, 0, 0);
  failed["error_occurred"] = true;
  failed["error_message"] = "skipped: no data";
  const json m = merge_gbench_runs({{{"benchmarks", {failed}}}, {{"benchmarks", {failed}}}}, {});
  EXPECT_EQ(m["benchmarks"].size(), 2u);
  EXPECT_EQ(find(m, "y_median"), nullptr);
}

TEST(GbenchMerge, BadRunsNameTheFileAndField) {
  try {
    merge_gbench_runs({{{"context", json::object()}}}, {"p1.json"});
    FAIL() << "expected common::UsageError";
  } catch (const common::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("p1.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("benchmarks"), std::string::npos) << e.what();
  }
  try {
    merge_gbench_runs({{{"benchmarks", {{{"name", "z"}, {"run_type", "iteration"}}}}}},
                      {"p2.json"});
    FAIL() << "expected common::UsageError";
  } catch (const common::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("p2.json: /benchmarks/0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("run_name"), std::string::npos) << e.what();
  }
  EXPECT_THROW(merge_gbench_runs({}, {}), common::UsageError);
}

}  // namespace
}  // namespace gatebench::tools
