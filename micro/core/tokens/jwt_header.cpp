#include "micro/core/tokens/jwt_header.hpp"

#include "micro/core/tokens/base64url.hpp"
#include "micro/core/tokens/jwt_json.hpp"

namespace gatebench::tokens {

std::optional<JwtSegments> split_jwt(std::string_view token) {
  const std::size_t dot1 = token.find('.');
  if (dot1 == std::string_view::npos) return std::nullopt;
  const std::size_t dot2 = token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return std::nullopt;
  return JwtSegments{token.substr(0, dot1), token.substr(dot1 + 1, dot2 - dot1 - 1),
                     token.substr(dot2 + 1), token.substr(0, dot2)};
}

bool read_jwt_header(std::string_view header_b64,
                     std::span<std::uint8_t, kJwtMaxHeaderBytes> buffer, JwtHeader& out) {
  const auto size = base64url_decode(header_b64, buffer);
  if (!size) return false;
  JwtJsonField fields[] = {{"alg", JwtJsonField::Type::string},
                           {"kid", JwtJsonField::Type::string},
                           {"crit", JwtJsonField::Type::string}};
  if (!scan_json_object({reinterpret_cast<const char*>(buffer.data()), *size}, fields)) {
    return false;
  }
  const JwtJsonField& alg = fields[0];
  const JwtJsonField& kid = fields[1];
  if (!alg.found || fields[2].found) return false;
  out.alg = alg.string_raw;
  out.alg_plain = alg.type_ok && !alg.string_has_escape;
  out.kid = kid.found ? std::optional<std::string_view>(kid.string_raw) : std::nullopt;
  out.kid_plain = !kid.found || (kid.type_ok && !kid.string_has_escape);
  return true;
}

}  // namespace gatebench::tokens
