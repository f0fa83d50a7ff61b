// The key ring of a reloaded configuration (carry_token_keys): cookies minted before a SIGHUP
// rotation still verify, a reload without rotation keeps the previous key, and reusing a key id
// with another secret is refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "macro/gateway/config.hpp"
#include "macro/gateway/features.hpp"
#include "micro/core/tokens/token.hpp"

namespace gw = gatebench::gateway;
namespace tokens = gatebench::tokens;

namespace {

constexpr std::uint64_t kNow = 1'800'000'000;
constexpr std::uint32_t kIp = 0xC0000201;

std::shared_ptr<const tokens::TokenKeyRing> ring(std::uint8_t id, std::uint8_t fill) {
  auto r = std::make_shared<tokens::TokenKeyRing>();
  r->rotate(id, std::vector<std::uint8_t>(32, fill));
  return r;
}

tokens::VerifyStatus check(const tokens::TokenKeyRing& r, const tokens::TokenText& t) {
  return tokens::verify_pass(r, t.view(), kNow, kIp, "ua");
}

TEST(TokenReload, ANewKeyIdKeepsTheRunningKeyAsPrevious) {
  const auto running = ring(1, 0x11);
  const tokens::TokenText before = tokens::mint_pass(*running, kNow + 60, kIp, "ua");
  const auto next = gw::carry_token_keys(running.get(), ring(2, 0x22), "gw.json");
  EXPECT_EQ(check(*next, before), tokens::VerifyStatus::ok);
  EXPECT_EQ(next->current()->id, 2);
  const tokens::TokenText after = tokens::mint_pass(*next, kNow + 60, kIp, "ua");
  EXPECT_EQ(check(*next, after), tokens::VerifyStatus::ok);
  EXPECT_EQ(check(*running, after), tokens::VerifyStatus::unknown_key);
  // A second rotation drops key 1.
  const auto third = gw::carry_token_keys(next.get(), ring(3, 0x33), "gw.json");
  EXPECT_EQ(check(*third, before), tokens::VerifyStatus::unknown_key);
  EXPECT_EQ(check(*third, after), tokens::VerifyStatus::ok);
}

TEST(TokenReload, TheSameKeyKeepsTheRunningRingPreviousIncluded) {
  const auto rotated = gw::carry_token_keys(ring(1, 0x11).get(), ring(2, 0x22), "gw.json");
  const tokens::TokenText old = tokens::mint_pass(*ring(1, 0x11), kNow + 60, kIp, "ua");
  const auto again = gw::carry_token_keys(rotated.get(), ring(2, 0x22), "gw.json");
  EXPECT_EQ(again->current()->id, 2);
  EXPECT_EQ(check(*again, old), tokens::VerifyStatus::ok);
}

TEST(TokenReload, TheSameIdWithAnotherSecretIsRefused) {
  try {
    gw::carry_token_keys(ring(1, 0x11).get(), ring(1, 0x12), "gw.json");
    ADD_FAILURE() << "no error";
  } catch (const gw::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("gw.json: /tokens: key_id 1"), std::string::npos)
        << e.what();
  }
}

TEST(TokenReload, WithoutTokensOnEitherSideTheNextRingAsItIs) {
  const auto next = ring(2, 0x22);
  EXPECT_EQ(gw::carry_token_keys(nullptr, next, "gw.json"), next);
  EXPECT_EQ(gw::carry_token_keys(ring(1, 0x11).get(), nullptr, "gw.json"), nullptr);
}

}  // namespace
