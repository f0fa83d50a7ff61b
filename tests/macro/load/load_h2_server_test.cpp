// gatebench-load --h2 against the in-process HTTP/2 server (h2_test_server.hpp): what needs a
// server that misbehaves on cue, which nginx does not.
#include <gtest/gtest.h>

#include "macro/load/stats.hpp"
#include "tests/macro/load/h2_test_server.hpp"
#include "tests/macro/load/load_run.hpp"

namespace gatebench::load {
namespace {

using testing::H2TestServer;
using testing::run_against;

constexpr std::uint64_t kServerMsH2 = 1'000'000;

double in_ms(std::uint64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

// As LoadAgainstTestServer.RebasePaceLeavesNoBacklog, over HTTP/2: the first request is held
// 200 ms, so at 100 req/s about 20 slots fall due meanwhile on the one stream. Kept, they go out
// back to back once it answers; with --rebase-pace the schedule starts again 10 ms after that
// answer, so no send is late by more than timer slack and the 30 requests take at least
// 200 + 29 x 10 ms.
TEST(H2AgainstTestServer, RebasePaceLeavesNoBacklog) {
  auto run = [](bool pace) {
    H2TestServer server;
    server.set_stall(1, 200);
    Options o;
    o.threads = 1;
    o.connections = 1;
    o.h2 = true;
    o.streams = 1;
    o.duration_ns = 1000 * kServerMsH2;
    o.timeout_ns = 1000 * kServerMsH2;
    o.rate = 100;
    o.requests_total = 30;
    o.rebase_pace = pace;
    auto result = run_against(server.url(), o);
    EXPECT_EQ(server.requests(), 30u);
    return result;
  };
  const auto kept = run(false);
  EXPECT_EQ(kept.result.stats.responses, 30u);
  EXPECT_EQ(kept.result.stats.error_total(), 0u);
  EXPECT_TRUE(kept.result.stats.h2.not_h2.empty()) << kept.result.stats.h2.not_h2;
  EXPECT_GT(in_ms(kept.result.stats.send_lag.max()), 150);
  EXPECT_LT(kept.result.elapsed_s, 0.45);
  const auto paced = run(true);
  EXPECT_EQ(paced.result.stats.responses, 30u);
  EXPECT_EQ(paced.result.stats.error_total(), 0u);
  EXPECT_LT(in_ms(paced.result.stats.send_lag.percentile(50)), 5);
  EXPECT_LT(in_ms(paced.result.stats.send_lag.max()), 100);
  EXPECT_GE(paced.result.elapsed_s, 0.48);
}

}  // namespace
}  // namespace gatebench::load
