// Instruction mode and profile under callgrind, on the fixture benchmark (fixture_bench.cpp),
// plus the callgrind parser and the flame graph on a checked-in profile.
#include <gtest/gtest.h>

#include <filesystem>

#include "macro/common/child_process.hpp"
#include "tests/tools/tool_test_support.hpp"
#include "tools/src/profile/callgrind_profile.hpp"
#include "tools/src/profile/flamegraph.hpp"
#include "tools/src/results/json_file.hpp"
#include "tools/src/results/results.hpp"

namespace gatebench::tools {
namespace {

bool have_valgrind() {
  return !common::find_on_path("valgrind").empty();
}

TEST(CallgrindProfile, ParsesLoopDump) {
  const auto p = parse_callgrind(test::data("callgrind_loop.out"));
  EXPECT_EQ(p.event, "Ir");
  EXPECT_EQ(p.total, 2761008);
  const auto top = top_functions(p, false, 1);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].name, "BM_sum(benchmark::State&)");
  EXPECT_EQ(top[0].self, 2761008);
  // Two functions named "(below main)" (ld.so and libc) stay distinct: nothing exceeds 100%.
  for (const auto& f : top_functions(p, true, 100)) EXPECT_LE(f.inclusive, p.total) << f.name;
}

TEST(CallgrindProfile, MalformedFileNamesTheLine) {
  const auto dir = test::scratch_dir("callgrind-bad");
  const auto file = (dir / "bad.out").string();
  write_text_file(file, "events: Ir\n16 20\n");
  try {
    parse_callgrind(file);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), file + ":2: cost line before any fn=");
  }
  std::filesystem::remove_all(dir);
}

TEST(FlameGraph, DrawsTheStackWithWidthsByCost) {
  const auto p = parse_callgrind(test::data("callgrind_loop.out"));
  FlameGraphOptions opt;
  opt.title = "fixture";
  const std::string svg = flamegraph_svg(p, opt);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("<title>BM_sum(benchmark::State&amp;) (2,761,008 Ir, 100.0%)</title>"),
            std::string::npos);
  EXPECT_NE(svg.find("<title>main (2,761,008 Ir, 100.0%)</title>"), std::string::npos);
}

TEST(InstructionMode, DeterministicAndProportionalToWork) {
  if (!have_valgrind()) GTEST_SKIP() << "valgrind not installed";
  const auto dir = test::scratch_dir("instructions");
  const std::string out1 = (dir / "a.json").string(), out2 = (dir / "b.json").string();
  const std::string cmd = "micro --instructions --bench " + std::string(GATEBENCH_FIXTURE_BENCH) +
                          " --filter fixture/ --work-dir " + (dir / "work").string() + " --out ";
  ASSERT_EQ(test::run_gatebench(cmd + out1), 0);
  ASSERT_EQ(test::run_gatebench(cmd + out2), 0);
  const auto a = load_result_set(out1), b = load_result_set(out2);
  ASSERT_TRUE(a.instructions && b.instructions);
  const auto* once = a.instructions->find("fixture/gatecore/once");
  const auto* twice = a.instructions->find("fixture/gatecore/twice");
  ASSERT_TRUE(once && twice);
  EXPECT_TRUE(once->error.empty()) << once->error;
  // Deterministic: the same count in two runs.
  EXPECT_EQ(once->per_iteration, b.instructions->find("fixture/gatecore/once")->per_iteration);
  // Twice the rounds, twice the work, up to the per-iteration loop overhead.
  EXPECT_GT(once->per_iteration, 256 * 5);
  EXPECT_NEAR(twice->per_iteration / once->per_iteration, 2.0, 0.05);
  EXPECT_FALSE(a.instructions->find("fixture/peer/skipped")->error.empty());
  // Items per iteration from the native run: what a report divides by without --micro.
  const auto* batch = a.instructions->find("fixture/gatecore/batch_256");
  ASSERT_TRUE(batch);
  EXPECT_EQ(once->items_per_iteration, 1.0);
  EXPECT_EQ(batch->items_per_iteration, 256.0);
  EXPECT_NEAR(batch->per_iteration / once->per_iteration, 1.0, 0.05);
  EXPECT_FALSE(a.instructions->find("fixture/peer/skipped")->items_per_iteration);
  // The same file twice passes the gate; compare reads what micro wrote.
  EXPECT_EQ(test::run_gatebench("compare " + out1 + " " + out2), 0);
  std::filesystem::remove_all(dir);
}

TEST(Profile, WritesRawProfileTopListsAndFlameGraph) {
  if (!have_valgrind()) GTEST_SKIP() << "valgrind not installed";
  const auto dir = test::scratch_dir("profile");
  ASSERT_EQ(test::run_gatebench("profile fixture/gatecore/once --mode callgrind --runs 3 --bench " +
                                std::string(GATEBENCH_FIXTURE_BENCH) + " --out " + dir.string()),
            0);
  for (const char* f : {"callgrind.out", "top_self.txt", "top_inclusive.txt", "flamegraph.svg"})
    EXPECT_GT(std::filesystem::file_size(dir / f), 200u) << f;
  const std::string svg = read_text_file((dir / "flamegraph.svg").string());
  EXPECT_NE(svg.find("mix("), std::string::npos);  // the hot callee is a frame
  EXPECT_NE(read_text_file((dir / "top_self.txt").string()).find("mix("), std::string::npos);
  // A filter selecting several benchmarks is bad input.
  EXPECT_EQ(test::run_gatebench("profile fixture/ --mode callgrind --bench " +
                                std::string(GATEBENCH_FIXTURE_BENCH) + " --out " + dir.string()),
            2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::tools
