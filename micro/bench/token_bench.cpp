// token/<impl>/<kind>: verifying a signed admission or pass cookie.
//   gatecore      precomputed HMAC inner/outer states, two compressions
//                 (micro/core/tokens/token.hpp)
//   hmac_oneshot  OpenSSL HMAC() + CRYPTO_memcmp per call
//   evp_mac       OpenSSL EVP_MAC with one reused context per key
//   limit         two chained SHA-256 compressions (OpenSSL's SHA256_Transform), nothing else
// jwt/<impl>/hs256: verifying a ~200-character HS256 bearer token (fixtures::make_sized_jwt).
//   gatecore      micro/core/tokens/jwt_hs256.hpp: no allocation, precomputed HMAC states
//   nlohmann      std::string segments, nlohmann::json, OpenSSL HMAC() + CRYPTO_memcmp
//   limit         the compressions HMAC-SHA256 needs for that signing input with precomputed key
//                 states: ceil((input + 9) / 64) inner blocks + 1 outer block (4 for ~157 bytes)
// jwt/<impl>/es256: verifying ES256 bearer tokens (P-256; claims as the HS256 ones, 86-character
// signature), 256 of them.
//   gatecore      micro/core/tokens/jwt_verify.hpp: JwtVerifier, the gateway's path (OpenSSL
//                 EVP_PKEY_verify on a context initialised once, DER built on the stack)
//   openssl       nlohmann::json + ECDSA_SIG/i2d_ECDSA_SIG + EVP_DigestVerify per call
//                 (micro/peers/token_es256_openssl.hpp)
//   limit         the ECDSA verification alone on precomputed digests and DER signatures
// jwt/gatecore/hs256_keyset: JwtVerifier on the HS256 tokens (the gateway's path for HS256).
// Every impl verifies the same 1,024 tokens (minted under the ring's current and previous keys),
// round robin; pass tokens are presented by the client they were minted for.
// <kind>_input, hs256_input: the tokens of --input tokens=FILE instead (docs/micro-input.md),
// the JWT limit counting each token's own compressions.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fixtures/token_fixtures.hpp"
#include "micro/bench/input_benchmarks.hpp"
#include "micro/bench/input_tokens.hpp"
#include "micro/core/tokens/base64url.hpp"
#include "micro/core/tokens/jwt_hs256.hpp"
#include "micro/core/tokens/jwt_verify.hpp"
#include "micro/core/tokens/token.hpp"
#include "micro/peers/token_es256_openssl.hpp"
#include "micro/peers/token_jwt_nlohmann.hpp"
#include "micro/peers/token_limit.hpp"

namespace {

using gatebench::bench::TokenCorpus;
using gatebench::tokens::VerifyStatus;
namespace fx = gatebench::fixtures;
namespace peers = gatebench::peers;

constexpr std::size_t kTokens = 1024;
constexpr std::size_t kJwtSize = 200;
constexpr std::size_t kBlock = 64;

// The limit's input: random blocks, count[i] of them for token i, starting at first[i].
struct LimitBlocks {
  std::vector<std::uint8_t> bytes;
  std::vector<std::size_t> first, count;

  LimitBlocks(fx::Rng& rng, const std::vector<std::size_t>& compressions) : count(compressions) {
    for (const std::size_t n : count) {
      first.push_back(bytes.size());
      bytes.resize(bytes.size() + kBlock * n);
    }
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng.next());
  }
  double mean_count() const {
    double sum = 0;
    for (const std::size_t n : count) sum += static_cast<double>(n);
    return count.empty() ? 0 : sum / static_cast<double>(count.size());
  }
};

// The compressions HMAC-SHA256 of a JWT's signing input costs with precomputed key states.
std::size_t jwt_compressions(const std::string& token) {
  const std::size_t signing_input = token.rfind('.');
  return (signing_input + 9 + kBlock - 1) / kBlock + 1;
}

// A corpus and the floors of its three kinds.
struct TokenBench {
  const TokenCorpus& c;
  LimitBlocks admission_limit, pass_limit, jwt_limit;
  double jwt_bytes = 0;  // mean characters of a JWT

