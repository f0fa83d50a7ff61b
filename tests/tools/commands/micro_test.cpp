// `gatebench micro` time mode on the fixture benchmark: repetitions, random interleaving, two
// binaries alternating, output readable by compare; option errors exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/tools/tool_test_support.hpp"
#include "tools/src/results/json_file.hpp"
#include "tools/src/results/results.hpp"

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

// Two binaries: the processes must alternate A B A B ..., each side's file holding only its own
// binary's processes, merged. The second binary is a copy so the two sides are told apart.
TEST(MicroCli, TwoBinariesAlternateProcessesAndWriteOneMergedFileEach) {
  const auto dir = test::scratch_dir("micro-alternate");
  const auto base_bin = (dir / "base-bench").string(), head_bin = (dir / "head-bench").string();
  std::filesystem::copy_file(GATEBENCH_FIXTURE_BENCH, base_bin);
  std::filesystem::copy_file(GATEBENCH_FIXTURE_BENCH, head_bin);
  const auto base = (dir / "base.json").string(), head = (dir / "head.json").string();
  const auto log = (dir / "log.txt").string();
  ASSERT_EQ(test::run_gatebench("micro --bench " + base_bin + " --bench " + head_bin +
                                    " --filter fixture/gatecore/once --out " + base + " --out " +
                                    head + " -- --benchmark_min_time=0.001",
                                "/dev/null", log),
            0);
  const auto b = load_json_file(base), h = load_json_file(head);
  EXPECT_EQ(b["context"]["gatebench_bench"], base_bin);
  EXPECT_EQ(h["context"]["gatebench_bench"], head_bin);
  const auto bs = b["context"]["gatebench_process_start_us"].get<std::vector<long long>>();
  const auto hs = h["context"]["gatebench_process_start_us"].get<std::vector<long long>>();
  ASSERT_EQ(bs.size(), 9u);
  ASSERT_EQ(hs.size(), 9u);
  for (std::size_t i = 0; i < bs.size(); ++i) {
    EXPECT_LT(bs[i], hs[i]) << "process " << i;
    if (i + 1 < bs.size()) {
      EXPECT_LT(hs[i], bs[i + 1]) << "process " << i;
    }
  }
  // The runner's log names the binary of every process, in the order they ran.
  const std::string text = read_text_file(log);
  std::vector<std::string> order;
  for (std::size_t at = 0;;) {
    const auto b_at = text.find(" of " + base_bin, at);
    const auto h_at = text.find(" of " + head_bin, at);
    if (b_at == std::string::npos && h_at == std::string::npos) break;
    order.push_back(b_at < h_at ? "B" : "H");
    at = std::min(b_at, h_at) + 1;
  }
  EXPECT_EQ(order, (std::vector<std::string>{"B", "H", "B", "H", "B", "H", "B", "H", "B", "H", "B",
                                             "H", "B", "H", "B", "H", "B", "H"}));
  for (const auto* file : {&base, &head}) {
    const auto set = parse_result_set(load_json_file(*file), *file);
    ASSERT_TRUE(set.micro);
    const auto* once = set.micro->find("fixture/gatecore/once");
    ASSERT_NE(once, nullptr) << *file;
    EXPECT_EQ(once->cpu_ns.size(), 9u) << *file;
  }
  EXPECT_EQ(b["context"]["gatebench_processes"], 9);
  // Only the two merged files (and the binaries and the log) are left.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 5);
  EXPECT_EQ(test::run_gatebench("compare " + base + " " + head + " --min-change 50%"), 0);
  std::filesystem::remove_all(dir);
}

TEST(MicroCli, AFailingSecondBinaryExitsOneAndWritesNeitherFile) {
  const auto dir = test::scratch_dir("micro-alternate-fail");
  const auto base = (dir / "base.json").string(), head = (dir / "head.json").string();
  EXPECT_EQ(test::run_gatebench("micro --bench " + std::string(GATEBENCH_FIXTURE_BENCH) +
                                " --bench /bin/false --filter fixture/gatecore/once --out " + base +
                                " --out " + head + " -- --benchmark_min_time=0.001"),
            1);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 0);
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
  // Two binaries need two outputs, distinct; instruction mode takes one binary.
  EXPECT_EQ(test::run_gatebench("micro" + bench + bench + " --out a.json"), 2);
  EXPECT_EQ(test::run_gatebench("micro" + bench + bench + " --out a.json --out a.json"), 2);
  EXPECT_EQ(test::run_gatebench("micro" + bench + " --out a.json --out b.json"), 2);
  EXPECT_EQ(test::run_gatebench("micro --instructions" + bench + bench), 2);
  EXPECT_EQ(test::run_gatebench("micro --help"), 0);
}

}  // namespace
}  // namespace gatebench::tools
