// The gateway's Redis cache store end to end: a real redis-server started by each test (ports
// 22379.. : the +6000 range over 16379), the real gateway, the scripted origin. Outages: Redis
// never up, killed in the middle of a load, and stopped (SIGSTOP) so lookups time out; in each
// every request is answered by the origin, none fails or waits long.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/macro/gateway/cache_testkit.hpp"

using gwtest::Conn;
using gwtest::Response;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kRedisPortBase = 16379 + 6000;

std::string redis_server() {
  for (const char* p : {"/usr/bin/redis-server", "/usr/local/bin/redis-server"}) {
    if (std::filesystem::exists(p)) return p;
  }
  return {};
}

class CacheRedisE2E : public gwtest::CacheGatewayTest {
 protected:
  void SetUp() override {
    if (redis_server().empty()) GTEST_SKIP() << "redis-server not installed";
  }
  // redis-server in the foreground, nothing persisted, on `port`; waits until it accepts.
  std::unique_ptr<gwtest::Process> start_redis(int port) {
    auto p = std::make_unique<gwtest::Process>(
        std::vector<std::string>{redis_server(), "--port", std::to_string(port), "--bind",
                                 "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
                                 dir_.path().string()},
        (dir_.path() / ("redis-" + std::to_string(port) + ".log")).string());
    EXPECT_TRUE(gwtest::wait_port(port)) << p->output();
    return p;
  }
  // `timeout_ms` is short where a test waits for lookups to time out; elsewhere a lookup slower
  // than it under a loaded sanitizer build would turn an expected hit into a miss.
  void start(int redis_port, int workers = 1, int timeout_ms = 50) {
    start_gateway(workers, R"({"store": "redis", "redis": "127.0.0.1:)" +
                               std::to_string(redis_port) + R"(", "redis_timeout_ms": )" +
                               std::to_string(timeout_ms) + "}");
    // The workers' pools connect in the background; a lookup before that is a (counted) miss.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Redis, the gateway, and /r ("body\n", max-age=60) stored: the next GETs of /r are hits.
  std::unique_ptr<gwtest::Process> start_warm(int port) {
    auto redis = start_redis(port);
    origin_.set("/r", "Cache-Control: max-age=60\r\n", "body\n");
    start(port);
    get("/r");
    return redis;
  }
  // GET until one is a hit (the SET of the miss goes out after the miss's response), at most 1 s.
  bool hit_soon(const std::string& path) {
    const auto until = Clock::now() + std::chrono::seconds(1);
    while (Clock::now() < until) {
      if (get(path).header("x-cache-status") == "hit") return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
};

TEST_F(CacheRedisE2E, StoredOnceAndSharedByTheWorkers) {
  const int port = kRedisPortBase;
  auto redis = start_redis(port);
  origin_.set("/r", "Cache-Control: max-age=60\r\nVary: Accept\r\n", "from redis\n");
  origin_.set("/n", "Cache-Control: no-store\r\n", "never\n");
  start(port, 2, 1000);
  Response r = get("/r");
  EXPECT_EQ(r.header("x-cache-status"), "miss");
  ASSERT_TRUE(hit_soon("/r"));
  // New connections spread over both workers; every one is a hit from the one Redis entry.
  for (int i = 0; i < 8; ++i) {
    r = get("/r");
    EXPECT_EQ(r.header("x-cache-status"), "hit");
    EXPECT_EQ(r.body, "from redis\n");
  }
  EXPECT_EQ(get("/r", "Accept: text/html\r\n").header("x-cache-status"), "miss");  // Vary
  EXPECT_EQ(get("/r?other").header("x-cache-status"), "miss");
  EXPECT_EQ(get("/n").header("x-cache-status"), "miss");
  EXPECT_EQ(get("/n").header("x-cache-status"), "miss");
  EXPECT_EQ(origin_.count("/n"), 2);
  EXPECT_LE(origin_.count("/r"), 2);
  const std::string counters = stop_and_counters();
  EXPECT_EQ(counter(counters, "store_failures"), 0) << counters;
}

TEST_F(CacheRedisE2E, NeverUpMeansMissesWithoutDelay) {
  const int port = kRedisPortBase + 1;  // nothing listens there
  origin_.set("/r", "Cache-Control: max-age=60\r\n", "origin\n");
  start(port);
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    Response r = get("/r");
    EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(200));
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.header("x-cache-status"), "miss");
    EXPECT_EQ(r.body, "origin\n");
  }
  EXPECT_EQ(origin_.count("/r"), 5);
  const std::string counters = stop_and_counters();
  EXPECT_EQ(counter(counters, "store_failures"), 5) << counters;
  EXPECT_EQ(counter(counters, "misses"), 5) << counters;
}

TEST_F(CacheRedisE2E, KilledDuringLoadThenBackAgain) {
  const int port = kRedisPortBase + 2;
  auto redis = start_warm(port);
  ASSERT_TRUE(hit_soon("/r"));
  // A client sending requests one after another on keep-alive connections while Redis dies.
  std::atomic<bool> stop{false};
  std::atomic<int> answered{0}, failed{0};
  std::atomic<long> slowest_ms{0};
  std::thread load([&] {
    Conn c(gwtest::connect_to(port_));
    while (!stop) {
      const auto t0 = Clock::now();
      if (!c.send(gwtest::get_request("a.test", "/r"))) c = Conn(gwtest::connect_to(port_));
      Response r = c.read_response();
      const long ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
      if (ms > slowest_ms) slowest_ms = ms;
      if (r.ok && r.status == 200 && r.body == "body\n") {
        ++answered;
      } else {
        ++failed;
        c = Conn(gwtest::connect_to(port_));
      }
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  redis->signal(SIGKILL);
  redis->wait_exit(2000);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  stop = true;
  load.join();
  EXPECT_EQ(failed, 0);
  EXPECT_GT(answered, 50);
  EXPECT_LT(slowest_ms, 500);
  EXPECT_GE(origin_.count("/r"), 2);  // after the kill, requests went to the origin
  // Redis back on the same port: the worker reconnects and the cache fills again.
  redis = start_redis(port);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  get("/r");
  EXPECT_TRUE(hit_soon("/r"));
  const std::string counters = stop_and_counters();
  EXPECT_GT(counter(counters, "store_failures"), 0) << counters;
}

TEST_F(CacheRedisE2E, AStalledRedisTimesOutIntoMisses) {
  const int port = kRedisPortBase + 3;
  auto redis = start_warm(port);
  ASSERT_TRUE(hit_soon("/r"));
  redis->signal(SIGSTOP);
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    Response r = get("/r");
    EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(400));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.header("x-cache-status"), "miss");
    EXPECT_EQ(r.body, "body\n");
  }
  redis->signal(SIGCONT);
  const std::string counters = stop_and_counters();
  EXPECT_GE(counter(counters, "store_timeouts"), 1) << counters;
  EXPECT_GE(counter(counters, "store_failures"), 5) << counters;
}

}  // namespace