  TokenBench(const TokenCorpus& corpus, fx::Rng rng, const std::vector<std::size_t>& jwt_cost)
      : c(corpus),
        admission_limit(rng, std::vector<std::size_t>(corpus.admission.size(), 2)),
        pass_limit(rng, std::vector<std::size_t>(corpus.pass.size(), 2)),
        jwt_limit(rng, jwt_cost) {
    for (const std::string& t : c.jwt) jwt_bytes += static_cast<double>(t.size());
    if (!c.jwt.empty()) jwt_bytes /= static_cast<double>(c.jwt.size());
  }
};

std::unique_ptr<TokenCorpus> seeded_corpus() {
  auto corpus = std::make_unique<TokenCorpus>();
  TokenCorpus& c = *corpus;
  c.now = fx::kTokenNow;
  c.clients = fx::token_clients(kTokens);
  fx::Rng rng = fx::Rng(fx::kDefaultSeed).fork("token-bench");
  c.add_key(1, fx::token_secret(1));
  for (std::size_t i = 0; i < kTokens; ++i) {
    if (i == kTokens / 4) c.add_key(2, fx::token_secret(2));  // a quarter under the previous key
    const auto expiry = static_cast<std::uint32_t>(c.now + 60 + rng.below(3600));
    c.admission.emplace_back(
        gatebench::tokens::mint_admission(c.ring, expiry, static_cast<std::uint32_t>(rng.below(64)),
                                          rng.next())
            .view());
    c.pass.emplace_back(
        gatebench::tokens::mint_pass(c.ring, expiry, c.clients[i].ipv4, c.clients[i].user_agent)
            .view());
  }
  const auto secret = fx::token_secret(1);
  c.add_jwt_key("k1", secret);
  fx::Rng jwt_rng = fx::Rng(fx::kDefaultSeed).fork("jwt-bench");
  for (std::size_t i = 0; i < kTokens; ++i)
    c.jwt.push_back(fx::make_sized_jwt(kJwtSize, secret, jwt_rng));
  return corpus;
}

const TokenBench& seeded() {
  static const std::unique_ptr<TokenCorpus> corpus = seeded_corpus();
  // The seeded tokens are all about the same size: every one gets the largest one's count.
  static const TokenBench bench = [] {
    std::size_t most = 0;
    for (const std::string& t : corpus->jwt) most = std::max(most, jwt_compressions(t));
    return TokenBench(*corpus, fx::Rng(fx::kDefaultSeed).fork("token-bench/limit"),
                      std::vector<std::size_t>(corpus->jwt.size(), most));
  }();
  return bench;
}

