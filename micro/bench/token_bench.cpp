// token/<impl>/<kind>: verifying a signed admission or pass cookie.
//   gatecore      precomputed HMAC inner/outer states, two compressions
//   (micro/core/tokens/token.hpp) hmac_oneshot  OpenSSL HMAC() + CRYPTO_memcmp per call evp_mac
//   OpenSSL EVP_MAC with one reused context per key limit         two chained SHA-256 compressions
//   (OpenSSL's SHA256_Transform), nothing else
// jwt/<impl>/hs256: verifying a ~200-character HS256 bearer token (fixtures::make_sized_jwt).
//   gatecore   micro/core/tokens/jwt_hs256.hpp: no allocation, precomputed HMAC states
//   nlohmann   std::string segments, nlohmann::json, OpenSSL HMAC() + CRYPTO_memcmp
//   limit      the compressions HMAC-SHA256 needs for that signing input with precomputed key
//              states: ceil((input + 9) / 64) inner blocks + 1 outer block (4 for ~157 bytes)
// Every impl verifies the same 1,024 tokens (minted under the ring's current and previous keys),
// round robin; pass tokens are presented by the client they were minted for.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fixtures/token_fixtures.hpp"
#include "micro/core/tokens/jwt_hs256.hpp"
#include "micro/core/tokens/token.hpp"
#include "micro/peers/token_jwt_nlohmann.hpp"
#include "micro/peers/token_limit.hpp"
#include "micro/peers/token_openssl_peers.hpp"

namespace {

using gatebench::tokens::TokenKeyRing;
using gatebench::tokens::VerifyStatus;
namespace fx = gatebench::fixtures;
namespace peers = gatebench::peers;

constexpr std::size_t kTokens = 1024;
constexpr std::uint64_t kNow = fx::kTokenNow;

struct TokenSet {
  TokenKeyRing ring;
  peers::HmacOneshotTokenVerifier oneshot;
  peers::EvpMacTokenVerifier evp;
  std::vector<std::string> admission;
  std::vector<std::string> pass;
  std::vector<fx::TokenClient> clients;
  std::vector<std::uint8_t> limit_blocks;

