// gatebench-load --h2 against a real nginx with HTTP/2 listeners (h2c with prior knowledge and TLS
// with ALPN h2): every count is checked against nginx's access log ("$connection
// $ssl_session_reused $status $request_uri"), and the server's stream limit and GOAWAY are those
// nginx really sends.
#include <gtest/gtest.h>

#include <cmath>

#include "macro/load/report.hpp"
#include "macro/load/stats.hpp"
#include "tests/macro/load/load_run.hpp"
#include "tests/macro/load/nginx_process.hpp"

namespace gatebench::load {
namespace {

using testing::NginxConfig;
using testing::NginxProcess;
using testing::run_against;

constexpr std::uint64_t kMs = 1'000'000;

using Log = testing::AccessLogSummary;

Options h2_options(int threads, int connections, int streams) {
  Options o;
  o.threads = threads;
  o.connections = connections;
  o.h2 = true;
  o.streams = streams;
  o.timeout_ns = 2000 * kMs;
  return o;
}

std::uint64_t code(const std::array<std::uint64_t, kH2ErrorCodes>& counts, std::uint32_t c) {
  return counts[static_cast<std::size_t>(h2_error_slot(c))];
}

class H2AgainstNginx : public ::testing::Test {
 protected:
  // False when nginx cannot run here; the test then skips with reason().
  bool start(NginxConfig config) {
    config.h2 = true;
    nginx_ = std::make_unique<NginxProcess>(config);
    return nginx_->available();
  }
  std::string reason() const { return "skipped: " + nginx_->reason(); }
  std::string h2c() const { return "http://127.0.0.1:" + std::to_string(nginx_->h2c_port()) + "/"; }
  std::string h2() const { return "https://localhost:" + std::to_string(nginx_->h2_port()) + "/"; }
  Log log() {
    nginx_->stop();  // flushes and closes the log
    return testing::summarise_access_log(nginx_->access_log());
  }
  std::unique_ptr<NginxProcess> nginx_;
};

TEST_F(H2AgainstNginx, H2cExactCountsForARequestBudget) {
  if (!start({})) GTEST_SKIP() << reason();
  Options o = h2_options(2, 4, 8);
  o.requests_total = 3000;
  const auto run = run_against(h2c(), o);
  const Stats& s = run.result.stats;
  EXPECT_EQ(s.responses, 3000u);
  EXPECT_EQ(s.status[200], 3000u);
  EXPECT_EQ(s.error_total(), 0u);
  EXPECT_TRUE(s.h2.not_h2.empty()) << s.h2.not_h2;
  EXPECT_GT(s.h2.max_concurrent, 1u);  // streams really were concurrent
  EXPECT_LE(s.h2.max_concurrent, 8u);
  EXPECT_STREQ(run.result.io, "epoll");
  const Log l = log();
  EXPECT_EQ(l.lines, 3000u);
  EXPECT_EQ(l.ok, 3000u);
  EXPECT_EQ(l.connections.size(), 4u);
}

TEST_F(H2AgainstNginx, TlsWithAlpnExactCounts) {
  if (!start({})) GTEST_SKIP() << reason();
  Options o = h2_options(1, 2, 4);
  o.requests_total = 1000;
  const auto run = run_against(h2(), o);
  const Stats& s = run.result.stats;
  EXPECT_EQ(s.responses, 1000u);
  EXPECT_EQ(s.error_total(), 0u);
  EXPECT_EQ(s.handshakes_full + s.handshakes_resumed, 2u);
  const Log l = log();
  EXPECT_EQ(l.lines, 1000u);
  EXPECT_EQ(l.ok, 1000u);
  EXPECT_EQ(l.connections.size(), 2u);
}

TEST_F(H2AgainstNginx, ServerStreamLimitIsHonoured) {
  NginxConfig config;
  config.max_concurrent_streams = 3;
  if (!start(config)) GTEST_SKIP() << reason();
  Options o = h2_options(1, 1, 16);
  o.requests_total = 600;
  const auto run = run_against(h2c(), o);
  const Stats& s = run.result.stats;
  EXPECT_EQ(s.responses, 600u);
  EXPECT_EQ(s.error_total(), 0u);
  EXPECT_EQ(s.h2.server_max_streams, 3u);
  EXPECT_EQ(s.h2.max_concurrent, 3u);
  EXPECT_EQ(code(s.h2.rst_stream, 7), 0u);  // never a REFUSED_STREAM for going over
  EXPECT_EQ(log().lines, 600u);
}

TEST_F(H2AgainstNginx, GoawayRetiresConnectionsWithoutLosingRequests) {
  // keepalive_requests applies to HTTP/2 streams since nginx 1.19.7: after 50 the connection is
  // retired by GOAWAY; streams above its last stream are sent again on a new connection.
  NginxConfig config;
  config.keepalive_requests = 50;
  if (!start(config)) GTEST_SKIP() << reason();
  Options o = h2_options(1, 2, 8);
  o.requests_total = 1000;
  const auto run = run_against(h2c(), o);
  const Stats& s = run.result.stats;
  EXPECT_EQ(s.responses, 1000u);
  EXPECT_EQ(s.status[200], 1000u);
  EXPECT_EQ(s.error_total(), 0u);
  EXPECT_GE(code(s.h2.goaway, 0), 19u);  // 1000 / 50 connections, the last may end unretired
  EXPECT_GE(s.connects, 19u);
  const Log l = log();
  EXPECT_EQ(l.lines, 1000u);
  EXPECT_GE(l.connections.size(), 20u);
}

TEST_F(H2AgainstNginx, MixWithBodiesAndExpectedStatuses) {
  if (!start({})) GTEST_SKIP() << reason();
  const std::string mix = R"({"requests": [
      {"name": "home", "weight": 3, "path": "/"},
      {"name": "post", "weight": 1, "method": "POST", "path": "/", "body": {"item": 42}},
      {"name": "missing", "weight": 1, "path": "/missing", "expect_status": 404}]})";
  Options o = h2_options(1, 2, 4);
  o.requests_total = 1000;
  const auto run = run_against(h2c(), o, mix);
  const Stats& s = run.result.stats;
  ASSERT_EQ(s.templates.size(), 3u);
  EXPECT_EQ(s.responses, 1000u);
  EXPECT_EQ(s.error_total(), 0u);
  EXPECT_EQ(s.templates[2].as_expected, s.templates[2].responses);
  EXPECT_GT(s.templates[1].responses, 0u);
  EXPECT_EQ(s.templates[1].status[200], s.templates[1].responses);
  const Log l = log();
  EXPECT_EQ(l.lines, 1000u);
  EXPECT_EQ(l.not_found, s.templates[2].responses);
}

