// gatebench-macro --instructions: the real gateway (toggled) and nginx (its process tree) under
// callgrind, N and 2N requests, twice; the per-request counts of the same build repeat (the
// gateway's instructions within 0.1%), start-up is outside the count, nothing is left running,
// `gatebench compare` gates on the counts, and the options are checked before anything starts.
// Skipped without valgrind or the gateway.
#include "macro/driver/measure/instructions.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "driver_exe.hpp"
#include "macro/driver/results/run_support.hpp"
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

// Instructions per request of two runs of the same build may differ by this share: measured
// on a loaded machine, at most one access-log datagram header (about 700 instructions per run,
// 0.05% of gateway-default at N = 200) and 0.004% for gateway-https-newconn
// (docs/attribution.md).
constexpr double kRepeatShare = 0.001;
// A new connection per request puts a full TLS handshake in each request's count (about 2.45
// million instructions); two runs of the same build differed by 0.19% there.
constexpr double kRepeatShareNewConnection = 0.005;
// A process tree counts its time-driven work too: nginx-baseline spread by 0.65% over 20 runs.
constexpr double kRepeatShareTree = 0.01;

std::string skip_reason() {
#if defined(__SANITIZE_ADDRESS__)
  return "skipped: valgrind cannot run an AddressSanitizer build of the gateway (use a release "
         "build)";
#endif
  Toolbox tools;
  for (const char* tool :
       {"valgrind", "nginx", "openssl", "gatebench-load", "gatebench-gateway", "gatebench-control"})
    if (!tools.find(tool)) return "skipped: " + Toolbox::missing_reason(tool);
  for (int port : {18080, 18081, 18443, 18101, 18102})
    if (!port_free(port + testing::port_offset()))
      return "skipped: port " + std::to_string(port + testing::port_offset()) + " busy";
  return "";
}

nlohmann::json count(const std::string& scenarios, const std::string& tag, bool remove = true) {
  const std::string out = unique_dir(tag);
  fs::remove_all(out);
  CaptureResult r = run_driver({"--instructions", "200", "--scenarios", scenarios, "--port-offset",
                                std::to_string(testing::port_offset()), "--out", out},
                               600s);
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.output;
  EXPECT_TRUE(processes_mentioning(out).empty());
  std::ifstream in(out + "/instructions.json");
  EXPECT_TRUE(in) << r.output;
  if (!in) return nullptr;
  nlohmann::json doc = nlohmann::json::parse(in);
  if (remove) fs::remove_all(out);
  return doc;
}

