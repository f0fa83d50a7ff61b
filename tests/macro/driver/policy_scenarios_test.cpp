// The policy scenarios (the decision API alone, nginx auth_request to it, the simple and the
// complex policy) through the real driver, 1 s each: every one measures, and every response had
// the status its load expects (200: the decision allowed, the JWT verified, no rule or limit
// fired), so the figures are of the policy passing requests, not of fast refusals.
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

constexpr const char* kScenarios[] = {"gateway-decision", "nginx-auth-request",
                                      "gateway-simple-policy", "gateway-complex-policy"};

TEST(PolicyScenarios, EachPassesItsLoadFor1s) {
  Toolbox tools;
  for (const char* tool : {"nginx", "gatebench-load", "gatebench-gateway"}) {
    if (!tools.find(tool)) GTEST_SKIP() << "skipped: " << Toolbox::missing_reason(tool);
  }
  for (int port : {18080, 18081, 18082, 18083, 18101, 18102}) {
    if (!port_free(port + testing::port_offset()))
      GTEST_SKIP() << "skipped: port " << port + testing::port_offset() << " busy";
  }
  std::string list;
  for (const char* name : kScenarios) list += (list.empty() ? "" : ",") + std::string(name);
  const std::string out = unique_dir("policy-scenarios");
  fs::remove_all(out);
  CaptureResult r =
      run_driver({"--quick", "--rounds", "1", "--warmup", "0", "--duration", "1s", "--scenarios",
                  list, "--port-offset", std::to_string(testing::port_offset()), "--out", out},
                 180s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  std::ifstream in(out + "/macro.json");
  ASSERT_TRUE(in) << r.output;
  const nlohmann::json report = nlohmann::json::parse(in);
  for (const char* name : kScenarios) {
    SCOPED_TRACE(name);
    const nlohmann::json* s = nullptr;
    for (const auto& each : report["scenarios"])
      if (each["name"] == name) s = &each;
    ASSERT_NE(s, nullptr);
    ASSERT_EQ((*s)["status"], "ok") << (*s)["reason"];
    const nlohmann::json& round = (*s)["rounds"][0];
    ASSERT_EQ(round["status"], "ok") << round["reason"];
    EXPECT_GT(round["requests"].get<std::uint64_t>(), 100u);
    // Any 4xx/5xx (a refused token, a 508, a rate limit, a failed auth_request) is an error.
    EXPECT_EQ(round["errors"].get<std::uint64_t>(), 0u) << round.dump();
  }
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

}  // namespace
}  // namespace gatebench::macro
