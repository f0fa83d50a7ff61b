// The load generator against a real nginx started for the test; every count is checked against
// nginx's access log ("$connection $ssl_session_reused $status $request_uri").
#include <gtest/gtest.h>

#include <cmath>

#include "macro/load/report.hpp"
#include "macro/load/stats.hpp"
#include "tests/macro/load/load_run.hpp"
#include "tests/macro/load/nginx_process.hpp"

namespace gatebench::load {
namespace {

using testing::NginxProcess;
using testing::run_against;

constexpr std::uint64_t kNginxMs = 1'000'000;

using LogSummary = testing::AccessLogSummary;

class LoadAgainstNginx : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!nginx_.available()) GTEST_SKIP() << "skipped: " << nginx_.reason();
  }
  std::string http() const {
    return "http://127.0.0.1:" + std::to_string(nginx_.http_port()) + "/";
  }
  std::string https() const {
    return "https://localhost:" + std::to_string(nginx_.https_port()) + "/";
  }
  LogSummary log() {
    nginx_.stop();  // flushes and closes the log
    return testing::summarise_access_log(nginx_.access_log());
  }
  static Options base(int threads, int connections) {
    Options o;
    o.threads = threads;
    o.connections = connections;
    o.timeout_ns = 2000 * kNginxMs;
    return o;
  }
  NginxProcess nginx_;
};

TEST_F(LoadAgainstNginx, ExactCountsForARequestBudget) {
  Options o = base(2, 8);
  o.requests_total = 2000;
  const auto run = run_against(http(), o);
  const Stats& s = run.result.stats;
  EXPECT_EQ(s.responses, 2000u);
  EXPECT_EQ(s.status[200], 2000u);
  EXPECT_EQ(s.error_total(), 0u);
  const LogSummary l = log();
  EXPECT_EQ(l.lines, 2000u);
  EXPECT_EQ(l.ok, 2000u);
  EXPECT_EQ(l.connections.size(), 8u);
}

TEST_F(LoadAgainstNginx, OpenLoopRateWithinOnePercentAt5000PerSecond) {
  // On a machine with more runnable threads than CPUs the generator may not get the CPU it
  // needs; it must then say so (invalid, slots missed). Up to three attempts for a valid one.
  Options o = base(1, 16);
  o.rate = 5000;
  o.duration_ns = 1000 * kNginxMs;
  std::uint64_t responses = 0;
  bool kept_rate = false;
  for (int attempt = 0; attempt < 3 && !kept_rate; ++attempt) {
    const auto run = run_against(http(), o);
    const Stats& s = run.result.stats;
    responses += s.responses;
    EXPECT_EQ(s.error_total(), 0u);
    const double achieved = static_cast<double>(s.responses) / run.result.elapsed_s;
    kept_rate = std::abs(achieved - 5000) <= 50 && s.missed == 0;
    if (!kept_rate) {
      // A run may miss a few slots and still achieve 99% of the rate, which is valid by the
      // documented rule; one that falls short of it must say so.
      if (achieved < 4950) {
        EXPECT_FALSE(judge(o, run.result).valid) << "below 99% of the rate yet valid: " << achieved;
      }
      EXPECT_EQ(s.issued + s.missed, 5000u);
    }
  }
  EXPECT_TRUE(kept_rate) << "no attempt kept 5000 req/s within 1%";
  EXPECT_EQ(log().lines, responses);
}

TEST_F(LoadAgainstNginx, CloseOpensOneConnectionPerRequest) {
  Options o = base(1, 4);
  o.close = true;
  o.requests_total = 200;
  const auto run = run_against(http(), o);
  EXPECT_EQ(run.result.stats.responses, 200u);
  EXPECT_EQ(run.result.stats.connects, 200u);
  EXPECT_EQ(run.result.stats.error_total(), 0u);
  const LogSummary l = log();
  EXPECT_EQ(l.lines, 200u);
  EXPECT_EQ(l.connections.size(), 200u);
}

TEST_F(LoadAgainstNginx, TlsResumptionCountsMatchTheServer) {
  Options o = base(1, 1);
  o.close = true;
  o.requests_total = 100;
  o.tls_resume = true;
  const auto run = run_against(https(), o);
  const Stats& s = run.result.stats;
  EXPECT_EQ(s.responses, 100u);
  EXPECT_EQ(s.error_total(), 0u);
  EXPECT_EQ(s.handshakes_full + s.handshakes_resumed, 100u);
  EXPECT_EQ(s.handshakes_full, 1u);  // only the first connection has no session to offer
  const LogSummary l = log();
  EXPECT_EQ(l.lines, 100u);
  EXPECT_EQ(l.connections.size(), 100u);
  EXPECT_EQ(l.reused, s.handshakes_resumed);
  EXPECT_STREQ(run.result.io, "epoll");  // OpenSSL reads and writes the socket itself
}

TEST_F(LoadAgainstNginx, NoTlsResumptionMeansFullHandshakes) {
  Options o = base(2, 2);
  o.close = true;
  o.requests_total = 60;
  o.tls_resume = false;
  const auto run = run_against(https(), o);
  const Stats& s = run.result.stats;
  EXPECT_EQ(s.responses, 60u);
  EXPECT_EQ(s.handshakes_full, 60u);
  EXPECT_EQ(s.handshakes_resumed, 0u);
  const LogSummary l = log();
  EXPECT_EQ(l.lines, 60u);
  EXPECT_EQ(l.reused, 0u);
}

TEST_F(LoadAgainstNginx, TlsKeepAliveHandshakesOncePerConnection) {
  Options o = base(1, 4);
  o.requests_total = 500;
  const auto run = run_against(https(), o);
  const Stats& s = run.result.stats;
  EXPECT_EQ(s.responses, 500u);
  EXPECT_EQ(s.error_total(), 0u);
  EXPECT_EQ(s.handshakes_full + s.handshakes_resumed, 4u);
  const LogSummary l = log();
  EXPECT_EQ(l.lines, 500u);
  EXPECT_EQ(l.connections.size(), 4u);
}

}  // namespace
}  // namespace gatebench::load
