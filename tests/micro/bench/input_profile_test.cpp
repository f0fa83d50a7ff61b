// `gatebench profile FILTER --input KIND=FILE`: the option reaches the gatebench-micro that is
// listed and profiled (the row over the file exists only with it), and a bad file is exit 2
// before anything is profiled.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/micro/bench/micro_run.hpp"

namespace gatebench::bench::test {
namespace {

std::string profile_args(const std::filesystem::path& out) {
  return std::string(GATEBENCH_EXE) + " profile '^cidr/gatecore/input$' --bench " +
         GATEBENCH_MICRO_EXE + " --out " + out.string();
}

TEST(ProfileInput, ABadFileExitsTwoBeforeProfiling) {
  const auto dir = scratch_dir("profile-bad");
  write_text(dir / "bad.txt", "10.0.0.0/8\n10.0.0.0/33\n");
  const auto out = dir / "out";
  EXPECT_EQ(
      run_shell(profile_args(out) + " --input cidr=" + (dir / "bad.txt").string(), dir / "err.txt"),
      2);
  const std::string err = read_text(dir / "err.txt");
  EXPECT_NE(err.find((dir / "bad.txt").string() + ":2:"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
}

// Callgrind mode takes --input too (forwarded to the process under valgrind) and checks the
// files first: a bad one stops it with exit 2 and its line, before valgrind or any output.
TEST(ProfileInput, CallgrindModeChecksTheFileFirst) {
  const auto dir = scratch_dir("profile-callgrind");
  write_text(dir / "bad.txt", "10.0.0.0/8\n10.0.0.0/33\n");
  EXPECT_EQ(run_shell(profile_args(dir / "out") +
                          " --mode callgrind --input cidr=" + (dir / "bad.txt").string(),
                      dir / "err.txt"),
            2);
  const std::string err = read_text(dir / "err.txt");
  EXPECT_NE(err.find("bad.txt:2"), std::string::npos) << err;
  EXPECT_EQ(err.find("perf mode only"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  std::filesystem::remove_all(dir);
}

TEST(ProfileInput, PerfProfilesTheRowOverTheFile) {
  const auto dir = scratch_dir("profile-perf");
  if (run_shell("perf record -e cpu-clock -q -o " + (dir / "probe.data").string() + " -- true",
                dir / "probe.txt") != 0)
    GTEST_SKIP() << "perf record -e cpu-clock does not run here: " << read_text(dir / "probe.txt");
  std::string list;
  for (int i = 0; i < 2000; ++i)
    list += "10." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ".0/24\n";
  write_text(dir / "list.txt", list);
  const auto out = dir / "out";
  // Without the option forwarded to perf record, gatebench-micro would run no benchmark and the
  // profile would hold no sample of it (exit 1).
  ASSERT_EQ(
      run_shell(profile_args(out) + " --seconds 0.3 --input cidr=" + (dir / "list.txt").string(),
                dir / "err.txt"),
      0)
      << read_text(dir / "err.txt");
  const std::string svg = read_text(out / "flamegraph.svg");
  EXPECT_NE(svg.find("cidr/gatecore/input"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_GT(std::filesystem::file_size(out / "top_self.txt"), 100u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::bench::test