TEST_F(H2AgainstNginx, OpenLoopRateWithinOnePercent) {
  if (!start({})) GTEST_SKIP() << reason();
  Options o = h2_options(1, 2, 4);
  o.rate = 2000;
  o.duration_ns = 1000 * kMs;
  std::uint64_t responses = 0;
  bool kept_rate = false;
  // A loaded machine may not give the generator its CPU; it must then say so (as for HTTP/1.1).
  for (int attempt = 0; attempt < 3 && !kept_rate; ++attempt) {
    const auto run = run_against(h2c(), o);
    const Stats& s = run.result.stats;
    responses += s.responses;
    EXPECT_EQ(s.error_total(), 0u);
    const double achieved = static_cast<double>(s.responses) / run.result.elapsed_s;
    kept_rate = std::abs(achieved - 2000) <= 20 && s.missed == 0;
    if (!kept_rate && achieved < 1980) {
      EXPECT_FALSE(judge(o, run.result).valid);
    }
  }
  EXPECT_TRUE(kept_rate) << "no attempt kept 2000 req/s within 1%";
  EXPECT_EQ(log().lines, responses);
}

TEST_F(H2AgainstNginx, AlpnWithoutH2IsAClearError) {
  if (!start({})) GTEST_SKIP() << reason();
  Options o = h2_options(1, 2, 1);
  o.requests_total = 100;
  // The HTTP/1.1-only TLS listener of the same nginx.
  const auto run =
      run_against("https://localhost:" + std::to_string(nginx_->https_port()) + "/", o);
  const Stats& s = run.result.stats;
  EXPECT_EQ(s.responses, 0u);
  EXPECT_NE(s.h2.not_h2.find("ALPN"), std::string::npos) << s.h2.not_h2;
  EXPECT_GT(s.errors[static_cast<int>(ErrorClass::kTls)], 0u);
  EXPECT_LT(run.wall_s, 1.5);  // the run ends at once instead of retrying for an hour
  const Verdict v = judge(o, run.result);
  EXPECT_FALSE(v.valid);
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_EQ(v.reasons[0], s.h2.not_h2);
}

TEST_F(H2AgainstNginx, H2cToAnHttp1PortIsAClearError) {
  if (!start({})) GTEST_SKIP() << reason();
  Options o = h2_options(1, 1, 1);
  o.requests_total = 100;
  const auto run = run_against("http://127.0.0.1:" + std::to_string(nginx_->http_port()) + "/", o);
  const Stats& s = run.result.stats;
  EXPECT_EQ(s.responses, 0u);
  EXPECT_NE(s.h2.not_h2.find("HTTP/1.1"), std::string::npos) << s.h2.not_h2;
  EXPECT_LT(run.wall_s, 1.5);
}

}  // namespace
}  // namespace gatebench::load
