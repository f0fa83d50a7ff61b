// The parts of a JWS compact token (RFC 7515 7.1) and its protected header, read the same way by
// both JWT verifiers (jwt_hs256.hpp, jwt_verify.hpp): the split at the first two dots, and the
// header's alg, kid and crit members.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace gatebench::tokens {

inline constexpr std::size_t kJwtMaxHeaderBytes = 256;

struct JwtSegments {
  std::string_view header;         // base64url
  std::string_view claims;         // base64url
  std::string_view signature;      // base64url; a third '.' stays in it and fails decoding
  std::string_view signing_input;  // "header.claims" as sent
};

// nullopt when the token has fewer than two dots.
std::optional<JwtSegments> split_jwt(std::string_view token);

struct JwtHeader {
  std::string_view alg;    // as written between its quotes
  bool alg_plain = false;  // alg is a string without escapes (an escaped "HS256" is refused)
  std::optional<std::string_view> kid;  // nullopt: the header names no key
  bool kid_plain = true;                // kid absent, or a string without escapes
};

// Decodes `header_b64` into `buffer` (the views of `out` point into it) and reads it; false
// (malformed) when it is not canonical base64url, not one JSON object within the buffer, has a
// duplicate alg/kid/crit, has no alg, or has crit (no extension is understood).
bool read_jwt_header(std::string_view header_b64,
                     std::span<std::uint8_t, kJwtMaxHeaderBytes> buffer, JwtHeader& out);

}  // namespace gatebench::tokens
