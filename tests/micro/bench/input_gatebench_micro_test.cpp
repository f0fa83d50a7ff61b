// `gatebench micro --input KIND=FILE`: the option reaches every gatebench-micro process, the merged
// micro.json keeps the input's context, and a bad file stops the run with exit 2 before it starts.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/micro/bench/micro_run.hpp"

namespace gatebench::bench::test {
namespace {

int run_gatebench(const std::string& args, const std::filesystem::path& err) {
  return run_shell(std::string(GATEBENCH_EXE) + " " + args, err);
}

std::string micro_args(const std::filesystem::path& out) {
  return "micro --bench " + std::string(GATEBENCH_MICRO_EXE) +
         " --filter '^cidr/gatecore/input$' --repetitions 9 --processes 3 --out " + out.string();
}

TEST(GatebenchMicroInput, ReachesEveryProcessAndKeepsTheContext) {
  const auto dir = scratch_dir("gatebench-micro");
  const std::string list = "10.0.0.0/8\n192.168.1.0/24\n203.0.113.7\n";
  write_text(dir / "list.txt", list);
  const auto out = dir / "micro.json";
  ASSERT_EQ(run_gatebench(micro_args(out) + " --input cidr=" + (dir / "list.txt").string() +
                              " -- --benchmark_min_time=0.001",
                          dir / "err.txt"),
            0)
      << read_text(dir / "err.txt");
  const auto json = nlohmann::json::parse(read_text(out));
  EXPECT_EQ(json.at("context").at("gatebench_input_cidr_path"), (dir / "list.txt").string());
  EXPECT_EQ(json.at("context").at("gatebench_input_cidr_sha256"), sha256_hex(list));
  int repetitions = 0;
  for (const auto& b : json.at("benchmarks"))
    if (b.at("name") == "cidr/gatecore/input" && b.value("run_type", "") == "iteration")
      ++repetitions;
  EXPECT_EQ(repetitions, 9);
  std::filesystem::remove_all(dir);
}

TEST(GatebenchMicroInput, ABadFileExitsTwoAndWritesNothing) {
  const auto dir = scratch_dir("gatebench-micro-bad");
  write_text(dir / "bad.txt", "10.0.0.0/8\nnot-an-address\n");
  const auto out = dir / "micro.json";
  EXPECT_EQ(run_gatebench(micro_args(out) + " --input cidr=" + (dir / "bad.txt").string(),
                          dir / "err.txt"),
            2);
  const std::string err = read_text(dir / "err.txt");
  EXPECT_NE(err.find((dir / "bad.txt").string() + ":2:"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(
      run_gatebench(micro_args(out) + " --instructions --input cidr=" + (dir / "bad.txt").string(),
                    dir / "err2.txt"),
      2);
  EXPECT_NE(read_text(dir / "err2.txt").find("--input is time mode only"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::bench::test
