// The outcome of verifying a signed token (gatecore's own tokens and JWTs share it).
#pragma once

#include <cstdint>
#include <string_view>

namespace gatebench::tokens {

enum class VerifyStatus : std::uint8_t {
  ok,
  malformed,        // not the expected syntax or version; nothing else was checked
  wrong_kind,       // a well-formed token of another kind (a pass where an admission is due)
  wrong_algorithm,  // JWT header names another algorithm than its key's (including "none")
  unknown_key,      // the key id is not in the ring (never issued, or rotated out)
  bad_signature,    // the tag does not match: forged, altered or signed by another key
  expired,          // now >= expiry
  not_yet_valid,    // JWT: now < nbf
  wrong_binding,    // a pass token presented by another client address or User-Agent
  wrong_issuer,     // JWT: iss is not the configured issuer
  wrong_audience,   // JWT: aud does not name the configured audience
};

constexpr std::string_view to_string(VerifyStatus status) {
  switch (status) {
    case VerifyStatus::ok:
      return "ok";
    case VerifyStatus::malformed:
      return "malformed";
    case VerifyStatus::wrong_kind:
      return "wrong_kind";
    case VerifyStatus::wrong_algorithm:
      return "wrong_algorithm";
    case VerifyStatus::unknown_key:
      return "unknown_key";
    case VerifyStatus::bad_signature:
      return "bad_signature";
    case VerifyStatus::expired:
      return "expired";
    case VerifyStatus::not_yet_valid:
      return "not_yet_valid";
    case VerifyStatus::wrong_binding:
      return "wrong_binding";
    case VerifyStatus::wrong_issuer:
      return "wrong_issuer";
    case VerifyStatus::wrong_audience:
      return "wrong_audience";
  }
  return "unknown";
}

}  // namespace gatebench::tokens
