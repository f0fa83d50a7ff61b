// `gatebench profile --scenario`: gatebench-macro runs a shipped scenario once with its
// gateway-role services under a real perf record (--gateway-wrapper), and the profile of the
// reference gateway's processes comes out as the micro profile's files (top tables, flame
// graph), with nothing left running; the options are checked before anything starts.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>

#include "driver_exe.hpp"
#include "macro/driver/results/run_support.hpp"
#include "port_offset.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::exit_code;
using testing::processes_mentioning;
using testing::run_driver;
using testing::unique_dir;

std::string read_file(const fs::path& p) {
  return read_text(p.string());
}

CaptureResult run_tool(const std::vector<std::string>& args, std::chrono::milliseconds limit) {
  return run_capture(GATEBENCH_TOOL_EXE, args, limit);
}

TEST(ScenarioProfile, SamplesTheGatewayWhileTheScenarioLoadRuns) {
  const std::string out = unique_dir("scenario-profile");
  fs::remove_all(out);
  const CaptureResult r =
      run_tool({"profile", "--scenario", "gateway-default", "--seconds", "1", "--warmup", "300ms",
                "--connections", "4", "--port-offset", std::to_string(testing::port_offset()),
                "--out", out, "--top", "5"},
               180s);
  ASSERT_EQ(exit_code(r), 0) << r.output << r.errors << read_file(fs::path(out) / "macro.log");
  // One gateway-role service: the reference gateway, its threads under one perf record.
  EXPECT_TRUE(fs::exists(fs::path(out) / "perf.gateway-default.gateway.data")) << r.output;
  for (const char* f : {"top_self.txt", "top_inclusive.txt", "flamegraph.svg"})
    EXPECT_GT(fs::file_size(fs::path(out) / f), 100u) << f;
  // The load ran and the gateway's own code is in the profile, not only start-up: its event
  // loop holds samples; the load, the backend and the control plane are not sampled.
  const std::string incl = read_file(fs::path(out) / "top_inclusive.txt");
  EXPECT_NE(incl.find("gatebench::gateway::WorkerLoop::"), std::string::npos) << incl;
  EXPECT_EQ(incl.find("gatebench::load::"), std::string::npos) << incl;
  const std::string svg = read_file(fs::path(out) / "flamegraph.svg");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("gateway-default"), std::string::npos);
  EXPECT_NE(r.output.find("top by self cost"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gateway-default (ok"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(fs::path(out) / "macro" / "macro.json"));
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

TEST(ScenarioProfile, BadOptionsExitTwoBeforeAnythingStarts) {
  const std::string out = unique_dir("scenario-profile-bad");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"profile", "--scenario", "gateway-default", "some/filter"},
        {"profile", "--scenario", "gateway-default", "--mode", "callgrind"},
        {"profile", "--scenario", "gateway-default", "--runs", "3"},
        {"profile", "--scenario", "gateway-default", "--seconds", "0"},
        {"profile", "some/filter", "--warmup", "1s"},
        {"profile", "--scenario", "gateway-default", "--out", out + "/with space"}}) {
    const CaptureResult r = run_tool(args, 30s);
    EXPECT_EQ(exit_code(r), 2) << args[args.size() - 1] << ": " << r.output << r.errors;
  }
  EXPECT_FALSE(fs::exists(out + "/with space/macro"));
  fs::remove_all(out);
  // The driver's option itself.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--gateway-wrapper", "perf record --", "--instructions", "10"},
        {"--gateway-wrapper", "perf record --", "--runtime", "podman"},
        {"--gateway-wrapper", " "}}) {
    const CaptureResult r = run_driver(args, 30s);
    EXPECT_EQ(exit_code(r), 2) << args[1] << ": " << r.output << r.errors;
  }
}

// The plan names the wrapper before the gateway's own command, and only for gateway-role
// services; baselines are not added to a wrapped run.
TEST(ScenarioProfile, TheWrapperPrefixesOnlyTheGatewayRole) {
  const CaptureResult r =
      run_driver({"--dry-run", "--scenarios", "gateway-default", "--rounds", "1",
                  "--gateway-wrapper", "echo {scenario}.{service}.data --"},
                 30s);
  ASSERT_EQ(exit_code(r), 0) << r.output << r.errors;
  EXPECT_NE(r.output.find("echo gateway-default.gateway.data -- "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("echo gateway-default.backend"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("nginx-baseline"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gatebench::macro
