// Signed tokens given with --input tokens=FILE (docs/micro-input.md): their keys, the clock they
// are verified at, and admission, pass and JWT HS256 tokens, each verified at load by gatecore
// and by the peers its benchmarks run, so a benchmark never measures a rejection.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fixtures/token_fixtures.hpp"
#include "micro/bench/input_options.hpp"
#include "micro/core/tokens/jwt_hs256.hpp"
#include "micro/core/tokens/key_ring.hpp"
#include "micro/peers/token_jwt_nlohmann.hpp"
#include "micro/peers/token_openssl_peers.hpp"

namespace gatebench::bench {

// What the token benchmarks verify (the seeded tokens and an input file alike): each verifier
// holds the same keys, and pass tokens are presented by clients[i].
struct TokenCorpus {
  tokens::TokenKeyRing ring;
  peers::HmacOneshotTokenVerifier oneshot;
  peers::EvpMacTokenVerifier evp;
  tokens::JwtKeyRing jwt_ring;
  peers::NlohmannJwtVerifier nlohmann;
  std::uint64_t now = 0;  // unix seconds the tokens are verified at
  std::vector<std::string> admission;
  std::vector<std::string> pass;
  std::vector<fixtures::TokenClient> clients;  // one per pass token
  std::vector<std::string> jwt;

  // The key becomes every verifier's current one (the former current is the previous).
  // Throws std::invalid_argument as the rings do (short secret, an id or kid given twice).
  void add_key(std::uint8_t id, std::span<const std::uint8_t> secret);
  void add_jwt_key(std::string_view kid, std::span<const std::uint8_t> secret);
};

// Throws InputError "FILE:LINE: what" at the first bad line: a malformed line or key, a third
// key of a ring, or a token that gatecore or a peer does not verify as ok.
std::unique_ptr<TokenCorpus> load_tokens_input(const InputFile& file);

}  // namespace gatebench::bench
