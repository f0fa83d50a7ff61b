// The caching peers' scenarios (nginx-proxy-cache-hit, varnish-hit) in a --quick run against the
// real nginx and Varnish: every round ok, and the hit ratio checked from the backend, which logs
// each /cache/ request that reaches it (configs/nginx-backend.conf): behind a working cache that
// is the first request of the round and nothing else. Varnish missing: the scenario must be
// skipped with that reason.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "macro/driver/net_probe.hpp"
#include "macro/driver/toolbox.hpp"

#ifndef GATEBENCH_MACRO_EXE
// Without the path from CMake: the driver of the build tree this test belongs to
// (<build>/tests/macro/driver/<test> -> <build>/macro/driver/gatebench-macro).
namespace gatebench::macro::testing {
inline std::string macro_exe_beside_this_test() {
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  return (self.parent_path().parent_path().parent_path().parent_path() / "macro" / "driver" /
          "gatebench-macro")
      .string();
}
}  // namespace gatebench::macro::testing
#define GATEBENCH_MACRO_EXE gatebench::macro::testing::macro_exe_beside_this_test()
#endif

#include "driver_exe.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::processes_mentioning;
using testing::run_driver;
using testing::unique_dir;

// Scenario ports 18080 and 18081 plus this: apart from the other tests' offsets.
constexpr int kOffset = 6000;

std::size_t line_count(const fs::path& file) {
  std::ifstream in(file);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

TEST(CacheScenarios, PeersServeHitsInQuickRuns) {
  Toolbox tools;
  for (const char* tool : {"nginx", "wrk"}) {
    if (!tools.find(tool)) GTEST_SKIP() << "skipped: " << Toolbox::missing_reason(tool);
  }
  for (int port : {18080, 18081}) {
    if (!port_free(port + kOffset)) GTEST_SKIP() << "skipped: port " << port + kOffset << " busy";
  }
  if (!fs::exists(std::string(GATEBENCH_MACRO_EXE)))
    GTEST_SKIP() << "skipped: " << GATEBENCH_MACRO_EXE << " not built";
  const bool have_varnish = tools.find("varnishd").has_value();
  const std::string out = unique_dir("cache-scenarios");
  fs::remove_all(out);
  // No warm-up: the first measured request is the one miss of each round.
  CaptureResult r = run_driver(
      {"--quick", "--warmup", "0", "--load", "wrk", "--scenarios",
       "nginx-proxy-cache-hit,varnish-hit", "--port-offset", std::to_string(kOffset), "--out", out},
      240s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  std::ifstream in(out + "/macro.json");
  ASSERT_TRUE(in) << r.output;
  const nlohmann::json report = nlohmann::json::parse(in);
  for (const char* name : {"nginx-proxy-cache-hit", "varnish-hit"}) {
    SCOPED_TRACE(name);
    const nlohmann::json* s = nullptr;
    for (const auto& each : report["scenarios"])
      if (each["name"] == name) s = &each;
    ASSERT_NE(s, nullptr);
    if (std::string(name) == "varnish-hit" && !have_varnish) {
      EXPECT_EQ((*s)["status"], "skipped");
      EXPECT_NE((*s)["reason"].get<std::string>().find("varnishd not installed"), std::string::npos)
          << (*s)["reason"];
      continue;
    }
    ASSERT_EQ((*s)["status"], "ok") << (*s)["reason"];
    ASSERT_EQ((*s)["rounds"].size(), 3u);
    for (const auto& round : (*s)["rounds"]) {
      const int n = round["round"].get<int>();
      SCOPED_TRACE("round " + std::to_string(n));
      const auto requests = round["requests"].get<std::uint64_t>();
      ASSERT_GT(requests, 1000u) << "too few requests to tell a hit ratio";
      const fs::path log =
          fs::path(out) / ("round-" + std::to_string(n)) / name / "backend" / "cache-misses.log";
      ASSERT_TRUE(fs::exists(log)) << log;
      const std::size_t misses = line_count(log);
      // At least the first request went through to the backend (the log works), and the cache
      // answered nearly everything else.
      EXPECT_GE(misses, 1u);
      const double hit_ratio = 1.0 - static_cast<double>(misses) / static_cast<double>(requests);
      EXPECT_GE(hit_ratio, 0.99) << misses << " misses of " << requests;
      EXPECT_EQ(round["errors"].get<std::uint64_t>(), 0u);
    }
  }
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

}  // namespace
}  // namespace gatebench::macro
