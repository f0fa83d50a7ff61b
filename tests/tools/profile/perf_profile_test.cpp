// `gatebench profile` in perf mode: the perf script reader (stacks cut at the benchmark
// function), exact self/inclusive costs, the flame graph from stacks, and a real perf record of
// the fixture benchmark (skipped with the reason when perf cannot record here).
#include "tools/src/profile/perf_profile.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "macro/common/child_process.hpp"
#include "tests/tools/tool_test_support.hpp"
#include "tools/src/profile/flamegraph.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

// Three samples in the benchmark (two in sha, one in the benchmark function itself), one during
// dynamic loading (no Google Benchmark frame) and one in Google Benchmark's runner alone.
constexpr const char* kScript =
    "   1000000 cpu-clock: \n"
    "\t           a4fca sha (/b/gatebench-micro)\n"
    "\t           a4282 mac(int) const (/b/gatebench-micro)\n"
    "\t           42514 (anonymous namespace)::BM_admission (/b/gatebench-micro)\n"
    "\t           2d1dd [unknown] (/usr/lib/libbenchmark.so.1.7.1)\n"
    "\t           16a6b [unknown] (/usr/lib/libbenchmark.so.1.7.1)\n"
    "\tffffffffffffffff [unknown] ([unknown])\n"
    "\n"
    "   1000000 cpu-clock: \n"
    "\t           a4fcb sha (/b/gatebench-micro)\n"
    "\t           a4282 mac(int) const (/b/gatebench-micro)\n"
    "\t           42514 (anonymous namespace)::BM_admission (/b/gatebench-micro)\n"
    "\t           2d1dd [unknown] (/usr/lib/libbenchmark.so.1.7.1)\n"
    "\n"
    "   1000000 cpu-clock: \n"
    "\t           42515 (anonymous namespace)::BM_admission (/b/gatebench-micro)\n"
    "\t           2d1dd benchmark::internal::Run (/b/gatebench-micro)\n"
    "\t           11111 main (/b/gatebench-micro)\n"
    "\n"
    "   1000000 cpu-clock: \n"
    "\tffffffff81652b17 kmem_cache_alloc_noprof ([kernel.kallsyms])\n"
    "\t            8229 _dl_map_object (/usr/lib/ld-linux-x86-64.so.2)\n"
    "\n"
    "   1000000 cpu-clock: \n"
    "\t           2d1de [unknown] (/usr/lib/libbenchmark.so.1.7.1)\n";

TEST(PerfScript, KeepsTheBenchmarkFunctionAndWhatItCalls) {
  std::istringstream in(kScript);
  const PerfProfile p = parse_perf_script(in, "t.txt");
  EXPECT_EQ(p.stacks.event, "cpu-clock");
  EXPECT_EQ(p.kept, 3u);
  EXPECT_EQ(p.stacks.total, 3e6);
  EXPECT_EQ(p.left_out, 2e6);
  ASSERT_EQ(p.stacks.samples.size(), 3u);
  std::vector<std::string> first;
  for (const int f : p.stacks.samples[0].frames) first.push_back(p.stacks.names[f]);
  EXPECT_EQ(first, (std::vector<std::string>{"(anonymous namespace)::BM_admission",
                                             "mac(int) const", "sha"}));
  const auto self = top_functions(p.stacks, false, 10);
  EXPECT_EQ(self[0].name, "sha");
  EXPECT_EQ(self[0].self, 2e6);
  const auto incl = top_functions(p.stacks, true, 10);
  EXPECT_EQ(incl[0].name, "(anonymous namespace)::BM_admission");
  EXPECT_EQ(incl[0].inclusive, 3e6);
  EXPECT_EQ(incl[1].inclusive, 2e6);
}

TEST(PerfScript, UnknownSymbolsAreNamedByTheirLibrary) {
  std::istringstream in(
      "  5 cpu-clock: \n"
      "\t 1 [unknown] (/usr/lib/libcrypto.so.3)\n"
      "\t 2 BM_x (/b/gatebench-micro)\n"
      "\t 3 [unknown] (/usr/lib/libbenchmark.so.1.7.1)\n");
  const PerfProfile p = parse_perf_script(in, "t.txt");
  ASSERT_EQ(p.kept, 1u);
  EXPECT_EQ(p.stacks.names[p.stacks.samples[0].frames.back()], "[libcrypto.so.3]");
}

