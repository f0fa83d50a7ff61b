// The gateway under a low open-file limit (issue 41, item 1), end to end: started through
// prlimit(1) with RLIMIT_NOFILE at 256, then held by more idle connections than that. It must
// keep answering new requests (200, or 503 past its connection cap) and stay idle while the
// connections sit there, instead of retrying accept() on EMFILE in a loop; with only the soft
// limit low, it raises it to the hard limit at start.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/macro/gateway/gateway_testkit.hpp"

namespace {

using gwtest::Conn;
using gwtest::cpu_ticks;
using gwtest::get_request;
using gwtest::Response;

// "Max open files" soft and hard limits of a process, from /proc/<pid>/limits.
std::pair<std::string, std::string> nofile_limits(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Max open files", 0) != 0) continue;
    std::istringstream fields(line.substr(14));
    std::string soft;
    std::string hard;
    fields >> soft >> hard;
    return {soft, hard};
  }
  return {};
}

class DescriptorsE2E : public ::testing::Test {
 protected:
  // `nofile`: prlimit's --nofile value ("soft:hard", or "soft:" for the soft limit only).
  void start(const std::string& nofile) {
    port_ = gwtest::free_port();
    dir_.file("gw.json", R"({"workers": 1, "listeners": [{"port": )" + std::to_string(port_) +
                             R"(}], "limits": {"client_header_timeout_ms": 60000},)" +
                             R"( "hosts": [{"names": ["*"], "upstream": "127.0.0.1:)" +
                             std::to_string(upstream_.port()) + R"("}]})");
    gateway_ = std::make_unique<gwtest::Process>(
        std::vector<std::string>{"prlimit", "--nofile=" + nofile, "--", GATEBENCH_GATEWAY_EXE,
                                 "--config", (dir_.path() / "gw.json").string()},
        (dir_.path() / "gateway.log").string());
    ASSERT_TRUE(gwtest::wait_port(port_)) << gateway_->output();
  }
  void TearDown() override {
    if (gateway_) {
      EXPECT_EQ(gateway_->stop(), 0) << gateway_->output();
    }
  }
  // Connections that sent the start of a request line and nothing more: accepted at once
  // (the listener defers accept until the first bytes) and then idle until the header timeout.
  void hold_idle(int count) {
    for (int i = 0; i < count; ++i) {
      Conn c(gwtest::connect_to(port_));
      ASSERT_TRUE(c.valid()) << i;
      ASSERT_TRUE(c.send("GET /idle")) << i;
      idle_.push_back(std::move(c));
    }
  }

  gwtest::TempDir dir_;
  gwtest::Upstream upstream_;
  std::unique_ptr<gwtest::Process> gateway_;
  std::vector<Conn> idle_;
  int port_ = 0;
};

TEST_F(DescriptorsE2E, UnderAHardLimitNewRequestsAreAnsweredAndTheIdleGatewayRests) {
  start("256:256");
  hold_idle(400);
  // Let the worker take in what the backlog holds.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));

  const auto t0 = std::chrono::steady_clock::now();
  Conn c(gwtest::connect_to(port_));
  ASSERT_TRUE(c.valid());
  ASSERT_TRUE(c.send(get_request("a.test", "/new")));
  const Response r = c.read_response();
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r.ok) << "no answer: " << gateway_->output();
  EXPECT_TRUE(r.status == 200 || r.status == 503) << r.status;
  EXPECT_LT(waited, std::chrono::seconds(2));

  const long ticks_per_s = sysconf(_SC_CLK_TCK);
  const long before = cpu_ticks(gateway_->pid());
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const long used = cpu_ticks(gateway_->pid()) - before;
  EXPECT_LT(used * 100, ticks_per_s * 5) << used << " ticks of CPU in 1 s with idle connections";

  // The idle connections gone, a new one is served again.
  idle_.clear();
  int status = 0;
  for (int attempt = 0; attempt < 100 && status != 200; ++attempt) {
    Conn next(gwtest::connect_to(port_));
    if (next.send(get_request("a.test", "/after"))) status = next.read_response().status;
    if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(status, 200);
}

TEST_F(DescriptorsE2E, ALowSoftLimitIsRaisedToTheHardLimit) {
  rlimit own{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &own), 0);
  ASSERT_GT(own.rlim_max, 256u + 500u) << "this test needs a hard limit above the idle count";
  start("256:");
  const auto [soft, hard] = nofile_limits(gateway_->pid());
  EXPECT_EQ(soft, hard);
  hold_idle(400);
  Conn c(gwtest::connect_to(port_));
  ASSERT_TRUE(c.send(get_request("a.test", "/new")));
  EXPECT_EQ(c.read_response().status, 200) << gateway_->output();
  idle_.clear();  // a connection inside a request head would hold the graceful stop
}

}  // namespace
