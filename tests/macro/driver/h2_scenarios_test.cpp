// The shipped HTTP/2 scenarios (nginx, haproxy, h2o and the gateway terminating TLS with ALPN h2,
// many streams per connection and one) run in --quick through the real executables: every one that
// can run measures without errors, and one whose server is not installed is skipped saying so.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "driver_exe.hpp"
#include "macro/driver/system/net_probe.hpp"
#include "macro/driver/system/toolbox.hpp"
#include "port_offset.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::processes_mentioning;
using testing::run_driver;
using testing::unique_dir;

constexpr const char* kScenarios[] = {"nginx-h2-baseline",
                                      "nginx-h2-one-stream",
                                      "haproxy-h2",
                                      "haproxy-h2-one-stream",
                                      "h2o-h2",
                                      "h2o-h2-one-stream",
                                      "gateway-h2",
                                      "gateway-h2-protected",
                                      "gateway-h2-one-stream"};

TEST(H2Scenarios, RunInQuickOrSayWhyNot) {
  Toolbox tools;
  for (const char* tool :
       {"nginx", "openssl", "gatebench-load", "gatebench-gateway", "gatebench-control"}) {
    if (!tools.find(tool)) GTEST_SKIP() << "skipped: " << Toolbox::missing_reason(tool);
  }
  for (int port : {18080, 18081, 18443, 18101, 18102}) {
    if (!port_free(port + testing::port_offset()))
      GTEST_SKIP() << "skipped: port " << port + testing::port_offset() << " busy";
  }
  std::string list;
  for (const char* name : kScenarios) list += (list.empty() ? "" : ",") + std::string(name);
  const std::string out = unique_dir("h2-scenarios");
  fs::remove_all(out);
  CaptureResult r = run_driver(
      {"--quick", "--rounds", "1", "--warmup", "0", "--duration", "1s", "--threads", "1",
       "--scenarios", list, "--port-offset", std::to_string(testing::port_offset()), "--out", out},
      180s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  std::ifstream in(out + "/macro.json");
  ASSERT_TRUE(in) << r.output;
  const nlohmann::json report = nlohmann::json::parse(in);
  int measured = 0;
  for (const char* name : kScenarios) {
    SCOPED_TRACE(name);
    const nlohmann::json* s = nullptr;
    for (const auto& each : report["scenarios"])
      if (each["name"] == name) s = &each;
    ASSERT_NE(s, nullptr);
    if ((*s)["status"] == "skipped") {
      // Only a peer that is not installed may be missing.
      EXPECT_NE((*s)["reason"].get<std::string>().find("not installed"), std::string::npos)
          << (*s)["reason"];
      continue;
    }
    const nlohmann::json& round = (*s)["rounds"][0];
    ASSERT_EQ(round["status"], "ok") << round["reason"];
    EXPECT_GT(round["requests"].get<std::uint64_t>(), 100u);
    EXPECT_EQ(round["errors"].get<std::uint64_t>(), 0u);
    ++measured;
  }
  EXPECT_GE(measured, 4);  // the nginx and gateway scenarios at least
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

}  // namespace
}  // namespace gatebench::macro
