// End-to-end tests of loop detection (docs/gateway.md, "Loop detection"): the hop header and Via
// line the gateway adds, the counts it reads back, and a gateway whose upstream is itself
// stopped at the configured hop count. The real gateway on loopback.
#include <gtest/gtest.h>

#include <string>

#include "tests/macro/gateway/gateway_testkit.hpp"

using gwtest::fetch;
using gwtest::get_request;
using gwtest::Response;

namespace {

class LoopE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = gwtest::free_port();
    const std::string self = "127.0.0.1:" + std::to_string(port_);
    const std::string up = "127.0.0.1:" + std::to_string(upstream_.port());
    dir_.file("gw.json", R"({"workers": 1, "listeners": [{"port": )" + std::to_string(port_) +
                             R"(}], "hosts": [
      {"names": ["*"], "upstream": ")" +
                             self + R"(", "loop": {"max_hops": 3, "via": "gw-self"}},
      {"names": ["counted.test"], "upstream": ")" +
                             up + R"(", "loop": {"max_hops": 3, "via": "gw-test"}}]})");
    gateway_ = std::make_unique<gwtest::Process>(
        std::vector<std::string>{GATEBENCH_GATEWAY_EXE, "--config",
                                 (dir_.path() / "gw.json").string()},
        (dir_.path() / "gateway.log").string());
    ASSERT_TRUE(gwtest::wait_port(port_)) << gateway_->output();
  }
  void TearDown() override {
    if (gateway_) {
      EXPECT_EQ(gateway_->stop(), 0) << gateway_->output();
    }
  }
  Response counted(const std::string& extra) {
    return fetch(port_, get_request("counted.test", "/", extra));
  }
  // The head the upstream received last, lower-cased.
  std::string last_head() {
    const auto seen = upstream_.requests();
    std::string h = seen.empty() ? std::string() : seen.back().head;
    for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return h;
  }

  gwtest::TempDir dir_;
  gwtest::Upstream upstream_;
  std::unique_ptr<gwtest::Process> gateway_;
  int port_ = 0;
};

TEST_F(LoopE2E, AGatewayProxyingToItselfStopsAtTheHopCount) {
  const Response r = fetch(port_, get_request("loop.test", "/x"));
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.status, 508);
  EXPECT_EQ(r.body, "loop detected: 3 hops, at most 3\n");
  EXPECT_EQ(r.header("x-gatebench-rule"), "loop-detected");
  // The gateway still serves: the loop held no connection.
  EXPECT_EQ(fetch(port_, get_request("loop.test", "/y")).status, 508);
}

TEST_F(LoopE2E, TheUpstreamSeesTheNextHop) {
  ASSERT_EQ(counted("").status, 200);
  std::string h = last_head();
  EXPECT_NE(h.find("\r\nx-gatebench-hops: 1\r\n"), std::string::npos) << h;
  EXPECT_NE(h.find("\r\nvia: 1.1 gw-test\r\n"), std::string::npos) << h;
  ASSERT_EQ(counted("X-Gatebench-Hops: 2\r\nVia: 1.0 other\r\n").status, 200);
  h = last_head();
  EXPECT_NE(h.find("\r\nx-gatebench-hops: 3\r\n"), std::string::npos) << h;
  EXPECT_EQ(h.find("x-gatebench-hops: 2"), std::string::npos) << h;  // replaced, not kept
  EXPECT_NE(h.find("\r\nvia: 1.0 other\r\n"), std::string::npos) << h;
}

TEST_F(LoopE2E, HopsAreCountedFromTheHeaderAndVia) {
  EXPECT_EQ(counted("X-Gatebench-Hops: 3\r\n").status, 508);
  EXPECT_EQ(counted("X-Gatebench-Hops: 250\r\n").status, 508);
  // Via entries naming this gateway count even when the hop header was stripped on the way.
  EXPECT_EQ(counted("Via: 1.1 gw-test, 1.1 GW-TEST (x, y), HTTP/1.1 gw-test\r\n").status, 508);
  EXPECT_EQ(counted("Via: 1.1 gw-test\r\nVia: 1.1 gw-test, 1.1 gw-other\r\n").status, 200);
  EXPECT_EQ(counted("Via: 1.1 gw-test, 1.1 gw-test\r\nVia: 1.1 gw-test\r\n").status, 508);
  // A hop header that is not a count is refused rather than guessed at.
  EXPECT_EQ(counted("X-Gatebench-Hops: abc\r\n").status, 400);
  EXPECT_EQ(counted("X-Gatebench-Hops: 1\r\nX-Gatebench-Hops: 1\r\n").status, 400);
  EXPECT_EQ(counted("X-Gatebench-Hops: -1\r\n").status, 400);
}

}  // namespace