// Runs `verify(i)` round robin over `count` tokens; first checks that every token verifies, so a
// benchmark never measures a fast rejection.
template <typename Verify>
void run(benchmark::State& state, std::size_t count, Verify&& verify) {
  for (std::size_t i = 0; i < count; ++i) {
    if (verify(i) != VerifyStatus::ok) {
      state.SkipWithError("a token did not verify");
      return;
    }
  }
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(verify(i));
    if (++i == count) i = 0;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void run_limit(benchmark::State& state, const LimitBlocks& l) {
  const std::uint8_t* bytes = l.bytes.data();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(peers::sha256_chained_compressions(bytes + l.first[i], l.count[i]));
    if (++i == l.count.size()) i = 0;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void gatecore_admission(benchmark::State& state, const TokenBench& b) {
  const TokenCorpus& c = b.c;
  run(state, c.admission.size(), [&](std::size_t i) {
    return gatebench::tokens::verify_admission(c.ring, c.admission[i], c.now);
  });
}
void gatecore_pass(benchmark::State& state, const TokenBench& b) {
  const TokenCorpus& c = b.c;
  run(state, c.pass.size(), [&](std::size_t i) {
    return gatebench::tokens::verify_pass(c.ring, c.pass[i], c.now, c.clients[i].ipv4,
                                          c.clients[i].user_agent);
  });
}
// The OpenSSL peers, TokenCorpus::oneshot or TokenCorpus::evp: the same calls, another MAC.
template <auto Peer>
void peer_admission(benchmark::State& state, const TokenBench& b) {
  const TokenCorpus& c = b.c;
  run(state, c.admission.size(),
      [&](std::size_t i) { return (c.*Peer).verify_admission(c.admission[i], c.now); });
}
template <auto Peer>
void peer_pass(benchmark::State& state, const TokenBench& b) {
  const TokenCorpus& c = b.c;
  run(state, c.pass.size(), [&](std::size_t i) {
    return (c.*Peer).verify_pass(c.pass[i], c.now, c.clients[i].ipv4, c.clients[i].user_agent);
  });
}
void admission_limit(benchmark::State& state, const TokenBench& b) {
  run_limit(state, b.admission_limit);
}
void pass_limit(benchmark::State& state, const TokenBench& b) {
  run_limit(state, b.pass_limit);
}

void jwt_gatecore(benchmark::State& state, const TokenBench& b) {
  const TokenCorpus& c = b.c;
  run(state, c.jwt.size(), [&](std::size_t i) {
    return gatebench::tokens::verify_jwt_hs256(c.jwt_ring, c.jwt[i],
                                               static_cast<std::int64_t>(c.now));
  });
  state.counters["token_bytes"] = b.jwt_bytes;
}
void jwt_nlohmann(benchmark::State& state, const TokenBench& b) {
  const TokenCorpus& c = b.c;
  run(state, c.jwt.size(),
      [&](std::size_t i) { return c.nlohmann.verify(c.jwt[i], static_cast<std::int64_t>(c.now)); });
  state.counters["token_bytes"] = b.jwt_bytes;
}
void jwt_limit(benchmark::State& state, const TokenBench& b) {
  run_limit(state, b.jwt_limit);
  state.counters["compressions"] = b.jwt_limit.mean_count();
}

// ES256: one key, tokens with the claims of make_sized_jwt's under an ES256 header.
struct Es256Bench {
  std::shared_ptr<gatebench::tokens::JwtKeySet> keys =
      std::make_shared<gatebench::tokens::JwtKeySet>();
  peers::OpenSslJwtVerifier peer;
  std::vector<std::string> tokens;
  std::vector<gatebench::tokens::Sha256Digest> digests;  // of each token's signing input
  std::vector<std::vector<std::uint8_t>> signatures;     // R || S
  std::shared_ptr<gatebench::tokens::JwtKeySet> hs_keys =
      std::make_shared<gatebench::tokens::JwtKeySet>();
  gatebench::tokens::JwtRequirements required;

  Es256Bench() {
    const auto signer = peers::Es256SigningKey::from_seed(fx::kDefaultSeed);
    const std::string pem = signer.public_pem();
    keys->add_es256("es1", gatebench::tokens::Es256PublicKey::from_pem(pem));
    peer.add_es256("es1", pem);
    hs_keys->add_hs256("k1", fx::token_secret(1));
    fx::Rng rng = fx::Rng(fx::kDefaultSeed).fork("jwt-bench/es256");
    for (std::size_t i = 0; i < 256; ++i) {
      // The claims of an HS256 fixture token, re-signed: the same sizes as jwt/*/hs256.
      const std::string hs = fx::make_sized_jwt(kJwtSize, fx::token_secret(1), rng);
      const std::size_t dot1 = hs.find('.');
      const auto claims =
          peers::textbook_base64url_decode(hs.substr(dot1 + 1, hs.rfind('.') - dot1 - 1));
      tokens.push_back(signer.sign_jwt(R"({"alg":"ES256","typ":"JWT","kid":"es1"})", *claims));
      const std::string& t = tokens.back();
      const std::string input = t.substr(0, t.rfind('.'));
      digests.push_back(gatebench::tokens::sha256(
          {reinterpret_cast<const std::uint8_t*>(input.data()), input.size()}));
      std::vector<std::uint8_t> sig(64);
      gatebench::tokens::base64url_decode(t.substr(t.rfind('.') + 1), sig);
      signatures.push_back(std::move(sig));
    }
  }
};

const Es256Bench& es256() {
  static const Es256Bench b;
  return b;
}

void jwt_gatecore_es256(benchmark::State& state) {
  const Es256Bench& b = es256();
  gatebench::tokens::JwtVerifier v(b.keys);
  run(state, b.tokens.size(), [&](std::size_t i) {
    return v.verify(b.tokens[i], static_cast<std::int64_t>(fx::kTokenNow), b.required);
  });
}

void jwt_openssl_es256(benchmark::State& state) {
  const Es256Bench& b = es256();
  run(state, b.tokens.size(), [&](std::size_t i) {
    return b.peer.verify(b.tokens[i], static_cast<std::int64_t>(fx::kTokenNow), b.required);
  });
}

void jwt_limit_es256(benchmark::State& state) {
  const Es256Bench& b = es256();
  const gatebench::tokens::Es256Verifier v(gatebench::tokens::Es256PublicKey::from_pem(
      peers::Es256SigningKey::from_seed(fx::kDefaultSeed).public_pem()));
  run(state, b.tokens.size(), [&](std::size_t i) {
    return v.verify(b.digests[i], b.signatures[i]) ? VerifyStatus::ok : VerifyStatus::bad_signature;
  });
}

void jwt_gatecore_hs256_keyset(benchmark::State& state, const TokenBench& b) {
  gatebench::tokens::JwtVerifier v(es256().hs_keys);
  const gatebench::tokens::JwtRequirements none;
  run(state, b.c.jwt.size(), [&](std::size_t i) {
    return v.verify(b.c.jwt[i], static_cast<std::int64_t>(b.c.now), none);
  });
  state.counters["token_bytes"] = b.jwt_bytes;
}

using BenchFn = void (*)(benchmark::State&, const TokenBench&);

// The rows of every kind the corpus has tokens of; names end in `suffix`. `bench` is called when
// a benchmark runs, so the seeded tokens are minted only when used.
void register_corpus(const std::string& suffix, std::function<const TokenBench&()> bench,
                     bool admission, bool pass, bool jwt) {
  const auto add = [&](const std::string& name, BenchFn fn) {
    benchmark::RegisterBenchmark((name + suffix).c_str(),
                                 [fn, bench](benchmark::State& s) { fn(s, bench()); });
  };
  const struct {
    const char* impl;
    BenchFn admission, pass;
  } impls[] = {
      {"gatecore", gatecore_admission, gatecore_pass},
      {"hmac_oneshot", peer_admission<&TokenCorpus::oneshot>, peer_pass<&TokenCorpus::oneshot>},
      {"evp_mac", peer_admission<&TokenCorpus::evp>, peer_pass<&TokenCorpus::evp>},
      // The issue's floor for both kinds is the same two compressions; the pass verify's
      // extra work (SipHash of the address and User-Agent) is measured against it, not
      // hidden in it.
      {"limit", admission_limit, pass_limit}};
  for (const auto& impl : impls) {
    if (admission) add(std::string("token/") + impl.impl + "/admission", impl.admission);
    if (pass) add(std::string("token/") + impl.impl + "/pass", impl.pass);
  }
  if (jwt) {
    add("jwt/gatecore/hs256", jwt_gatecore);
    add("jwt/nlohmann/hs256", jwt_nlohmann);
    add("jwt/limit/hs256", jwt_limit);
  }
}

const bool registered = [] {
  register_corpus("", seeded, true, true, true);
  benchmark::RegisterBenchmark("jwt/gatecore/hs256_keyset",
                               [](benchmark::State& s) { jwt_gatecore_hs256_keyset(s, seeded()); });
  benchmark::RegisterBenchmark("jwt/gatecore/es256", jwt_gatecore_es256);
  benchmark::RegisterBenchmark("jwt/openssl/es256", jwt_openssl_es256);
  benchmark::RegisterBenchmark("jwt/limit/es256", jwt_limit_es256);
  return true;
}();

}  // namespace

namespace gatebench::bench {

void register_token_input(std::unique_ptr<TokenCorpus> corpus) {
  static std::unique_ptr<TokenCorpus> kept;
  static std::unique_ptr<TokenBench> bench;
  kept = std::move(corpus);
  std::vector<std::size_t> jwt_cost;
  for (const std::string& t : kept->jwt) jwt_cost.push_back(jwt_compressions(t));
  bench = std::make_unique<TokenBench>(
      *kept, fx::Rng(fx::kDefaultSeed).fork("token-bench/input-limit"), jwt_cost);
  register_corpus(
      "_input", []() -> const TokenBench& { return *bench; }, !kept->admission.empty(),
      !kept->pass.empty(), !kept->jwt.empty());
}

}  // namespace gatebench::bench
