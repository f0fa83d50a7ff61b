// gatecore's token verify against the two OpenSSL peers (one-shot HMAC(), EVP_MAC) on generated
// tokens: valid ones, ones from unknown keys or other secrets, expired ones, other clients, and
// random single edits. All three must give the same reason every time.
#include <gtest/gtest.h>

#include <string>

#include "fixtures/token_fixtures.hpp"
#include "micro/core/tokens/token.hpp"
#include "micro/peers/token_openssl_peers.hpp"

namespace gatebench::tokens {
namespace {

namespace fx = fixtures;

TEST(TokenPeers, AgreeOnGeneratedAndMutatedTokens) {
  TokenKeyRing ring;
  ring.rotate(1, fx::token_secret(1));
  ring.rotate(2, fx::token_secret(2));
  peers::HmacOneshotTokenVerifier oneshot;
  peers::EvpMacTokenVerifier evp;
  for (std::uint8_t id : {1, 2}) {
    oneshot.add_key(id, fx::token_secret(id));
    evp.add_key(id, fx::token_secret(id));
  }
  // Minting rings the verifiers do not (fully) know: an unknown id, and a known id with another
  // secret.
  TokenKeyRing unknown;
  unknown.rotate(3, fx::token_secret(3));
  TokenKeyRing impostor;
  impostor.rotate(2, fx::token_secret(4));
  const TokenKeyRing* minters[] = {&ring, &ring, &ring, &unknown, &impostor};

  const auto clients = fx::token_clients(64);
  fx::Rng rng(fx::kDefaultSeed ^ 0x7065);
  int outcomes[16] = {};
  for (int i = 0; i < 30000; ++i) {
    const TokenKeyRing& minter = *minters[rng.below(5)];
    const auto expiry = static_cast<std::uint32_t>(fx::kTokenNow + rng.below(200)) - 100;
    const auto& client = clients[rng.below(clients.size())];
    const bool admission = rng.chance(1, 2);
    std::string token(
        admission
            ? mint_admission(minter, expiry, static_cast<std::uint32_t>(rng.below(8)), rng.next())
                  .view()
            : mint_pass(minter, expiry, client.ipv4, client.user_agent).view());
    switch (rng.below(6)) {
      case 0:
        token[rng.below(token.size())] = "Aa0-_=."[rng.below(7)];
        break;
      case 1:
        token.resize(rng.below(token.size()));
        break;
      case 2:
        token += "A";
        break;
      default:
        break;
    }
    const auto& presenter = rng.chance(1, 8) ? clients[rng.below(clients.size())] : client;
    const std::uint64_t now = fx::kTokenNow;
    VerifyStatus ours, a, b;
    if (rng.chance(1, 2) == admission) {
      ours = verify_admission(ring, token, now);
      a = oneshot.verify_admission(token, now);
      b = evp.verify_admission(token, now);
    } else {
      ours = verify_pass(ring, token, now, presenter.ipv4, presenter.user_agent);
      a = oneshot.verify_pass(token, now, presenter.ipv4, presenter.user_agent);
      b = evp.verify_pass(token, now, presenter.ipv4, presenter.user_agent);
    }
    ASSERT_EQ(ours, a) << token;
    ASSERT_EQ(ours, b) << token;
    ++outcomes[static_cast<int>(ours)];
  }
  for (VerifyStatus s : {VerifyStatus::ok, VerifyStatus::malformed, VerifyStatus::wrong_kind,
                         VerifyStatus::unknown_key, VerifyStatus::bad_signature,
                         VerifyStatus::expired, VerifyStatus::wrong_binding}) {
    EXPECT_GT(outcomes[static_cast<int>(s)], 100) << to_string(s);
  }
}

}  // namespace
}  // namespace gatebench::tokens
