#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "driver_exe.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using testing::exit_code;
using testing::processes_mentioning;
using testing::run_driver;
using testing::unique_dir;

TEST(Cli, HelpExitsZero) {
  CaptureResult r = run_driver({"--help"});
  EXPECT_EQ(exit_code(r), 0);
  EXPECT_NE(r.output.find("--dry-run"), std::string::npos);
  EXPECT_NE(r.output.find("--runtime"), std::string::npos);
}

TEST(Cli, BadOptionsExitTwo) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--duration", "soon"},
                                                                {"--connections", "0"},
                                                                {"--load", "ab"},
                                                                {"--runtime", "lxc"},
                                                                {"--gateway-cpus", "3-1"},
                                                                {"--gateway-cpus", "4000"},
                                                                {"--scenarios", "no-such-scenario"},
                                                                {"--bogus"}}) {
    CaptureResult r = run_driver(args);
    EXPECT_EQ(exit_code(r), 2) << args[0] << ": " << r.output;
    EXPECT_NE(r.output.find("gatebench-macro: "), std::string::npos) << r.output;
  }
}

TEST(Cli, BadScenarioFileFailsBeforeAnythingStarts) {
  const std::string dir = unique_dir("bad-scenario");
  const std::string out = dir + "/out";
  fs::create_directories(dir + "/configs");
  std::ofstream(dir + "/broken.json") << R"({"name": "broken", "description": "d",
    "ports": {"backend": 18080},
    "services": [{"name": "backend", "role": "backend", "binary": "nginx",
                  "ready": {"port": "backend", "timeout_s": -1}}],
    "load": {"port": "backend"}})";
  CaptureResult r = run_driver({"--scenario-dir", dir, "--out", out});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find(dir + "/broken.json: /services/0/ready/timeout_s: expected a number"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

TEST(Cli, TemplateErrorFailsBeforeAnythingStarts) {
  const std::string dir = unique_dir("bad-template");
  const std::string out = dir + "/out";
  fs::create_directories(dir + "/configs");
  std::ofstream(dir + "/configs/b.conf") << "listen ${port.backend};\nroot ${nowhere};\n";
  std::ofstream(dir + "/t.json") << R"({"name": "t", "description": "d",
    "ports": {"backend": 18080},
    "services": [{"name": "backend", "role": "backend", "binary": "nginx",
                  "configs": [{"template": "b.conf", "output": "b.conf"}],
                  "ready": {"port": "backend"}}],
    "load": {"port": "backend"}})";
  CaptureResult r = run_driver({"--scenario-dir", dir, "--out", out});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find(dir + "/t.json: /services/0/configs/0/template b.conf:2: unknown "
                                "variable ${nowhere}"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

TEST(Cli, DryRunPrintsThePlanAndStartsNothing) {
  const std::string out = unique_dir("dry-run");
  CaptureResult r = run_driver({"--dry-run", "--out", out, "--port-offset", "7", "--load", "wrk",
                                "--scenarios", "direct,nginx-baseline,nginx-https-newconn"});
  EXPECT_EQ(exit_code(r), 0) << r.output;
  EXPECT_NE(r.output.find("scenario nginx-baseline"), std::string::npos);
  EXPECT_NE(r.output.find("backend=18087"), std::string::npos) << r.output;  // offset applied
  EXPECT_NE(r.output.find("-c " + out + "/round-1/nginx-baseline/proxy.conf"), std::string::npos);
  EXPECT_NE(r.output.find("--latency"), std::string::npos);
  EXPECT_NE(r.output.find("'Connection: close'"), std::string::npos);
  EXPECT_NE(r.output.find("prepare  tls-cert"), std::string::npos);
  EXPECT_NE(r.output.find("pinning"), std::string::npos);
  // Five rounds by default, each order printed; nginx-https-newconn is its own baseline.
  EXPECT_NE(r.output.find("5 round(s), seed 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  round 5:"), std::string::npos) << r.output;
  // The estimate gatebench run reads: at most 3 scenarios x 5 rounds x (5 s + 20 s + start-up).
  const auto at = r.output.find("  estimated ");
  ASSERT_NE(at, std::string::npos) << r.output;
  const double estimate = std::stod(r.output.substr(at + 12));
  EXPECT_GT(estimate, 0) << r.output;
  EXPECT_LT(estimate, 3 * 5 * 35) << r.output;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(processes_mentioning(out).empty());
}

// The run's estimate for a fixed plan (system/progress.hpp's model, printed by the dry run and
// read by gatebench run): per scenario run 0.05 s, the warm-up and measured time, 0.06 s per load
// run and 0.05 s per service; 0.3 s for the driver itself.
TEST(Cli, DryRunEstimatesEachRunFromItsShape) {
  const std::string out = unique_dir("dry-estimate");
  // direct (one service) and its baseline nginx-baseline (two), 1 s warm-up + 2 s measured:
  // 0.3 + (0.05 + 3 + 2 x 0.06 + 0.05) + (0.05 + 3 + 2 x 0.06 + 2 x 0.05) = 6.79 s.
  CaptureResult r =
      run_driver({"--dry-run", "--quick", "--rounds", "1", "--out", out, "--scenarios", "direct"});
  EXPECT_EQ(exit_code(r), 0) << r.output;
  EXPECT_NE(r.output.find("\n  estimated 6.8 s (7 s): 2 scenarios x 1 rounds\n"), std::string::npos)
      << r.output;
  // Three rounds, three times as long but for the driver's own 0.3 s.
  r = run_driver({"--dry-run", "--quick", "--rounds", "3", "--out", out, "--scenarios", "direct"});
  EXPECT_NE(r.output.find("\n  estimated 19.8 s (20 s): 2 scenarios x 3 rounds\n"),
            std::string::npos)
      << r.output;
  // A search measures exactly 12 load runs (measure/search.hpp), each 2 s, after the warm-up:
  // max-throughput/direct 0.05 + 1 + 24 + 13 x 0.06 + 0.05 = 25.88 s, its baseline
  // max-throughput/nginx-baseline 25.93 s, and the driver's 0.3 s.
  r = run_driver({"--dry-run", "--quick", "--rounds", "1", "--out", out, "--scenarios",
                  "max-throughput/direct"});
  EXPECT_EQ(exit_code(r), 0) << r.output;
  EXPECT_NE(r.output.find("\n  estimated 52.1 s (52 s): 2 scenarios x 1 rounds\n"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(Cli, RoundsSeedAndErrorRateAreValidated) {
  for (const auto& [option, value] :
       std::vector<std::pair<std::string, std::string>>{{"--rounds", "0"},
                                                        {"--rounds", "x"},
                                                        {"--seed", "-1"},
                                                        {"--max-error-rate", "2%x"},
                                                        {"--max-error-rate", "1.5"},
                                                        {"--max-error-rate", "101%"}}) {
    CaptureResult r = run_driver({"--dry-run", option, value});
    EXPECT_EQ(exit_code(r), 2) << option << " " << value << ": " << r.output;
    EXPECT_NE(r.output.find(option + ":"), std::string::npos) << r.output;
  }
}

TEST(Cli, DetectChoosesTheRoundsAndSaysWhatTheyTake) {
  const std::string out = unique_dir("dry-detect");
  CaptureResult r = run_driver(
      {"--dry-run", "--quick", "--detect", "10%", "--out", out, "--scenarios", "gateway-default"});
  EXPECT_EQ(exit_code(r), 0) << r.output;
  // macro/common/detectable.hpp's worked case: 10% seen as 7.5% at 4.7% per round.
  EXPECT_NE(r.output.find("--detect 10%: 22 rounds per side; gate with gatebench compare "
                          "--cpu-threshold 4.6%"),
            std::string::npos)
      << r.output;
  // gateway-default (three services, a TLS certificate: 3.34 s a run) and its baseline (two
  // services: 3.27 s), 22 rounds as the run's estimate counts them, and the driver's 0.3 s.
  EXPECT_NE(r.output.find("2 scenario runs x 22 rounds x 3.3 s = about 2.4 min"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("22 round(s), seed 1"), std::string::npos) << r.output;
  // A change the default line and compare's 5 rounds already catch.
  r = run_driver(
      {"--dry-run", "--quick", "--detect", "20", "--out", out, "--scenarios", "gateway-default"});
  EXPECT_EQ(exit_code(r), 0) << r.output;
  EXPECT_NE(r.output.find("--detect 20%: 5 rounds per side; gate with gatebench compare "
                          "--cpu-threshold 5.0%.\n"),
            std::string::npos)
      << r.output;
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--detect", "0"},
                                             {"--detect", "100%"},
                                             {"--detect", "ten"},
                                             {"--detect", "10%", "--rounds", "5"},
                                             {"--detect", "10%", "--instructions", "200"},
                                             {"--detect", "0.01%"}}) {
    std::vector<std::string> argv = {"--dry-run"};
    argv.insert(argv.end(), args.begin(), args.end());
    r = run_driver(argv);
    EXPECT_EQ(exit_code(r), 2) << args[1] << ": " << r.output;
    EXPECT_NE(r.output.find("--detect"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST(Cli, ABaselineIsAddedToTheSelection) {
  const std::string out = unique_dir("dry-baseline");
  CaptureResult r = run_driver(
      {"--dry-run", "--rounds", "2", "--out", out, "--scenarios", "gateway-https-keepalive"});
  EXPECT_EQ(exit_code(r), 0) << r.output;
  // HTTPS is measured against nginx over HTTPS, which runs in every round with it.
  EXPECT_NE(r.output.find("scenario nginx-https-keepalive"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("scenario nginx-baseline"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  round 2:"), std::string::npos) << r.output;
}

TEST(Cli, ListNamesEveryShippedScenario) {
  CaptureResult r = run_driver({"--list"});
  EXPECT_EQ(exit_code(r), 0);
  for (const char* name :
       {"direct", "nginx-baseline", "haproxy-baseline", "caddy-baseline", "nginx-https-keepalive",
        "nginx-https-newconn", "haproxy-https-keepalive", "haproxy-https-newconn",
        "latency-at-rate/direct", "max-throughput/nginx-baseline"}) {
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace gatebench::macro
