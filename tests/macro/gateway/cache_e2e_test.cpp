// The gateway's memory cache end to end: the real gatebench-gateway (one worker, so one store)
// in front of a scripted origin that counts the requests reaching it. A hit is a response the
// origin did not see; each test checks what the client got and what the origin saw.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/macro/gateway/cache_testkit.hpp"

using gwtest::Conn;
using gwtest::Response;

namespace {

class CacheE2E : public gwtest::CacheGatewayTest {
 protected:
  void start(const std::string& cache = R"({"store": "memory"})",
             const std::string& features = "") {
    start_gateway(1, cache, features);
  }
};

TEST_F(CacheE2E, MaxAgeIsStoredAndAnsweredWithoutTheOrigin) {
  origin_.set("/a", "Cache-Control: max-age=60\r\nAge: 5\r\nX-Origin: yes\r\n", "body of a\n");
  start();
  Response r = get("/a");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("x-cache-status"), "miss");
  EXPECT_EQ(r.body, "body of a\n");
  r = get("/a");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("x-cache-status"), "hit");
  EXPECT_EQ(r.body, "body of a\n");
  EXPECT_EQ(r.header("x-origin"), "yes");
  // The stored Age is replaced by the cache's: the origin's 5 s plus the time stored.
  ASSERT_EQ(r.headers["age"].size(), 1u);
  EXPECT_GE(std::stoi(r.header("age")), 5);
  EXPECT_LE(std::stoi(r.header("age")), 7);
  EXPECT_EQ(origin_.count("/a"), 1);
  // Keep-alive: hits and misses follow each other on one connection.
  Conn c(gwtest::connect_to(port_));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.send(gwtest::get_request("a.test", "/a")));
    r = c.read_response();
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.header("x-cache-status"), "hit");
    EXPECT_EQ(r.body, "body of a\n");
  }
  EXPECT_EQ(origin_.count("/a"), 1);
  EXPECT_EQ(stop_and_counters(),
            "cache: hits=4 misses=1 bypasses=0 stale=0 stored=1 refused=0 store_failures=0 "
            "store_timeouts=0");
}

TEST_F(CacheE2E, FreshnessRulesDecideWhatIsStored) {
  origin_.set("/s-maxage", "Cache-Control: max-age=0, s-maxage=60\r\n", "s\n");
  origin_.set("/max-age-0", "Cache-Control: max-age=0\r\n", "z\n");
  origin_.set("/no-store", "Cache-Control: no-store, max-age=60\r\n", "n\n");
  origin_.set("/private", "Cache-Control: private, max-age=60\r\n", "p\n");
  origin_.set("/no-cache", "Cache-Control: no-cache, max-age=60\r\n", "c\n");
  origin_.set("/cookie", "Cache-Control: max-age=60\r\nSet-Cookie: id=1\r\n", "k\n");
  origin_.set("/no-lifetime", "", "l\n");
  origin_.set("/expires", "Expires: Thu, 01 Jan 2099 00:00:00 GMT\r\n", "e\n");
  origin_.set("/expired",
              "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nExpires: Sun, 06 Nov 1994 08:50:37 GMT\r\n",
              "d\n");
  origin_.set("/error", "Cache-Control: max-age=60\r\n", "oops\n", 500);
  start();
  const std::pair<const char*, int> cases[] = {
      {"/s-maxage", 1}, {"/max-age-0", 2},   {"/no-store", 2}, {"/private", 2}, {"/no-cache", 2},
      {"/cookie", 2},   {"/no-lifetime", 2}, {"/expires", 1},  {"/expired", 2}, {"/error", 2}};
  for (const auto& [path, origin_requests] : cases) {
    Response first = get(path);
    Response second = get(path);
    ASSERT_TRUE(first.ok && second.ok) << path;
    EXPECT_EQ(first.header("x-cache-status"), "miss") << path;
    EXPECT_EQ(second.header("x-cache-status"), origin_requests == 1 ? "hit" : "miss") << path;
    EXPECT_EQ(second.body, first.body) << path;
    EXPECT_EQ(origin_.count(path), origin_requests) << path;
  }
}

