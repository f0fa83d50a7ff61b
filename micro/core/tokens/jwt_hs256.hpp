// Verification of an HS256 JSON Web Token (RFC 7519, JWS compact form, RFC 7515) as a bearer
// token: header.claims.signature, each base64url without padding.
//
// verify_jwt_hs256 checks, in this order, and never allocates:
//   malformed       not three segments; a segment not canonical base64url; a header or claims
//                   segment that is not one JSON object, too large (kJwtMaxHeaderBytes,
//                   kJwtMaxClaimsBytes decoded), with a duplicate alg/kid/crit/exp/nbf member,
//                   without alg, with crit (no extension is understood), or claims without an
//                   integer exp (NumericDate: a fraction is dropped, an exponent is refused)
//   wrong_algorithm alg is anything but "HS256" (including "none" and every asymmetric alg)
//   unknown_key     the header's kid is not in the ring (no kid: the current key)
//   bad_signature   HMAC-SHA256 of "header.claims" under the key differs (constant-time compare)
//   expired         now >= exp
//   not_yet_valid   now < nbf
// The claims are parsed only after the signature matched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "micro/core/tokens/hmac_sha256.hpp"
#include "micro/core/tokens/jwt_header.hpp"
#include "micro/core/tokens/status.hpp"

namespace gatebench::tokens {

inline constexpr std::size_t kJwtMaxClaimsBytes = 2048;

// Keys by kid, with the same rotation rule as TokenKeyRing: the current key and the previous.
class JwtKeyRing {
 public:
  // Throws std::invalid_argument when the secret has fewer than 32 bytes, the kid is longer than
  // 64 characters or contains '"' or '\\', or the kid is already in the ring.
  void rotate(std::string_view kid, std::span<const std::uint8_t> secret);
  bool remove(std::string_view kid);

  // kid == nullopt (the token names no key): the current key.
  const HmacSha256Key* find(std::optional<std::string_view> kid) const;

 private:
  struct Key {
    std::string kid;
    HmacSha256Key mac;
  };
  std::optional<Key> current_;
  std::optional<Key> previous_;
};

struct JwtTimes {
  std::int64_t exp = 0;
  std::optional<std::int64_t> nbf;
};

// `now` in unix seconds. On ok, *times (when given) receives exp and nbf.
VerifyStatus verify_jwt_hs256(const JwtKeyRing& ring, std::string_view token, std::int64_t now,
                              JwtTimes* times = nullptr);

}  // namespace gatebench::tokens
