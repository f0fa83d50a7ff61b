// The shipped Apache httpd target (macro/targets/httpd.json) end to end: `target check` answers
// every feature through httpd, and its plain workload runs beside the nginx baseline.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "driver_exe.hpp"
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

const std::initializer_list<const char*> kHttpdTools = {"apache2", "nginx", "openssl", "curl",
                                                        "gatebench-load"};

TEST(HttpdTarget, CheckAnswersEveryFeature) {
  testing::expect_installed(kHttpdTools);
  testing::expect_check_answers_every_feature("httpd");
}

TEST(HttpdTarget, PlainRunsBesideTheNginxBaseline) {
  testing::expect_installed(kHttpdTools);
  const int kHttpdRunOffset = testing::port_offset();
  const std::string out = unique_dir("httpd-run");
  fs::remove_all(out);
  CaptureResult r = run_driver({"--target", "httpd", "--workloads", "plain", "--quick", "--rounds",
                                "1", "--warmup", "0", "--duration", "1s", "--threads", "1",
                                "--port-offset", std::to_string(kHttpdRunOffset), "--out", out},
                               120s);
  ASSERT_EQ(exit_code(r), 0) << r.output;
  std::ifstream in(out + "/macro.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  std::map<std::string, std::string> baselines;
  for (const auto& s : report["scenarios"]) {
    EXPECT_EQ(s["status"], "ok") << s["name"] << ": " << s["reason"];
    EXPECT_EQ(s["errors"], 0) << s["name"];
    EXPECT_GT(s["rps"].get<double>(), 0) << s["name"];
    baselines[s["name"].get<std::string>()] = s["baseline"].get<std::string>();
  }
  EXPECT_EQ(baselines, (std::map<std::string, std::string>{{"httpd-plain", "nginx-plain"},
                                                           {"nginx-plain", "nginx-plain"}}));
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

}  // namespace
}  // namespace gatebench::macro
