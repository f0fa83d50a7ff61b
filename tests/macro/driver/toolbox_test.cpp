// What the driver learns from gatebench-load --capabilities (system/toolbox.*) and what make_plans
// decides from it: the built binary states its options; a binary that states nothing, or lacks
// an option a scenario needs, skips that scenario with the reason.
#include "macro/driver/system/toolbox.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/plan/scenario.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;

TEST(ToolboxCapabilities, TheBuiltLoadGeneratorStatesItsOptions) {
  const Toolbox tools;
  // Built with the driver's tests (tests/macro/driver/CMakeLists.txt), found in the build tree.
  ASSERT_TRUE(tools.find("gatebench-load"));
  const auto caps = tools.capabilities("gatebench-load");
  ASSERT_TRUE(caps);
  for (const char* name : {"rate", "requests", "h2", "count-header"}) EXPECT_TRUE(caps->has(name));
}

// A directory of stand-in gatebench binaries: shell scripts that print what a test wants.
class FakeBinaries : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("gb-toolbox-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // The scenario's one service; make_plans only needs it to exist.
    write("gatebench-gateway", "exit 0");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& body) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
  }

  // The skip reason make_plans gives an open-loop scenario with the load generator in dir_.
  std::string rate_scenario_skip_reason() const {
    const Scenario s = parse_scenario(R"({"name": "r", "description": "d",
      "ports": {"proxy": 18081},
      "services": [{"name": "proxy", "role": "gateway", "binary": "gatebench-gateway",
                    "ready": {"port": "proxy"}}],
      "load": {"port": "proxy", "mode": "rate", "rate": 100}})",
                                      "r.json");
    const Toolbox tools(dir_.string());
    const auto plans = make_plans({s}, Options{}, CpuLayout{}, tools, (dir_ / "configs").string(),
                                  (dir_ / "out").string());
    return plans.at(0).skip_reason;
  }

  fs::path dir_;
};

TEST_F(FakeBinaries, AnOlderLoadGeneratorStatesNothingAndItsScenariosAreSkipped) {
  write("gatebench-load", "echo \"gatebench-load: unknown option '$1'\" >&2; exit 2");
  const Toolbox tools(dir_.string());
  EXPECT_EQ(tools.find("gatebench-load"), (dir_ / "gatebench-load").string());
  EXPECT_FALSE(tools.capabilities("gatebench-load"));
  EXPECT_EQ(rate_scenario_skip_reason(),
            "gatebench-load --capabilities printed no gatebench.load_capabilities/1 (a "
            "gatebench-load older than this driver? rebuild it)");
}

TEST_F(FakeBinaries, AScenarioNeedingAMissingOptionIsSkipped) {
  write("gatebench-load",
        R"(echo '{"options":["h2","requests"],"schema":"gatebench.load_capabilities/1"}')");
  EXPECT_EQ(rate_scenario_skip_reason(), "gatebench-load has no --rate");
  write("gatebench-load",
        R"(echo '{"options":["rate"],"schema":"gatebench.load_capabilities/1"}')");
  EXPECT_EQ(rate_scenario_skip_reason(), "");
}

// Load threads: --threads first, then the scenario's `threads`, then one per load CPU (1 unpinned).
TEST_F(FakeBinaries, LoadThreadsFromTheRunTheScenarioOrTheCpus) {
  write("gatebench-load", R"(echo '{"options":[],"schema":"gatebench.load_capabilities/1"}')");
  auto threads = [&](const std::string& load, int option) {
    const Scenario s = parse_scenario(R"({"name": "t", "description": "d",
      "ports": {"proxy": 18081},
      "services": [{"name": "proxy", "role": "gateway", "binary": "gatebench-gateway",
                    "ready": {"port": "proxy"}}],
      "load": )" + load + "}",
                                      "t.json");
    Options options;
    options.threads = option;
    const auto plans = make_plans({s}, options, CpuLayout{}, Toolbox(dir_.string()),
                                  (dir_ / "configs").string(), (dir_ / "out").string());
    return plans.at(0).load.threads;
  };
  EXPECT_EQ(threads(R"({"port": "proxy"})", 0), 1);
  EXPECT_EQ(threads(R"({"port": "proxy", "threads": 2})", 0), 2);
  EXPECT_EQ(threads(R"({"port": "proxy", "threads": 2})", 3), 3);
}

TEST_F(FakeBinaries, AMissingToolStatesNothing) {
  EXPECT_FALSE(Toolbox(dir_.string()).capabilities("gatebench-nothing"));
}

}  // namespace
}  // namespace gatebench::macro
