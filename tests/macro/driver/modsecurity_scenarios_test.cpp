// The WAF peer's scenarios (nginx-modsecurity-none, nginx-modsecurity-crs, waf-mix-modsecurity:
// Debian nginx with ModSecurity v3, without rules and with the OWASP CRS,
// configs/nginx-modsecurity.conf) in a one-round run through the real executables, then the
// configuration that run rendered started again as it was, to see what ModSecurity answers: with
// the CRS a SQL injection and a script tag in the query are refused with 403 by the proxy (the
// backend never answers 403) and benign requests reach the backend (200); without rules the SQL
// injection passes too. Skipped, saying why, where libnginx-mod-http-modsecurity or
// modsecurity-crs is not installed. The vpatch100 rule set: vpatch_scenarios_test.cpp.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "driver_exe.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/system/net_probe.hpp"
#include "macro/driver/system/toolbox.hpp"
#include "port_offset.hpp"
#include "waf_scenarios.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::answers;
using testing::processes_mentioning;
using testing::restart_nginx;
using testing::run_driver;
using testing::scenario;
using testing::unique_dir;

constexpr const char* kModule = "/usr/lib/nginx/modules/ngx_http_modsecurity_module.so";
constexpr const char* kCrsRules = "/usr/share/modsecurity-crs/rules";

std::string skip_reason() {
  Toolbox tools;
  for (const char* tool : {"nginx", "gatebench-load"}) {
    if (!tools.find(tool)) return "skipped: " + Toolbox::missing_reason(tool);
  }
  if (!fs::exists(kModule))
    return std::string("skipped: libnginx-mod-http-modsecurity not installed (no ") + kModule + ")";
  if (!fs::is_directory(kCrsRules))
    return std::string("skipped: modsecurity-crs not installed (no ") + kCrsRules + ")";
  for (int port : {18080, 18081}) {
    if (!port_free(port + testing::port_offset()))
      return "skipped: port " + std::to_string(port + testing::port_offset()) + " busy";
  }
  return "";
}

TEST(ModSecurityScenarios, RunAndBlockAttacksWithCrs) {
  if (const std::string reason = skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  const std::string out = unique_dir("modsecurity-scenarios");
  fs::remove_all(out);
  // CRS misses and wrong blocks are what waf-mix-modsecurity measures, and the driver counts
  // every unexpected status as an error: no error rate may fail the round here.
  CaptureResult r =
      run_driver({"--quick", "--rounds", "1", "--warmup", "0", "--duration", "1s", "--threads", "1",
                  "--max-error-rate", "100%", "--scenarios",
                  "nginx-modsecurity-none,nginx-modsecurity-crs,waf-mix-modsecurity",
                  "--port-offset", std::to_string(testing::port_offset()), "--out", out},
                 120s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  std::ifstream in(out + "/macro.json");
  ASSERT_TRUE(in) << r.output;
  const nlohmann::json report = nlohmann::json::parse(in);
  // The three and their baseline.
  ASSERT_EQ(report["scenarios"].size(), 4u) << report["scenarios"].dump();

  const nlohmann::json* none = scenario(report, "nginx-modsecurity-none");
  ASSERT_NE(none, nullptr);
  ASSERT_EQ((*none)["status"], "ok") << (*none)["reason"];
  EXPECT_GT((*none)["requests"].get<std::uint64_t>(), 10u);
  EXPECT_EQ((*none)["errors"].get<std::uint64_t>(), 0u);

  const nlohmann::json* crs = scenario(report, "nginx-modsecurity-crs");
  ASSERT_NE(crs, nullptr);
  ASSERT_EQ((*crs)["status"], "ok") << (*crs)["reason"];
  // gateway-protected's traffic is benign: CRS passes all of it. At about 1.5 ms of CPU per
  // request, a second on a busy 2-CPU machine is a few hundred requests at most.
  EXPECT_GT((*crs)["requests"].get<std::uint64_t>(), 10u);
  EXPECT_EQ((*crs)["errors"].get<std::uint64_t>(), 0u);
  EXPECT_GT((*crs)["cpu_us_per_request"]["target"].get<double>(), 0);

  const nlohmann::json* mix = scenario(report, "waf-mix-modsecurity");
  ASSERT_NE(mix, nullptr);
  ASSERT_EQ((*mix)["status"], "ok") << (*mix)["reason"];
  EXPECT_TRUE((*mix)["latency_delta_us"].is_object());
  double blocked = 0, served = 0;
  for (const auto& [key, value] : (*mix)["counts"].items()) {
    if (!key.ends_with(".as_expected")) continue;
    if (key.starts_with("attack-")) blocked += value.get<double>();
    if (key.starts_with("benign-")) served += value.get<double>();
  }
  EXPECT_GT(blocked, 0) << (*mix)["counts"];
  EXPECT_GT(served, 0) << (*mix)["counts"];
  ASSERT_TRUE(processes_mentioning(out).empty());

  // The rendered configuration of the run, as it ran.
  const fs::path run_dir = fs::path(out) / "round-1" / "nginx-modsecurity-crs";
  const int backend_port = 18080 + testing::port_offset();
  const int proxy_port = 18081 + testing::port_offset();
  {
    ChildProcess backend = restart_nginx(run_dir, "backend");
    ChildProcess proxy = restart_nginx(run_dir, "proxy");
    ASSERT_TRUE(answers(backend_port)) << read_text(run_dir / "backend.again.log");
    ASSERT_TRUE(answers(proxy_port)) << read_text(run_dir / "proxy.again.log");
    const std::vector<std::string> headers = {"Host: protected.test",
                                              "User-Agent: gatebench-macro"};
    auto status = [&](const std::string& target) {
      const auto reply = http_get(proxy_port, target, headers, 5s);
      return reply ? reply->status : 0;
    };
    EXPECT_EQ(status("/search?id=1%27%20UNION%20SELECT%20password%20FROM%20users--"), 403);
    EXPECT_EQ(status("/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E"), 403);
    EXPECT_EQ(status("/"), 200);
    EXPECT_EQ(status("/products?q=union+station+chicago&page=2"), 200);
    EXPECT_TRUE(backend.stop());
    EXPECT_TRUE(proxy.stop());
  }
  // ModSecurity, not nginx, refused them: its interventions are in the proxy's error log.
  EXPECT_NE(read_text(run_dir / "proxy" / "error.log").find("ModSecurity: Access denied"),
            std::string::npos);

  // The module without rules: the engine runs, nothing is refused.
  const fs::path none_dir = fs::path(out) / "round-1" / "nginx-modsecurity-none";
  {
    ChildProcess backend = restart_nginx(none_dir, "backend");
    ChildProcess proxy = restart_nginx(none_dir, "proxy");
    ASSERT_TRUE(answers(backend_port)) << read_text(none_dir / "backend.again.log");
    ASSERT_TRUE(answers(proxy_port)) << read_text(none_dir / "proxy.again.log");
    const auto reply = http_get(proxy_port, "/search?id=1%27%20UNION%20SELECT%20password--",
                                {"Host: protected.test"}, 5s);
    ASSERT_TRUE(reply.has_value());
    EXPECT_EQ(reply->status, 200);
    EXPECT_TRUE(backend.stop());
    EXPECT_TRUE(proxy.stop());
  }
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

}  // namespace
}  // namespace gatebench::macro