  TokenSet() {
    for (std::uint8_t id : {1, 2}) {
      const auto secret = fx::token_secret(id);
      oneshot.add_key(id, secret);
      evp.add_key(id, secret);
    }
    clients = fx::token_clients(kTokens);
    fx::Rng rng = fx::Rng(fx::kDefaultSeed).fork("token-bench");
    ring.rotate(1, fx::token_secret(1));
    for (std::size_t i = 0; i < kTokens; ++i) {
      if (i == kTokens / 4)
        ring.rotate(2, fx::token_secret(2));  // a quarter under the previous key
      const auto expiry = static_cast<std::uint32_t>(kNow + 60 + rng.below(3600));
      admission.emplace_back(
          gatebench::tokens::mint_admission(ring, expiry, static_cast<std::uint32_t>(rng.below(64)),
                                            rng.next())
              .view());
      pass.emplace_back(
          gatebench::tokens::mint_pass(ring, expiry, clients[i].ipv4, clients[i].user_agent)
              .view());
    }
    limit_blocks.resize(kTokens * 128);
    for (auto& b : limit_blocks) b = static_cast<std::uint8_t>(rng.next());
  }
};

const TokenSet& tokens() {
  static const TokenSet set;
  return set;
}

// Runs `verify(i)` round robin; first checks that every token verifies, so a benchmark never
// measures a fast rejection.
template <typename Verify>
void run(benchmark::State& state, Verify&& verify) {
  for (std::size_t i = 0; i < kTokens; ++i) {
    if (verify(i) != VerifyStatus::ok) {
      state.SkipWithError("a fixture token did not verify");
      return;
    }
  }
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(verify(i));
    i = (i + 1) % kTokens;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void BM_gatecore_admission(benchmark::State& state) {
  const TokenSet& t = tokens();
  run(state, [&](std::size_t i) {
    return gatebench::tokens::verify_admission(t.ring, t.admission[i], kNow);
  });
}
void BM_gatecore_pass(benchmark::State& state) {
  const TokenSet& t = tokens();
  run(state, [&](std::size_t i) {
    return gatebench::tokens::verify_pass(t.ring, t.pass[i], kNow, t.clients[i].ipv4,
                                          t.clients[i].user_agent);
  });
}
void BM_oneshot_admission(benchmark::State& state) {
  const TokenSet& t = tokens();
  run(state, [&](std::size_t i) { return t.oneshot.verify_admission(t.admission[i], kNow); });
}
void BM_oneshot_pass(benchmark::State& state) {
  const TokenSet& t = tokens();
  run(state, [&](std::size_t i) {
    return t.oneshot.verify_pass(t.pass[i], kNow, t.clients[i].ipv4, t.clients[i].user_agent);
  });
}
void BM_evp_admission(benchmark::State& state) {
  const TokenSet& t = tokens();
  run(state, [&](std::size_t i) { return t.evp.verify_admission(t.admission[i], kNow); });
}
void BM_evp_pass(benchmark::State& state) {
  const TokenSet& t = tokens();
  run(state, [&](std::size_t i) {
    return t.evp.verify_pass(t.pass[i], kNow, t.clients[i].ipv4, t.clients[i].user_agent);
  });
}
void BM_limit(benchmark::State& state) {
  const TokenSet& t = tokens();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(peers::sha256_chained_compressions(&t.limit_blocks[128 * i], 2));
    i = (i + 1) % kTokens;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

constexpr std::size_t kJwtSize = 200;

struct JwtSet {
  gatebench::tokens::JwtKeyRing ring;
  peers::NlohmannJwtVerifier nlohmann;
  std::vector<std::string> tokens;
  std::size_t compressions = 0;
  std::vector<std::uint8_t> limit_blocks;

  JwtSet() {
    const auto secret = fx::token_secret(1);
    ring.rotate("k1", secret);
    nlohmann.add_key("k1", secret);
    fx::Rng rng = fx::Rng(fx::kDefaultSeed).fork("jwt-bench");
    std::size_t signing_input = 0;
    for (std::size_t i = 0; i < kTokens; ++i) {
      tokens.push_back(fx::make_sized_jwt(kJwtSize, secret, rng));
      signing_input = std::max(signing_input, tokens.back().rfind('.'));
    }
    compressions = (signing_input + 9 + 63) / 64 + 1;
    limit_blocks.resize(kTokens * 64 * compressions);
    for (auto& b : limit_blocks) b = static_cast<std::uint8_t>(rng.next());
  }
};

const JwtSet& jwts() {
  static const JwtSet set;
  return set;
}

void BM_jwt_gatecore(benchmark::State& state) {
  const JwtSet& j = jwts();
  run(state, [&](std::size_t i) {
    return gatebench::tokens::verify_jwt_hs256(j.ring, j.tokens[i],
                                               static_cast<std::int64_t>(kNow));
  });
  state.counters["token_bytes"] = static_cast<double>(j.tokens[0].size());
}
void BM_jwt_nlohmann(benchmark::State& state) {
  const JwtSet& j = jwts();
  run(state, [&](std::size_t i) {
    return j.nlohmann.verify(j.tokens[i], static_cast<std::int64_t>(kNow));
  });
  state.counters["token_bytes"] = static_cast<double>(j.tokens[0].size());
}
void BM_jwt_limit(benchmark::State& state) {
  const JwtSet& j = jwts();
  const std::size_t stride = 64 * j.compressions;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        peers::sha256_chained_compressions(&j.limit_blocks[stride * i], j.compressions));
    i = (i + 1) % kTokens;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["compressions"] = static_cast<double>(j.compressions);
}

BENCHMARK(BM_gatecore_admission)->Name("token/gatecore/admission");
BENCHMARK(BM_gatecore_pass)->Name("token/gatecore/pass");
BENCHMARK(BM_oneshot_admission)->Name("token/hmac_oneshot/admission");
BENCHMARK(BM_oneshot_pass)->Name("token/hmac_oneshot/pass");
BENCHMARK(BM_evp_admission)->Name("token/evp_mac/admission");
BENCHMARK(BM_evp_pass)->Name("token/evp_mac/pass");
// The floor for both kinds is the same two compressions; the pass verify's extra
// work (SipHash of the address and User-Agent) is measured against it, not hidden in it.
BENCHMARK(BM_limit)->Name("token/limit/admission");
BENCHMARK(BM_limit)->Name("token/limit/pass");
BENCHMARK(BM_jwt_gatecore)->Name("jwt/gatecore/hs256");
BENCHMARK(BM_jwt_nlohmann)->Name("jwt/nlohmann/hs256");
BENCHMARK(BM_jwt_limit)->Name("jwt/limit/hs256");

}  // namespace