TEST_F(CacheE2E, DefaultTtlStoresResponsesWithoutALifetime) {
  origin_.set("/plain", "", "plain\n");
  origin_.set("/no-store", "Cache-Control: no-store\r\n", "n\n");
  start(R"({"store": "memory", "default_ttl_s": 30})");
  EXPECT_EQ(get("/plain").header("x-cache-status"), "miss");
  EXPECT_EQ(get("/plain").header("x-cache-status"), "hit");
  EXPECT_EQ(get("/no-store").header("x-cache-status"), "miss");
  EXPECT_EQ(get("/no-store").header("x-cache-status"), "miss");
  EXPECT_EQ(origin_.count("/plain"), 1);
  EXPECT_EQ(origin_.count("/no-store"), 2);
}

TEST_F(CacheE2E, NeverAnswersARequestTheEntryWasNotStoredFor) {
  origin_.set("/x?q=1", "Cache-Control: max-age=60\r\n", "q1\n");
  origin_.set("/x?q=2", "Cache-Control: max-age=60\r\n", "q2\n");
  origin_.set("/v", "Cache-Control: max-age=60\r\nVary: Accept-Encoding\r\n", "v\n");
  start();
  EXPECT_EQ(get("/x?q=1").body, "q1\n");
  Response r = get("/x?q=2");  // another query
  EXPECT_EQ(r.header("x-cache-status"), "miss");
  EXPECT_EQ(r.body, "q2\n");
  r = get("/x?q=1", "", "b.test");  // another host of the same proxy host
  EXPECT_EQ(r.header("x-cache-status"), "miss");
  r = get("/x?q=1", "", "A.TEST");  // host names are case-insensitive
  EXPECT_EQ(r.header("x-cache-status"), "hit");
  EXPECT_EQ(r.body, "q1\n");
  EXPECT_EQ(origin_.count("/x?q=1"), 2);
  EXPECT_EQ(origin_.count("/x?q=2"), 1);

  EXPECT_EQ(get("/v", "Accept-Encoding: gzip\r\n").header("x-cache-status"), "miss");
  EXPECT_EQ(get("/v", "Accept-Encoding: gzip\r\n").header("x-cache-status"), "hit");
  EXPECT_EQ(get("/v", "Accept-Encoding: br\r\n").header("x-cache-status"), "miss");
  EXPECT_EQ(get("/v").header("x-cache-status"), "miss");  // absent differs from any value
  EXPECT_EQ(origin_.count("/v"), 3);
}

TEST_F(CacheE2E, HeadIsCachedApartFromGetAndOtherMethodsBypass) {
  origin_.set("/h", "Cache-Control: max-age=60\r\n", "0123456789");
  start();
  Response r = head("/h");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.header("x-cache-status"), "miss");
  r = head("/h");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.header("x-cache-status"), "hit");
  EXPECT_EQ(r.header("content-length"), "10");
  // The HEAD entry answers HEAD only; and a hit to HEAD carries no body (the next response on
  // the connection parses).
  Conn c(gwtest::connect_to(port_));
  ASSERT_TRUE(
      c.send("HEAD /h HTTP/1.1\r\nHost: a.test\r\n\r\n" + gwtest::get_request("a.test", "/h")));
  r = c.read_response(true);
  EXPECT_EQ(r.header("x-cache-status"), "hit");
  r = c.read_response();
  EXPECT_EQ(r.header("x-cache-status"), "miss");
  EXPECT_EQ(r.body, "0123456789");
  EXPECT_EQ(origin_.count("/h"), 2);
  r = gwtest::fetch(port_, "POST /h HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2\r\n\r\nhi");
  EXPECT_EQ(r.header("x-cache-status"), "bypass");
  EXPECT_EQ(r.body, "0123456789");
  EXPECT_EQ(origin_.count("/h"), 3);
}

