// Fuzz target for verify_jwt_hs256: never crash, and never accept a token this target did not
// mint. Inputs are either 0x00 <base> (<position> <byte>)* (edits of a JWT minted at startup)
// or raw token text; see token_verify_fuzz.cpp for why both forms.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fixtures/token_fixtures.hpp"
#include "micro/core/tokens/jwt_hs256.hpp"

namespace {

namespace tokens = gatebench::tokens;
namespace fx = gatebench::fixtures;

constexpr std::int64_t kNow = fx::kTokenNow;

struct Minted {
  tokens::JwtKeyRing ring;
  std::vector<std::string> tokens;

  Minted() {
    const auto k1 = fx::token_secret(1);
    const auto k2 = fx::token_secret(2);
    ring.rotate("k1", k1);
    ring.rotate("k2", k2);
    const std::string exp = std::to_string(kNow + 3600);
    tokens.push_back(
        fx::make_jwt(R"({"alg":"HS256","typ":"JWT"})", R"({"sub":"a","exp":)" + exp + "}", k2));
    tokens.push_back(
        fx::make_jwt(R"({"alg":"HS256","kid":"k1"})", R"({"exp":)" + exp + R"(,"nbf":1})", k1));
    tokens.push_back(
        fx::make_jwt(R"({"kid":"k2","alg":"HS256"})",
                     R"({"scope":["read","write"],"exp":)" + exp + R"(.5,"x":{"y":null}})", k2));
    fx::Rng rng(fx::kDefaultSeed);
    tokens.push_back(fx::make_sized_jwt(200, k2, rng));
  }
};

const Minted& minted() {
  static const Minted m;
  return m;
}

void check(const std::string& text) {
  const Minted& m = minted();
  tokens::JwtTimes times;
  if (tokens::verify_jwt_hs256(m.ring, text, kNow, &times) != tokens::VerifyStatus::ok) return;
  for (const auto& t : m.tokens) {
    if (t == text) return;
  }
  std::abort();  // accepted a token nobody minted
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Minted& m = minted();
  if (size >= 2 && data[0] == 0) {
    std::string text = m.tokens[data[1] % m.tokens.size()];
    for (std::size_t i = 2; i + 1 < size; i += 2)
      text[data[i] % text.size()] = static_cast<char>(data[i + 1]);
    check(text);
  } else {
    check(std::string(reinterpret_cast<const char*>(data), size));
  }
  return 0;
}
