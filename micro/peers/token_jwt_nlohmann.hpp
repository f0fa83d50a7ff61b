// The straightforward HS256 JWT verifier: std::string segments, a textbook base64url decoder,
// nlohmann::json for header and claims, OpenSSL's one-shot HMAC() and CRYPTO_memcmp. It is the
// peer of jwt/gatecore/hs256 and the oracle of its differential test, so it applies the same
// contract (micro/core/tokens/jwt_hs256.hpp) in the plainest way, allocations and all.
//
// Known, documented differences from gatecore (the differential test avoids them): nlohmann
// keeps the last of duplicate members where gatecore refuses duplicates of alg/kid/crit/exp/nbf;
// nlohmann unescapes "\u..." in alg and kid where gatecore refuses escaped values; nlohmann has
// no nesting limit.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "micro/core/tokens/status.hpp"

namespace gatebench::peers {

// Textbook base64url decoder; canonical form is checked by re-encoding, independently of
// gatecore's bit-level checks. Shared with the ES256 peer (token_es256_openssl.hpp).
std::optional<std::string> textbook_base64url_decode(const std::string& in);

// A JWT's claims segment decoded and parsed into `claims`, with exp (required) and nbf (optional)
// read as RFC 7519 NumericDates; nullopt when any of that fails (malformed). Shared with the
// ES256 peer, which checks iss and aud on the same `claims`.
struct TextbookTimes {
  std::int64_t exp = 0;
  std::optional<std::int64_t> nbf;
};
std::optional<TextbookTimes> textbook_claims(const std::string& segment, nlohmann::json& claims);

class NlohmannJwtVerifier {
 public:
  // The ring's order matters as in JwtKeyRing: the last added key is the current one.
  void add_key(std::string_view kid, std::span<const std::uint8_t> secret);
  tokens::VerifyStatus verify(std::string_view token, std::int64_t now) const;

 private:
  struct Key {
    std::string kid;
    std::vector<std::uint8_t> secret;
  };
  std::vector<Key> keys_;
};

}  // namespace gatebench::peers