TEST_F(CacheE2E, ABlockedRequestIsNeverAnsweredFromTheCache) {
  dir_.file("deny.txt", "127.0.0.2/32\n");
  origin_.set("/p", "Cache-Control: max-age=60\r\n", "secret\n");
  start(R"({"store": "memory"})",
        R"(, "ip_lists": [{"id": "bad-ips", "file": "deny.txt", "action": "deny"}])");
  EXPECT_EQ(get("/p").header("x-cache-status"), "miss");
  EXPECT_EQ(get("/p").header("x-cache-status"), "hit");
  Response r = get("/p", "", "a.test", "127.0.0.2");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.header("x-gatebench-rule"), "bad-ips");
  EXPECT_FALSE(r.has("x-cache-status"));
  EXPECT_EQ(r.body.find("secret"), std::string::npos);
}

TEST_F(CacheE2E, MaxBytesEvictsAndLargeResponsesAreNotStored) {
  for (int i = 0; i < 10; ++i) {
    origin_.set("/b" + std::to_string(i), "Cache-Control: max-age=60\r\n",
                std::string(3000, static_cast<char>('a' + i)));
  }
  origin_.set("/large", "Cache-Control: max-age=60\r\n", std::string(5000, 'L'));
  start(R"({"store": "memory", "max_bytes": 16384, "max_entry_bytes": 4096})");
  // The second round in reverse: the last entries stored are still there (a cyclic scan larger
  // than the store would miss everything, under CLOCK as under LRU).
  for (int round = 0; round < 2; ++round) {
    for (int k = 0; k < 10; ++k) {
      const int i = round == 0 ? k : 9 - k;
      Response r = get("/b" + std::to_string(i));
      ASSERT_TRUE(r.ok);
      EXPECT_EQ(r.body, std::string(3000, static_cast<char>('a' + i)));
    }
  }
  // At most five 3,000-byte entries fit in 16 KiB: of the ten, five or more went out and were
  // fetched again.
  int origin_requests = 0;
  for (int i = 0; i < 10; ++i) origin_requests += origin_.count("/b" + std::to_string(i));
  EXPECT_GE(origin_requests, 15);
  EXPECT_LT(origin_requests, 20);
  EXPECT_EQ(get("/large").header("x-cache-status"), "miss");
  EXPECT_EQ(get("/large").header("x-cache-status"), "miss");
  EXPECT_EQ(origin_.count("/large"), 2);
}

TEST_F(CacheE2E, AHitThatWaitsForTheClientSurvivesAnEviction) {
  // One 1 MiB entry fits, two do not: while the first client does not read its hit (1 MiB is
  // more than the socket buffers take), a second client's miss replaces the entry the hit was
  // sent from.
  origin_.set("/big1", "Cache-Control: max-age=60\r\n", std::string(1 << 20, 'x'));
  origin_.set("/big2", "Cache-Control: max-age=60\r\n", std::string(1 << 20, 'y'));
  start(R"({"store": "memory", "max_bytes": 1500000, "max_entry_bytes": 1100000})");
  ASSERT_EQ(get("/big1").body.size(), 1u << 20);
  Conn slow(gwtest::connect_to(port_));
  ASSERT_TRUE(slow.send(gwtest::get_request("a.test", "/big1")));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(get("/big2").header("x-cache-status"), "miss");
  EXPECT_EQ(get("/big2").header("x-cache-status"), "hit");
  Response r = slow.read_response();
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.header("x-cache-status"), "hit");
  EXPECT_EQ(r.body, std::string(1 << 20, 'x'));
  EXPECT_EQ(origin_.count("/big1"), 1);
}

TEST_F(CacheE2E, AnExpiredEntryAnswersWhenTheOriginFails) {
  origin_.set("/st", "Cache-Control: max-age=1\r\n", "old\n");
  start();
  EXPECT_EQ(get("/st").header("x-cache-status"), "miss");
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  origin_.set_close("/st");
  Response r = get("/st");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("x-cache-status"), "stale");
  EXPECT_EQ(r.body, "old\n");
  EXPECT_GE(std::stoi(r.header("age")), 2);
  // Without an entry the failure is the usual 502.
  origin_.set_close("/none");
  EXPECT_EQ(get("/none").status, 502);
}

}  // namespace
