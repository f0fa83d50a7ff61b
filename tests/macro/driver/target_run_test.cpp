// --target, --workloads and `target check` through the real executable: bad input is exit 2 with
// nothing started or written, the shipped gateway target runs beside its nginx baselines, and
// `target check` answers every feature of the gateway.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "driver_exe.hpp"
#include "macro/driver/system/net_probe.hpp"
#include "macro/driver/system/toolbox.hpp"
#include "port_offset.hpp"
#include "target_check.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::exit_code;
using testing::processes_mentioning;
using testing::run_driver;
using testing::unique_dir;

std::string write_target(const std::string& dir, const std::string& text) {
  fs::create_directories(dir);
  const std::string file = dir + "/mygw.json";
  std::ofstream(file) << text;
  return file;
}

TEST(TargetRun, BadInputIsExit2AndStartsNothing) {
  const std::string dir = unique_dir("target-bad");
  fs::remove_all(dir);
  const std::string file = write_target(dir, R"({"name": "mygw", "description": "d",
    "binary": "nginx", "ports": {"http": 18081}, "features": {"plain": {}, "h3": {}}})");
  const std::string out = dir + "/out";
  CaptureResult r = run_driver({"--target", file, "--out", out, "--rounds", "1"});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find(file + ": /features/h3: no workload needs feature 'h3'"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
  r = run_driver({"target", "check", file, "--out", out});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find("/features/h3: no workload needs feature 'h3'"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
  r = run_driver({"--target", "nginx", "--workloads", "plain,quic", "--out", out});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find("--workloads: no workload named 'quic'"), std::string::npos) << r.output;
  r = run_driver({"--workloads", "plain", "--out", out});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find("--workloads: needs --target"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

// An image target: under the process runtime, and with an image that is not on this machine
// (nothing is ever pulled), exit 2 naming the file and /image, before anything starts.
TEST(TargetRun, ImageTargetErrorsAreExit2AndStartNothing) {
  const std::string dir = unique_dir("target-image-bad");
  fs::remove_all(dir);
  const std::string absent = "localhost/gatebench-absent-" + std::to_string(getpid()) + ":none";
  const std::string file = write_target(dir, R"({"name": "mygw", "description": "d",
    "image": ")" + absent + R"(", "ports": {"http": 18081}, "features": {"plain": {}}})");
  const std::string out = dir + "/out";
  const std::string offset = std::to_string(testing::port_offset());
  const std::string native =
      file + ": /image: image '" + absent +
      "' runs only with --runtime podman or docker (this run: " + "--runtime process)";
  CaptureResult r = run_driver({"--target", file, "--port-offset", offset, "--out", out});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find(native), std::string::npos) << r.output;
  r = run_driver({"target", "check", file, "--port-offset", offset, "--out", out});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find(native), std::string::npos) << r.output;
  r = run_driver({"--target", file, "--runtime", "kube", "--port-offset", offset, "--out", out});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find(file + ": /image: "), std::string::npos) << r.output;
  // ci/setup installs podman: the engine is asked, and says the image is not here.
  const std::string missing = file + ": /image: no image '" + absent + "' on this machine";
  r = run_driver({"--target", file, "--runtime", "podman", "--port-offset", offset, "--out", out});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find(missing), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("never pulls"), std::string::npos) << r.output;
  r = run_driver(
      {"target", "check", file, "--runtime", "podman", "--port-offset", offset, "--out", out});
  EXPECT_EQ(exit_code(r), 2) << r.output;
  EXPECT_NE(r.output.find(missing), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(processes_mentioning(dir).empty());
  fs::remove_all(dir);
}