TEST(PerfScript, TextThatIsNotPerfScriptNamesTheLine) {
  std::istringstream frame_first("\t 1 f (/x)\n");
  EXPECT_THROW(
      {
        try {
          parse_perf_script(frame_first, "s.txt");
        } catch (const std::runtime_error& e) {
          EXPECT_EQ(std::string(e.what()), "s.txt:1: stack frame before a sample header");
          throw;
        }
      },
      std::runtime_error);
  std::istringstream no_event("  5 cpu-clock: \n\t 1 f (/x)\n\nhello world\n");
  try {
    parse_perf_script(no_event, "s.txt");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.txt:4: expected '<period> <event>:' (perf script -F event,period)");
  }
}

TEST(FlameGraph, FromStacksWidthsAreTheSamplesWeights) {
  std::istringstream in(kScript);
  const PerfProfile p = parse_perf_script(in, "t.txt");
  const std::string svg = flamegraph_svg(p.stacks, FlameGraphOptions{});
  EXPECT_NE(svg.find("<title>sha (2,000,000 cpu-clock, 66.7%)</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>(anonymous namespace)::BM_admission (3,000,000 cpu-clock, 100.0%)"),
            std::string::npos);
  EXPECT_EQ(svg.find("_dl_map_object"), std::string::npos);  // start-up is left out
}

// Why perf cannot record here, or empty when it can.
std::string perf_unavailable(const std::filesystem::path& dir) {
  const std::string perf = common::find_on_path("perf");
  if (perf.empty()) return "perf is not installed (linux-perf)";
  const std::string data = (dir / "probe.data").string();
  if (common::run_to_exit(
          common::command({perf, "record", "-e", "cpu-clock", "-q", "-o", data, "--", "true"},
                          "/dev/null", "/dev/null")) != 0)
    return "perf record -e cpu-clock fails here (perf_event_paranoid, container?)";
  return "";
}

TEST(Profile, PerfModeWritesTopListsAndAFlameGraphOfTheHotFunction) {
  const auto dir = test::scratch_dir("profile-perf");
  if (const auto why = perf_unavailable(dir); !why.empty()) GTEST_SKIP() << why;
  const auto out = dir / "out";
  ASSERT_EQ(test::run_gatebench("profile fixture/gatecore/twice --seconds 0.5 --bench " +
                                    std::string(GATEBENCH_FIXTURE_BENCH) + " --out " + out.string(),
                                (dir / "stdout.txt").string(), (dir / "stderr.txt").string()),
            0)
      << read_text_file((dir / "stderr.txt").string());
  for (const char* f : {"perf.data", "top_self.txt", "top_inclusive.txt", "flamegraph.svg"})
    EXPECT_GT(std::filesystem::file_size(out / f), 100u) << f;
  const std::string svg = read_text_file((out / "flamegraph.svg").string());
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  // The fixture's loop calls the noinline mix() 512 times an iteration: it is most of the
  // self cost, and the flame graph's root is the benchmark function, not main or ld.so.
  const std::string self = read_text_file((out / "top_self.txt").string());
  const auto first_row = self.substr(self.find('\n') + 1);
  EXPECT_NE(first_row.substr(0, first_row.find('\n')).find("::mix"), std::string::npos) << self;
  EXPECT_NE(svg.find("<title>(anonymous namespace)::sum ("), std::string::npos);
  EXPECT_EQ(svg.find("<title>main ("), std::string::npos);
  EXPECT_NE(read_text_file((dir / "stdout.txt").string()).find("top by self cost"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Profile, BadOptionsExitTwo) {
  const std::string bench = " --bench " + std::string(GATEBENCH_FIXTURE_BENCH);
  EXPECT_EQ(test::run_gatebench("profile fixture/gatecore/once --mode gprof" + bench), 2);
  EXPECT_EQ(test::run_gatebench("profile fixture/gatecore/once --runs 3" + bench), 2);
  EXPECT_EQ(
      test::run_gatebench("profile fixture/gatecore/once --mode callgrind --seconds 1" + bench), 2);
  EXPECT_EQ(test::run_gatebench("profile fixture/gatecore/once --seconds 0" + bench), 2);
  EXPECT_EQ(test::run_gatebench("profile fixture/ --seconds 0.1" + bench), 2);  // several match
  EXPECT_EQ(test::run_gatebench("profile --help"), 0);
}

}  // namespace
}  // namespace gatebench::tools
