// Fuzz target for JwtVerifier's ES256 path: never crash, and never accept a token whose signed
// part ("header.claims") is not one this target holds a signature for. (ECDSA signatures are not
// unique: (r, n - s) verifies too, so the invariant is about the signed part, not the text.)
// Inputs are either 0x00 <base> (<position> <byte>)* (edits of a token signed offline with the
// key below) or raw token text, as in token_verify_fuzz.cpp. The tokens and key are constants
// because the fuzz build has no signer (the peers library is left out).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "micro/core/tokens/jwt_verify.hpp"

namespace {

namespace tokens = gatebench::tokens;

constexpr std::int64_t kNow = 1'800'000'000;

constexpr const char* kPublicKey =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE6z8HdZjpq/DFfiMSD8z2/Vh+h50v\n"
    "0OT75pkBlOBciaOczcfBbUrXgjnQTku7n/g/Hk/gOEXEGqSzI4Qfc97aIQ==\n"
    "-----END PUBLIC KEY-----\n";

// Signed with the key above (python cryptography, ECDSA P-256 SHA-256), exp = kNow + 3600.
const char* const kTokens[] = {
    "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImVzMSJ9.eyJzdWIiOiJhIiwiZXhwIjoxODAwMDAzNjAwf"
    "Q.9dGm2S462yz4aCO2x-zuQn1EHJg0w-gpOzPbqoEskKlm_fXvWLX4tvrDxMGnCP0H1YW7G244TL14bcPECCUmGg",
    "eyJhbGciOiJFUzI1NiIsImtpZCI6ImVzMSJ9.eyJleHAiOjE4MDAwMDM2MDAsIm5iZiI6MSwiaXNzIjoiaHR0cHM6L"
    "y9pc3N1ZXIudGVzdCIsImF1ZCI6WyJ4IiwiYXBpIl19.WTpYmntSe4xkJATcYyH-ru_iXkPUnPbjQI9XBByrc7xBid"
    "Hgj5nzFAQHI-HAy0sqqy1but8w6bmwThmNfRexLA",
    "eyJraWQiOiJlczEiLCJhbGciOiJFUzI1NiJ9.eyJzY29wZSI6InJlYWQgd3JpdGUiLCJleHAiOjE4MDAwMDM2MDAuN"
    "SwieCI6eyJ5IjpudWxsfSwiYXVkIjoiYXBpIiwiaXNzIjoiaHR0cHM6Ly9pc3N1ZXIudGVzdCJ9.fZX_3MJhvm9vx1"
    "9KmVPlFfU7hhymLJbb5ZUOIR9yBEr9s3CD-u-2aFYw2KagjYaXA4VI6xnSjgia59Vk9Tdk9A",
};

struct Setup {
  std::unique_ptr<tokens::JwtVerifier> verifier;
  tokens::JwtRequirements required;
  std::vector<std::string> signed_parts;

  Setup() {
    auto keys = std::make_shared<tokens::JwtKeySet>();
    keys->add_es256("es1", tokens::Es256PublicKey::from_pem(kPublicKey));
    keys->add_hs256("hs1", std::vector<std::uint8_t>(32, 7));
    verifier = std::make_unique<tokens::JwtVerifier>(keys);
    required.leeway_s = 60;
    for (const char* t : kTokens) {
      const std::string text(t);
      if (verifier->verify(text, kNow, required) != tokens::VerifyStatus::ok) std::abort();
      signed_parts.push_back(text.substr(0, text.rfind('.')));
    }
  }
};

Setup& setup() {
  static Setup s;
  return s;
}

void check(const std::string& text) {
  Setup& s = setup();
  tokens::JwtClaims claims;
  if (s.verifier->verify(text, kNow, s.required, &claims) != tokens::VerifyStatus::ok) return;
  const std::string signed_part = text.substr(0, text.rfind('.'));
  for (const auto& p : s.signed_parts) {
    if (p == signed_part) return;
  }
  std::abort();  // accepted a signed part nobody signed
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::size_t count = sizeof kTokens / sizeof kTokens[0];
  if (size >= 2 && data[0] == 0) {
    std::string text = kTokens[data[1] % count];
    for (std::size_t i = 2; i + 1 < size; i += 2)
      text[data[i] % text.size()] = static_cast<char>(data[i + 1]);
    check(text);
  } else {
    check(std::string(reinterpret_cast<const char*>(data), size));
  }
  return 0;
}