TEST(MacroInstructions, RepeatRunToRunForTheSameBuild) {
  if (const std::string why = skip_reason(); !why.empty()) GTEST_SKIP() << why;
  const std::string scenarios = "gateway-default,gateway-https-newconn";
  const nlohmann::json a = count(scenarios, "instructions-a");
  const nlohmann::json b = count(scenarios, "instructions-b");
  ASSERT_TRUE(a.is_object() && b.is_object());
  EXPECT_EQ(a["schema"], kInstructionsSchema);
  ASSERT_EQ(a["scenarios"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& x = a["scenarios"][i];
    const auto& y = b["scenarios"][i];
    SCOPED_TRACE(x["name"].get<std::string>());
    ASSERT_EQ(x["status"], "ok") << x["reason"];
    ASSERT_EQ(y["status"], "ok") << y["reason"];
    ASSERT_EQ(x["runs"].size(), 2u);
    EXPECT_EQ(x["runs"][0]["requests"], 200);
    EXPECT_EQ(x["runs"][1]["requests"], 400);
    const double px = x["instructions_per_request"].get<double>();
    const double py = y["instructions_per_request"].get<double>();
    EXPECT_GT(px, 1000);  // a proxied request is thousands of instructions, never a few
    // Only the event loop's per-connection work is counted and the requests are paced, so
    // the same build repeats to a few instructions per request (docs/attribution.md), also on
    // a loaded machine: neither the 100 ms tick nor idle wake-ups are in the count.
    const bool handshakes = x["name"].get<std::string>().find("newconn") != std::string::npos;
    EXPECT_NEAR(px, py, px * (handshakes ? kRepeatShareNewConnection : kRepeatShare))
        << "run a " << px << ", run b " << py;
    // Start-up (configuration, rule compilation, TLS context) is outside the count: the N run
    // holds little more than its N requests (the ready probe and prepare's requests).
    const double first = x["runs"][0]["instructions"].get<double>();
    EXPECT_LT(first, 1.1 * 200 * px) << "I(N) = " << first;
    EXPECT_EQ(x["method"], "toggle");
    // read from the client and the backend, writev to both: 4 per request, and an access-log
    // datagram per second.
    if (!handshakes) {
      EXPECT_NEAR(x["syscalls_per_request"].get<double>(), 4, 0.1) << x["runs"].dump();
    }
  }
  EXPECT_EQ(a["method"]["rate"], 50);
  EXPECT_EQ(a["method"]["collect"][0], "--collect-atstart=no");
}

// nginx (master and one worker, forked) counted by its process tree: instructions and system
// calls per request above zero and repeatable; `gatebench compare` passes a run against the
// other and fails it against a copy with one more system call per request; a scenario without
// a gateway-role service is skipped with the reason.
TEST(MacroInstructions, AnyTargetByItsProcessTree) {
  if (const std::string why = skip_reason(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = unique_dir("instructions-tree");
  fs::remove_all(dir);
  const nlohmann::json a = count("nginx-baseline,direct", "instructions-tree-a", false);
  const nlohmann::json b = count("nginx-baseline,direct", "instructions-tree-b", false);
  ASSERT_TRUE(a.is_object() && b.is_object());
  ASSERT_EQ(a["scenarios"].size(), 2u);
  // Scenarios run in their "order": direct (10) before nginx-baseline (20).
  auto named = [](const nlohmann::json& doc, const std::string& name) {
    for (const auto& s : doc["scenarios"])
      if (s["name"] == name) return s;
    return nlohmann::json::object();
  };
  const nlohmann::json x = named(a, "nginx-baseline"), y = named(b, "nginx-baseline");
  const nlohmann::json direct = named(a, "direct");
  ASSERT_EQ(x["status"], "ok") << x["reason"];
  ASSERT_EQ(y["status"], "ok") << y["reason"];
  EXPECT_EQ(x["method"], "process-tree");
  // The master and its worker each wrote a file.
  EXPECT_GE(x["runs"][0]["callgrind_files"].size(), 2u);
  const double ix = x["instructions_per_request"].get<double>();
  const double iy = y["instructions_per_request"].get<double>();
  EXPECT_GT(ix, 1000);
  // 20 runs on this machine spread by 0.65% (docs/attribution.md): the master's and the
  // worker's time-driven work (the access log's flush each second, timers) is in the count.
  EXPECT_NEAR(ix, iy, ix * kRepeatShareTree) << "run a " << ix << ", run b " << iy;
  // recvfrom and writev on both sides and getsockopt: 5 per request, plus the calls that follow
  // time (log flushes, the master's signalling), 1/N each: 20 runs at N=200 spread by 1.2%
  // (docs/attribution.md), two runs of CI by 0.055 (11 calls).
  const double sx = x["syscalls_per_request"].get<double>();
  const double sy = y["syscalls_per_request"].get<double>();
  EXPECT_GT(sx, 3);
  EXPECT_NEAR(sx, sy, 0.1) << "run a " << sx << ", run b " << sy;
  EXPECT_EQ(direct["status"], "skipped");
  EXPECT_NE(direct["reason"].get<std::string>().find("gateway-role"), std::string::npos);

  fs::create_directories(dir);
  const std::string base = dir + "/base.json", same = dir + "/same.json", more = dir + "/more.json";
  write_text(base, a.dump(1));
  write_text(same, b.dump(1));
  nlohmann::json changed = a;
  for (auto& s : changed["scenarios"])  // one more write per response
    if (s["name"] == "nginx-baseline") s["syscalls_per_request"] = sx + 1;
  write_text(more, changed.dump(1));
  auto compare = [](const std::string& from, const std::string& to) {
    const CaptureResult r = run_capture(GATEBENCH_TOOL_EXE, {"compare", from, to}, 60s);
    return WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
  };
  EXPECT_EQ(compare(base, base), 0);
  EXPECT_EQ(compare(base, more), 1);
  fs::remove_all(dir);
}

// h2o started as root switches to nobody unless its config names a user, and nobody cannot
// write callgrind's counts into the driver's private run directory: the h2o template names the
// services' user, so h2o's process tree (the server and its neverbleed key process) is counted.
TEST(MacroInstructions, H2oIsCountedByItsProcessTree) {
  if (const std::string why = skip_reason(); !why.empty()) GTEST_SKIP() << why;
  if (!Toolbox().find("h2o")) GTEST_SKIP() << "skipped: " << Toolbox::missing_reason("h2o");
  const nlohmann::json doc = count("h2o-h2-one-stream", "instructions-h2o");
  ASSERT_TRUE(doc.is_object());
  ASSERT_EQ(doc["scenarios"].size(), 1u);
  const nlohmann::json& x = doc["scenarios"][0];
  ASSERT_EQ(x["status"], "ok") << x.dump();
  EXPECT_EQ(x["method"], "process-tree");
  EXPECT_GT(x["instructions_per_request"].get<double>(), 1000);
  EXPECT_GT(x["syscalls_per_request"].get<double>(), 3);
}

TEST(MacroInstructions, OptionsAreCheckedFirst) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--instructions", "0"},
                                             {"--instructions", "100", "--load", "wrk"},
                                             {"--instructions", "100", "--runtime", "podman"}}) {
    CaptureResult r = run_driver(args, 30s);
    EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2) << r.output;
    EXPECT_NE(r.output.find("--instructions"), std::string::npos) << r.output;
  }
}

TEST(CallgrindFile, SummaryOrTotals) {
  const std::string dir = unique_dir("callgrind-file");
  fs::create_directories(dir);
  write_text(dir + "/a.out", "events: Ir\nfl=x\n0 5\nsummary: 1234\n");
  write_text(dir + "/b.out", "events: Ir\ntotals: 99 7\n");
  write_text(dir + "/c.out", "events: Ir\n");
  EXPECT_EQ(callgrind_file_instructions(dir + "/a.out"), 1234);
  EXPECT_EQ(callgrind_file_instructions(dir + "/b.out"), 99);
  EXPECT_THROW(callgrind_file_instructions(dir + "/c.out"), Outcome);
  EXPECT_THROW(callgrind_file_instructions(dir + "/none.out"), Outcome);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::macro
