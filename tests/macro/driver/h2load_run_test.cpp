// --load h2load end to end: nginx-h2-baseline measured by nghttp2's h2load in a short run (req/s,
// requests, status classes from its output, CPU per request over the run's last D seconds), an
// HTTP/1.1 keep-alive scenario through h2load --h1, and an open-loop scenario skipped before
// anything starts, with the reason (h2load_output_test has the other reasons).
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
using nlohmann::json;
using testing::processes_mentioning;
using testing::run_driver;
using testing::unique_dir;

const json& h2load_scenario(const json& doc, const std::string& name) {
  for (const auto& s : doc["scenarios"])
    if (s["name"] == name) return s;
  throw std::runtime_error("no scenario " + name);
}

TEST(H2loadRun, MeasuresH2AndKeepAliveAndSkipsWhatItCannotDo) {
  Toolbox tools;
  for (const char* tool : {"nginx", "openssl", "h2load"}) {
    if (!tools.find(tool)) GTEST_SKIP() << "skipped: " << Toolbox::missing_reason(tool);
  }
  for (int port : {18080, 18081, 18443}) {
    if (!port_free(port + testing::port_offset()))
      GTEST_SKIP() << "skipped: port " << port + testing::port_offset() << " busy";
  }
  const std::string out = unique_dir("h2load");
  fs::remove_all(out);
  CaptureResult r =
      run_driver({"--load", "h2load", "--quick", "--rounds", "1", "--warmup", "0", "--duration",
                  "1s", "--threads", "1", "--scenarios",
                  "nginx-h2-baseline,nginx-baseline,latency-at-rate/nginx-baseline",
                  "--port-offset", std::to_string(testing::port_offset()), "--out", out},
                 120s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  std::ifstream in(out + "/macro.json");
  ASSERT_TRUE(in) << r.output;
  const json doc = json::parse(in);
  EXPECT_EQ(doc["env"]["load_generator"], "h2load");
  for (const char* name : {"nginx-h2-baseline", "nginx-baseline"}) {
    SCOPED_TRACE(name);
    const json& round = h2load_scenario(doc, name)["rounds"][0];
    ASSERT_EQ(round["status"], "ok") << round["reason"];
    EXPECT_GT(round["requests"].get<std::uint64_t>(), 100u);
    EXPECT_EQ(round["errors"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(round["counts"]["status_2xx"].get<double>(), round["requests"].get<double>());
    EXPECT_GT(round["rps"].get<double>(), 0);
    EXPECT_EQ(round["window"]["source"], "last D s before exit");
    EXPECT_TRUE(round["cpu_us_per_request"]["target"].is_number());
    EXPECT_TRUE(round["latency_us"]["mean"].is_number());
    EXPECT_TRUE(round["latency_us"]["p99"].is_null());  // h2load prints no percentiles
  }
  // The command: streams per connection and ALPN h2 only for the HTTP/2 scenario.
  std::ifstream cmd(out + "/round-1/nginx-h2-baseline/load-measure.cmd");
  const std::string line((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
  EXPECT_NE(line.find("-m 10 -D 1s --npn-list=h2"), std::string::npos) << line;
  const json& rate = h2load_scenario(doc, "latency-at-rate/nginx-baseline");
  EXPECT_EQ(rate["status"], "skipped");
  EXPECT_NE(rate["reason"].get<std::string>().find("h2load cannot hold an open-loop rate"),
            std::string::npos)
      << rate["reason"];
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

}  // namespace
}  // namespace gatebench::macro
