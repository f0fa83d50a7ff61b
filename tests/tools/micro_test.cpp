// `gatebench micro` time mode on the fixture benchmark: repetitions, random interleaving, output
// readable by compare; option errors exit 2.
#include <gtest/gtest.h>

#include <filesystem>

#include "tool_test_support.hpp"
#include "tools/src/json_file.hpp"
#include "tools/src/results.hpp"

namespace gatebench::tools {
namespace {

TEST(MicroCli, TimeModeWritesNineRepetitionsWithRandomInterleaving) {
  const auto dir = test::scratch_dir("micro-time");
  const auto out = (dir / "micro.json").string();
  ASSERT_EQ(test::run_gatebench("micro --bench " + std::string(GATEBENCH_FIXTURE_BENCH) +
                                " --filter fixture/gatecore/once --out " + out +
                                " -- --benchmark_min_time=0.001"),
            0);
  const auto doc = load_json_file(out);
  const auto set = parse_result_set(doc, out);
  ASSERT_TRUE(set.micro);
  const auto* b = set.micro->find("fixture/gatecore/once");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->cpu_ns.size(), 9u);
  EXPECT_EQ(set.micro->find("fixture/gatecore/twice"), nullptr);  // filtered out
  // Google Benchmark records the flag in the per-run rows' run order; the context has no flag,
  // so check the repetition fields instead.
  EXPECT_EQ(doc["benchmarks"][0]["repetitions"], 9);
  EXPECT_EQ(test::run_gatebench("compare " + out + " " + out), 0);
  std::filesystem::remove_all(dir);
}

TEST(MicroCli, RepetitionsSpreadOverProcessesAreMergedIntoOneRun) {
  const auto dir = test::scratch_dir("micro-processes");
  const auto out = (dir / "micro.json").string();
  ASSERT_EQ(test::run_gatebench("micro --bench " + std::string(GATEBENCH_FIXTURE_BENCH) +
                                " --filter fixture/gatecore/once --repetitions 10 --processes 4"
                                " --out " +
                                out + " -- --benchmark_min_time=0.001"),
            0);
  const auto doc = load_json_file(out);
  EXPECT_EQ(doc["context"]["gatebench_processes"], 4);
  std::vector<int> indexes;
  for (const auto& row : doc["benchmarks"])
    if (row["run_type"] == "iteration") indexes.push_back(row["repetition_index"].get<int>());
  EXPECT_EQ(indexes, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  // The part files of the four processes are gone; only the merged run is left.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  std::filesystem::remove_all(dir);
}

TEST(MicroCli, AFailedRunExitsOneAndWritesNothing) {
  const auto dir = test::scratch_dir("micro-processes-fail");
  const auto out = (dir / "micro.json").string();
  // Google Benchmark exits 1 on a flag it does not know.
  EXPECT_EQ(test::run_gatebench("micro --bench " + std::string(GATEBENCH_FIXTURE_BENCH) +
                                " --filter fixture/gatecore/once --out " + out +
                                " -- --benchmark_no_such_flag=1"),
            1);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 0);
  std::filesystem::remove_all(dir);
}

TEST(MicroCli, BadOptionsExitTwo) {
  const std::string bench = " --bench " + std::string(GATEBENCH_FIXTURE_BENCH);
  EXPECT_EQ(test::run_gatebench("micro --repetitions 5" + bench), 2);
  EXPECT_EQ(test::run_gatebench("micro --processes 0" + bench), 2);
  EXPECT_EQ(test::run_gatebench("micro --processes 10" + bench), 2);  // more than repetitions
  EXPECT_EQ(test::run_gatebench("micro --bench /nonexistent/gatebench-micro"), 2);
  EXPECT_EQ(test::run_gatebench("micro --no-such-option" + bench), 2);
  EXPECT_EQ(test::run_gatebench("micro stray" + bench), 2);
  EXPECT_EQ(test::run_gatebench("micro --help"), 0);
}

}  // namespace
}  // namespace gatebench::tools