TEST(TargetRun, DryRunShowsTheBaselinesAndTheSkippedWorkloads) {
  const std::string dir = unique_dir("target-dry");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/p.conf") << "${port.http}\n";
  const std::string file = write_target(dir, R"({"name": "mygw", "description": "d",
    "binary": "nginx", "args": ["-c", "${run_dir}/p.conf"],
    "configs": [{"template": "p.conf", "output": "p.conf"}],
    "ports": {"http": 18081}, "features": {"plain": {}}})");
  CaptureResult r = run_driver({"--dry-run", "--target", file, "--workloads", "plain,h2",
                                "--rounds", "1", "--out", dir + "/out"});
  EXPECT_EQ(exit_code(r), 0) << r.output;
  for (const char* want : {"scenario mygw-plain", "scenario nginx-plain", "scenario mygw-h2",
                           "skipped: mygw does not offer feature 'h2' (workload h2)"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  // A skipped workload brings no baseline to run for nothing.
  EXPECT_EQ(r.output.find("scenario nginx-h2"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

bool ready_to_run(int offset = testing::port_offset()) {
  Toolbox tools;
  for (const char* tool :
       {"nginx", "openssl", "curl", "gatebench-load", "gatebench-gateway", "gatebench-control"})
    if (!tools.find(tool)) return false;
  for (int port : {18080, 18081, 18443, 18101, 18102})
    if (!port_free(port + offset)) return false;
  return true;
}

TEST(TargetRun, GatewayTargetRunsBesideItsNginxBaselines) {
  if (!ready_to_run()) GTEST_SKIP() << "skipped: a tool is missing or a port is busy";
  const std::string out = unique_dir("target-run");
  fs::remove_all(out);
  CaptureResult r =
      run_driver({"--target", "gateway", "--workloads", "plain,https-keepalive", "--quick",
                  "--rounds", "1", "--warmup", "0", "--duration", "1s", "--threads", "1",
                  "--port-offset", std::to_string(testing::port_offset()), "--out", out},
                 120s);
  ASSERT_EQ(exit_code(r), 0) << r.output;
  std::ifstream in(out + "/macro.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  std::map<std::string, std::string> baselines;
  for (const auto& s : report["scenarios"]) {
    EXPECT_EQ(s["status"], "ok") << s["name"] << ": " << s["reason"];
    EXPECT_EQ(s["errors"], 0) << s["name"];
    baselines[s["name"].get<std::string>()] = s["baseline"].get<std::string>();
  }
  EXPECT_EQ(baselines, (std::map<std::string, std::string>{
                           {"gateway-plain", "nginx-plain"},
                           {"nginx-plain", "nginx-plain"},
                           {"gateway-https-keepalive", "nginx-https-keepalive"},
                           {"nginx-https-keepalive", "nginx-https-keepalive"}}));
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

// The WAF method's fixed count through the real executable: each round sends exactly its 1,000
// requests over 5 connections and says it completed them, on the gateway and on nginx with
// ModSecurity + CRS (ci/setup installs both).
TEST(TargetRun, FixedCountCompletesItsRequests) {
  if (!ready_to_run()) GTEST_SKIP() << "skipped: a tool is missing or a port is busy";
  const std::string out = unique_dir("target-count");
  fs::remove_all(out);
  CaptureResult r =
      run_driver({"--target", "gateway", "--workloads", "waf-count-5", "--quick", "--rounds", "1",
                  "--warmup", "0", "--duration", "20s", "--threads", "1", "--port-offset",
                  std::to_string(testing::port_offset()), "--out", out},
                 120s);
  ASSERT_EQ(exit_code(r), 0) << r.output;
  std::ifstream in(out + "/macro.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  std::set<std::string> names;
  for (const auto& s : report["scenarios"]) {
    names.insert(s["name"].get<std::string>());
    EXPECT_EQ(s["status"], "ok") << s["name"] << ": " << s["reason"];
    ASSERT_EQ(s["rounds"].size(), 1u);
    const auto& round = s["rounds"][0];
    EXPECT_EQ(round["requests"], 1000) << s["name"];
    EXPECT_EQ(round["details"]["requests_total"], 1000) << s["name"];
    EXPECT_EQ(round["details"]["count_completed"], true) << s["name"];
    // It ended with the count, long before the 20 s bound.
    EXPECT_LT(round["measured_s"].get<double>(), 15) << s["name"];
  }
  EXPECT_EQ(names, (std::set<std::string>{"gateway-waf-count-5", "nginx-waf-count-5"}));
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

TEST(TargetRun, CheckAnswersEveryFeatureOfTheGateway) {
  if (!ready_to_run(testing::port_offset()))
    GTEST_SKIP() << "skipped: a tool is missing or a port is busy";
  testing::expect_check_answers_every_feature("gateway");
}

}  // namespace
}  // namespace gatebench::macro
