// The caching scenarios in --quick runs against the real nginx, Varnish, redis-server and the
// gateway: every round ok, and the hit ratio checked from the backend, which logs each /cache/
// request that reaches it (configs/nginx-backend.conf): behind a working cache that is the first
// request of the round (of each worker, for the gateway's per-worker memory store) and nothing
// else. Varnish or redis-server missing: the scenario must be skipped with that reason. The first
// test runs with --out in a private (0700) directory, as a careful user or CI passes it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "macro/driver/system/net_probe.hpp"
#include "macro/driver/system/toolbox.hpp"

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
#include "port_offset.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::processes_mentioning;
using testing::run_driver;
using testing::unique_dir;

std::size_t line_count(const fs::path& file) {
  std::ifstream in(file);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

TEST(CacheScenarios, PeersServeHitsInQuickRuns) {
  Toolbox tools;
  if (!tools.find("nginx")) GTEST_SKIP() << "skipped: " << Toolbox::missing_reason("nginx");
  for (int port : {18080, 18081}) {
    if (!port_free(port + testing::port_offset()))
      GTEST_SKIP() << "skipped: port " << port + testing::port_offset() << " busy";
  }
  if (!fs::exists(std::string(GATEBENCH_MACRO_EXE)))
    GTEST_SKIP() << "skipped: " << GATEBENCH_MACRO_EXE << " not built";
  const bool have_varnish = tools.find("varnishd").has_value();
  // The output directory inside a private one (mode 0700, what mktemp -d makes): a service
  // whose processes drop to another user (nginx's workers) must still write its cache there.
  const std::string parent = unique_dir("cache-scenarios");
  fs::remove_all(parent);
  fs::create_directory(parent);
  fs::permissions(parent, fs::perms::owner_all, fs::perm_options::replace);
  const std::string out = parent + "/out";
  // No warm-up: the first measured request is the one miss of each round. gatebench-load counts
  // the X-Cache-Status values the scenarios' cache blocks judge (wrk cannot).
  CaptureResult r =
      run_driver({"--quick", "--warmup", "0", "--scenarios", "nginx-proxy-cache-hit,varnish-hit",
                  "--port-offset", std::to_string(testing::port_offset()), "--out", out},
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
  fs::remove_all(parent);
}

const nlohmann::json* scenario_named(const nlohmann::json& report, const std::string& name) {
  for (const auto& each : report["scenarios"])
    if (each["name"] == name) return &each;
  return nullptr;
}

// The gateway's cache scenarios in one driver call, one short round each (they add five service
// start-ups and two baselines to the suite).
TEST(CacheScenarios, GatewayCacheScenariosInOneQuickRound) {
  Toolbox tools;
  if (!tools.find("nginx")) GTEST_SKIP() << "skipped: " << Toolbox::missing_reason("nginx");
  for (int port : {18080, 18081, 18101, 18102, 18379, 18443}) {
    if (!port_free(port + testing::port_offset()))
      GTEST_SKIP() << "skipped: port " << port + testing::port_offset() << " busy";
  }
  if (!fs::exists(std::string(GATEBENCH_MACRO_EXE)))
    GTEST_SKIP() << "skipped: " << GATEBENCH_MACRO_EXE << " not built";
  const bool have_redis = tools.find("redis-server").has_value();
  const std::string out = unique_dir("gateway-cache-scenarios");
  fs::remove_all(out);
  const std::string names =
      "gateway-cache-memory-hit,gateway-cache-memory-hit-https,gateway-cache-redis-hit,"
      "gateway-cache-redis-uncacheable,gateway-cache-miss";
  CaptureResult r =
      run_driver({"--quick", "--rounds", "1", "--warmup", "0", "--duration", "1s", "--scenarios",
                  names, "--port-offset", std::to_string(testing::port_offset()), "--out", out},
                 240s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  std::ifstream in(out + "/macro.json");
  ASSERT_TRUE(in) << r.output;
  const nlohmann::json report = nlohmann::json::parse(in);
  // Smallest and largest share of requests the backend may have seen (misses ÷ requests).
  struct Expect {
    const char* name;
    bool redis;
    double min_miss_share;
    double max_miss_share;
  };
  const Expect expects[] = {{"gateway-cache-memory-hit", false, 0.0, 0.01},
                            {"gateway-cache-memory-hit-https", false, 0.0, 0.01},
                            {"gateway-cache-redis-hit", true, 0.0, 0.01},
                            // /nocache/ is not logged: no line, whatever the cache did.
                            {"gateway-cache-redis-uncacheable", true, 0.0, 0.0},
                            {"gateway-cache-miss", false, 0.8, 1.0}};
  for (const Expect& e : expects) {
    SCOPED_TRACE(e.name);
    const nlohmann::json* s = scenario_named(report, e.name);
    ASSERT_NE(s, nullptr);
    if (e.redis && !have_redis) {
      EXPECT_EQ((*s)["status"], "skipped");
      EXPECT_NE((*s)["reason"].get<std::string>().find("redis-server"), std::string::npos)
          << (*s)["reason"];
      continue;
    }
    ASSERT_EQ((*s)["status"], "ok") << (*s)["reason"];
    ASSERT_EQ((*s)["rounds"].size(), 1u);
    const auto& round = (*s)["rounds"][0];
    const auto requests = round["requests"].get<std::uint64_t>();
    ASSERT_GT(requests, 500u) << "too few requests to tell a hit ratio";
    EXPECT_EQ(round["errors"].get<std::uint64_t>(), 0u);
    const fs::path log = fs::path(out) / "round-1" / e.name / "backend" / "cache-misses.log";
    const std::size_t misses = fs::exists(log) ? line_count(log) : 0;
    const double share = static_cast<double>(misses) / static_cast<double>(requests);
    if (e.max_miss_share > 0) {
      EXPECT_GE(misses, 1u) << "the first request goes to the backend";
    }
    EXPECT_GE(share, e.min_miss_share) << misses << " misses of " << requests;
    EXPECT_LE(share, e.max_miss_share) << misses << " misses of " << requests;
  }
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

}  // namespace
}  // namespace gatebench::macro
