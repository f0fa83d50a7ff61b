// Review hardening of the queue and the challenge (issue 19): token ids derived from host names
// (stable when hosts are reordered, a collision refused naming both hosts) and the bounded set of
// used challenge nonces.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "macro/common/json_field.hpp"
#include "macro/gateway/config.hpp"
#include "macro/gateway/config_json.hpp"
#include "macro/gateway/features.hpp"

namespace gw = gatebench::gateway;

namespace {

std::string host_json(const std::string& name) {
  return R"({"names": [")" + name + R"("], "upstream": "127.0.0.1:9", "queue": {"capacity": 1},
             "challenge": {}})";
}

std::string config_json(const std::string& first, const std::string& second) {
  return R"({"listeners": [{"port": 8080}], "tokens": {"secret_hex": ")" + std::string(64, 'a') +
         R"("}, "hosts": [)" + host_json(first) + ", " + host_json(second) + "]}";
}

const gw::HostFeatures& features_of(const gw::Config& c, const std::string& name) {
  for (const gw::HostConfig& h : c.hosts) {
    if (h.names.front() == name) return *h.features;
  }
  throw std::runtime_error("no host " + name);
}

TEST(TokenIds, FollowTheHostNameNotItsPosition) {
  const auto ab = gw::parse_config(config_json("a.test", "b.test"), "ab.json");
  const auto ba = gw::parse_config(config_json("b.test", "A.Test"), "ba.json");
  for (const std::string name : {"a.test", "b.test"}) {
    const gw::HostFeatures& x = features_of(*ab, name);
    const gw::HostFeatures& y = features_of(*ba, name);
    EXPECT_EQ(x.queue->queue_id, y.queue->queue_id) << name;
    EXPECT_EQ(x.challenge->nonce_queue_id, y.challenge->nonce_queue_id) << name;
    EXPECT_EQ(x.queue->queue_id, gw::host_token_id(name));
    // Queue ids and nonce ids live in disjoint halves of the 32-bit space.
    EXPECT_EQ(x.queue->queue_id & gw::kNonceIdBit, 0u);
    EXPECT_EQ(x.challenge->nonce_queue_id, x.queue->queue_id | gw::kNonceIdBit);
  }
  EXPECT_NE(features_of(*ab, "a.test").queue->queue_id, features_of(*ab, "b.test").queue->queue_id);
}

// Two names with the same 31-bit id, found once by a brute-force search over "<n>.test" (the
// first collision is at n = 797186); the test checks that they still collide.
constexpr std::string_view kCollidingA = "40189.test";
constexpr std::string_view kCollidingB = "797186.test";

TEST(TokenIds, ACollisionIsAConfigErrorNamingBothHosts) {
  const std::string a(kCollidingA);
  const std::string b(kCollidingB);
  ASSERT_EQ(gw::host_token_id(a), gw::host_token_id(b));
  // Loading the configuration runs the check: exit 2 at start, a refused reload.
  try {
    gw::parse_config(config_json(a, b), "gw.json");
    ADD_FAILURE() << "no error for " << a << " and " << b;
  } catch (const gw::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gw.json: /hosts"), std::string::npos) << what;
    EXPECT_NE(what.find("\"" + a + "\""), std::string::npos) << what;
    EXPECT_NE(what.find("\"" + b + "\""), std::string::npos) << what;
  }
  // Distinct ids pass.
  const std::string ok = config_json("a.test", "b.test");
  const nlohmann::json ok_doc = nlohmann::json::parse(ok);
  EXPECT_NO_THROW(
      gw::check_token_ids(gw::Field(gatebench::common::JsonField(ok_doc, "ok.json")).child("hosts"),
                          gw::parse_config(ok, "ok.json")->hosts));
}

TEST(NonceLedger, EachNonceOnceAndBoundedPastTheCap) {
  gw::NonceLedger ledger(4);
  const std::uint64_t first = ledger.next_id();
  EXPECT_NE(ledger.next_id(), first);
  EXPECT_TRUE(ledger.use(1, 100, 50));
  EXPECT_FALSE(ledger.use(1, 100, 50));
  EXPECT_TRUE(ledger.use(2, 100, 50));
  EXPECT_TRUE(ledger.use(3, 60, 50));
  EXPECT_TRUE(ledger.use(4, 60, 50));
  // Full, nothing expired: refused (the client is asked the challenge again).
  EXPECT_FALSE(ledger.use(5, 100, 59));
  EXPECT_EQ(ledger.size(), 4u);
  // Past the expiry of 3 and 4 they are swept and the ledger takes new nonces again.
  EXPECT_TRUE(ledger.use(5, 100, 60));
  EXPECT_EQ(ledger.size(), 3u);
  EXPECT_FALSE(ledger.use(1, 100, 60));  // still remembered until it expires
  for (std::uint64_t id = 6; id < 1000; ++id) ledger.use(id, 100 + id, 70);
  EXPECT_LE(ledger.size(), 4u);
}

// Issue 41, item 6: a nonce is forgotten at its expiry whatever the order nonces were used in,
// and a refused nonce leaves no trace.
TEST(NonceLedger, EntriesLeaveAtTheirOwnExpiryNotInUseOrder) {
  gw::NonceLedger ledger(3);
  EXPECT_TRUE(ledger.use(10, 200, 100));  // used first, expires last
  EXPECT_TRUE(ledger.use(11, 150, 100));
  EXPECT_TRUE(ledger.use(12, 120, 100));
  EXPECT_FALSE(ledger.use(13, 200, 119));  // full until 12 expires
  EXPECT_TRUE(ledger.use(13, 200, 120));   // 12 went, 10 and 11 stay
  EXPECT_FALSE(ledger.use(10, 200, 120));
  EXPECT_FALSE(ledger.use(11, 150, 149));
  EXPECT_EQ(ledger.size(), 3u);
  EXPECT_TRUE(ledger.use(14, 300, 150));  // 11 went at 150
  EXPECT_TRUE(ledger.use(11, 300, 200));  // expired nonces are forgotten: 10 and 13 went at 200
  EXPECT_EQ(ledger.size(), 2u);
}

// A full ledger of the gateway's size answers in constant time: refusing a nonce takes well under
// 50 us, where a sweep of its 131,072 entries per call took about 340 us (debug build). The
// fastest of five batches counts, so a batch the scheduler interrupted does not.
TEST(NonceLedger, AFullLedgerRefusesWithoutScanningIt) {
  constexpr std::uint64_t kCapacity = 131072;
  gw::NonceLedger ledger(kCapacity);
  std::uint64_t id = 1;
  while (ledger.use(id, 1000, 10)) ++id;
  ASSERT_GE(ledger.size(), kCapacity * 15 / 16) << "the shards fill evenly";
  constexpr int kBatch = 200;
  auto fastest = std::chrono::steady_clock::duration::max();
  for (int batch = 0; batch < 5; ++batch) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) ASSERT_FALSE(ledger.use(++id, 1000, 20));
    fastest = std::min(fastest, std::chrono::steady_clock::now() - t0);
  }
  EXPECT_LT(fastest, std::chrono::microseconds(50) * kBatch)
      << std::chrono::duration_cast<std::chrono::microseconds>(fastest).count() << " us for "
      << kBatch << " refusals";
}

}  // namespace
