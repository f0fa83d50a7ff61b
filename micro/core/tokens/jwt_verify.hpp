// Bearer JWT verification for a gateway (RFC 7519, JWS compact form): HS256 and ES256 keys chosen
// by `kid`, issuer, audience, expiry and not-before with a leeway.
//
// JwtVerifier::verify checks, in this order, and stops at the first failure:
//   malformed       not three segments; a segment not canonical base64url; a signature of the
//                   wrong size for its algorithm (32 bytes HS256, 64 ES256); header or claims not
//                   one JSON object within kJwtMaxHeaderBytes / kJwtMaxClaimsBytes; a duplicate
//                   alg/kid/crit (header) or exp/nbf/iss/aud/sub/scope (claims) member; no alg;
//                   crit present; claims without an integer exp
//   wrong_algorithm alg is neither "HS256" nor "ES256" (none, RS256, an escaped spelling...), or
//                   is not the algorithm of the key the kid names (an HS256 token against an ES256
//                   key: the public key is never used as an HMAC secret)
//   unknown_key     kid not in the set (or not a plain string); no kid while the set holds more
//                   than one key
//   bad_signature   HMAC-SHA256 (constant-time compare) or ECDSA P-256 over "header.claims" fails
//   expired         now >= exp + leeway
//   not_yet_valid   now + leeway < nbf
//   wrong_issuer    an issuer is required and iss is absent, escaped or another string
//   wrong_audience  an audience is required and aud (a string or an array of strings) lacks it
// The claims are decoded only after the signature matched. Nothing is allocated per call on
// gatecore's side (the ES256 check runs OpenSSL, which allocates its own scratch).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "micro/core/tokens/es256.hpp"
#include "micro/core/tokens/hmac_sha256.hpp"
#include "micro/core/tokens/jwt_hs256.hpp"
#include "micro/core/tokens/status.hpp"

namespace gatebench::tokens {

enum class JwtAlgorithm : std::uint8_t { hs256, es256 };

// The keys a verifier accepts, by kid; built at configuration time, then shared read-only.
class JwtKeySet {
 public:
  struct Key {
    std::string kid;
    JwtAlgorithm algorithm;
    std::optional<HmacSha256Key> hs256;
    std::optional<Es256PublicKey> es256;
  };
  // Throw std::invalid_argument: a kid that is empty, longer than 64 characters, holds '"' or
  // '\\', or is already in the set; an HS256 secret under 32 bytes.
  void add_hs256(std::string_view kid, std::span<const std::uint8_t> secret);
  void add_es256(std::string_view kid, Es256PublicKey key);
  const std::vector<Key>& keys() const { return keys_; }

 private:
  void check_kid(std::string_view kid) const;
  std::vector<Key> keys_;
};

// Longest leeway applied (a day); larger values are cut to it.
inline constexpr std::int64_t kJwtMaxLeeway = 86400;

struct JwtRequirements {
  std::string issuer;         // empty: iss is not checked
  std::string audience;       // empty: aud is not checked
  std::int64_t leeway_s = 0;  // 0..kJwtMaxLeeway
};

// Claims of a verified token. The strings are the raw text between the JSON quotes (escapes as
// written), views into the verifier's buffer: valid until its next verify().
struct JwtClaims {
  std::int64_t exp = 0;
  std::optional<std::int64_t> nbf;
  std::string_view sub;
  std::string_view iss;
  std::string_view scope;
  std::string_view kid;  // of the key that verified the token
};

// One per thread: holds the OpenSSL contexts of the ES256 keys and the decoded claims.
class JwtVerifier {
 public:
  explicit JwtVerifier(std::shared_ptr<const JwtKeySet> keys);
  VerifyStatus verify(std::string_view token, std::int64_t now, const JwtRequirements& required,
                      JwtClaims* claims = nullptr);

 private:
  std::shared_ptr<const JwtKeySet> keys_;
  std::vector<std::optional<Es256Verifier>> es256_;  // by key index
  std::array<std::uint8_t, kJwtMaxClaimsBytes> claims_;
};

}  // namespace gatebench::tokens
