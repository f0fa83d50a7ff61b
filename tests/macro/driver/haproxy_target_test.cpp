// The shipped haproxy target (macro/targets/haproxy.json) over TLS end to end: `target check`
// answers every feature through haproxy, and its HTTPS workloads (keep-alive, and new connections
// with full handshakes only) run beside their nginx baselines.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "driver_exe.hpp"
#include "macro/common/json_field.hpp"
#include "port_offset.hpp"
#include "target_check.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::processes_mentioning;
using testing::run_driver;
using testing::unique_dir;

const std::initializer_list<const char*> kHaproxyTools = {"haproxy", "nginx", "openssl", "curl",
                                                          "gatebench-load"};

TEST(HaproxyTarget, CheckAnswersEveryFeature) {
  testing::expect_installed(kHaproxyTools);
  testing::expect_check_answers_every_feature("haproxy");
}

TEST(HaproxyTarget, HttpsRunsBesideTheNginxBaseline) {
  testing::expect_installed(kHaproxyTools);
  const std::string out = unique_dir("haproxy-https");
  fs::remove_all(out);
  CaptureResult r =
      run_driver({"--scenarios", "haproxy-https-keepalive,haproxy-https-newconn", "--quick",
                  "--rounds", "1", "--warmup", "0", "--duration", "1s", "--threads", "1",
                  "--port-offset", std::to_string(testing::port_offset()), "--out", out},
                 180s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  ASSERT_TRUE(fs::exists(out + "/macro.json")) << r.output;
  const nlohmann::json report = common::read_json_file(out + "/macro.json");
  std::map<std::string, std::string> baselines;
  for (const auto& s : report["scenarios"]) {
    const std::string name = s["name"];
    SCOPED_TRACE(name);
    baselines[name] = s["baseline"].get<std::string>();
    EXPECT_EQ(s["errors"], 0);
    const nlohmann::json& round = s["rounds"][0];
    // One generator thread against a full handshake per request may be the limit on a busy
    // machine ("limited by the harness"); the round itself must have run.
    EXPECT_EQ(round["status"], "ok") << round["reason"];
    EXPECT_GT(round["requests"].get<std::uint64_t>(), 0u);
    if (name.ends_with("-newconn")) {
      // Every request a new connection with a full handshake: haproxy resumes none either.
      ASSERT_TRUE(round.contains("handshakes")) << round.dump();
      EXPECT_EQ(round["handshakes"]["resumed"], 0);
      EXPECT_GE(round["handshakes"]["full"].get<std::uint64_t>(),
                round["requests"].get<std::uint64_t>());
      EXPECT_GT(round["cpu_us_per_handshake"]["target"].get<double>(), 0);
    }
    if (name.starts_with("haproxy-")) {
      EXPECT_TRUE(s["vs_nginx"].is_number()) << s.dump();
    }
  }
  EXPECT_EQ(baselines, (std::map<std::string, std::string>{
                           {"haproxy-https-keepalive", "nginx-https-keepalive"},
                           {"haproxy-https-newconn", "nginx-https-newconn"},
                           {"nginx-https-keepalive", "nginx-https-keepalive"},
                           {"nginx-https-newconn", "nginx-https-newconn"}}));
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

}  // namespace
}  // namespace gatebench::macro
