// ES256 beside gatecore's JwtVerifier (micro/core/tokens/jwt_verify.hpp):
//
// - Es256SigningKey: a P-256 key pair derived from a seed (the same key on every run; the
//   signatures differ, since ECDSA draws a fresh nonce), which signs JWTs for the tests,
//   benchmarks and fuzz targets and writes its public key as PEM for gateway configurations;
// - OpenSslJwtVerifier: the straightforward verifier of the same contract, HS256 and ES256:
//   std::string segments, the textbook base64url decoder, nlohmann::json, OpenSSL's
//   EVP_DigestVerify on a signature DER-encoded by i2d_ECDSA_SIG (gatecore encodes its own).
//   It is the peer of jwt/gatecore/es256 and the oracle of its differential test.
//
// Known differences from gatecore (the differential test avoids them): nlohmann keeps the last
// of duplicate members and unescapes strings ("\u0045S256", an escaped iss) where gatecore
// refuses duplicates of the members it reads and escaped values.
#pragma once

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "micro/core/tokens/jwt_verify.hpp"
#include "micro/core/tokens/status.hpp"

namespace gatebench::peers {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

class Es256SigningKey {
 public:
  // Throws std::runtime_error when OpenSSL fails.
  static Es256SigningKey from_seed(std::uint64_t seed);
  std::string public_pem() const;
  // R || S of SHA-256(message).
  std::array<std::uint8_t, 64> sign(std::string_view message) const;
  // base64url(header) "." base64url(claims) "." base64url(R || S); both JSON texts as given.
  std::string sign_jwt(std::string_view header_json, std::string_view claims_json) const;
  EVP_PKEY* get() const { return key_.get(); }

 private:
  explicit Es256SigningKey(PkeyPtr key) : key_(std::move(key)) {}
  PkeyPtr key_;
};

class OpenSslJwtVerifier {
 public:
  void add_hs256(std::string_view kid, std::span<const std::uint8_t> secret);
  // Throws std::invalid_argument when `public_pem` is not a PEM public key.
  void add_es256(std::string_view kid, std::string_view public_pem);
  tokens::VerifyStatus verify(std::string_view token, std::int64_t now,
                              const tokens::JwtRequirements& required) const;

 private:
  struct Key {
    std::string kid;
    bool es256 = false;
    std::vector<std::uint8_t> secret;
    std::shared_ptr<EVP_PKEY> pkey;
  };
  std::vector<Key> keys_;
};

}  // namespace gatebench::peers
