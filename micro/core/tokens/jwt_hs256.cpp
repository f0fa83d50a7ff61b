#include "micro/core/tokens/jwt_hs256.hpp"

#include <array>
#include <stdexcept>

#include "micro/core/tokens/base64url.hpp"
#include "micro/core/tokens/jwt_header.hpp"
#include "micro/core/tokens/jwt_json.hpp"

namespace gatebench::tokens {

void JwtKeyRing::rotate(std::string_view kid, std::span<const std::uint8_t> secret) {
  const std::string name(kid);
  if (secret.size() < 32) {
    throw std::invalid_argument("jwt key '" + name + "': secret has " +
                                std::to_string(secret.size()) + " bytes, at least 32 expected");
  }
  if (kid.size() > 64 || kid.find_first_of("\"\\") != std::string_view::npos) {
    throw std::invalid_argument("jwt key '" + name +
                                "': kid must be at most 64 characters without '\"' or '\\'");
  }
  if ((current_ && current_->kid == kid) || (previous_ && previous_->kid == kid)) {
    throw std::invalid_argument("jwt key '" + name + "': kid already in the key ring");
  }
  previous_ = std::move(current_);
  current_.emplace(Key{name, HmacSha256Key(secret)});
}

bool JwtKeyRing::remove(std::string_view kid) {
  if (current_ && current_->kid == kid) {
    current_.reset();
    return true;
  }
  if (previous_ && previous_->kid == kid) {
    previous_.reset();
    return true;
  }
  return false;
}

const HmacSha256Key* JwtKeyRing::find(std::optional<std::string_view> kid) const {
  if (!kid) return current_ ? &current_->mac : nullptr;
  if (current_ && current_->kid == *kid) return &current_->mac;
  if (previous_ && previous_->kid == *kid) return &previous_->mac;
  return nullptr;
}

namespace {

std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace

VerifyStatus verify_jwt_hs256(const JwtKeyRing& ring, std::string_view token, std::int64_t now,
                              JwtTimes* times) {
  const std::optional<JwtSegments> parts = split_jwt(token);
  if (!parts) return VerifyStatus::malformed;

  std::array<std::uint8_t, kSha256DigestSize> signature;
  if (parts->signature.size() != base64url_encoded_size(kSha256DigestSize) ||
      !base64url_decode(parts->signature, signature)) {
    return VerifyStatus::malformed;
  }

  std::array<std::uint8_t, kJwtMaxHeaderBytes> header_bytes;
  JwtHeader header;
  if (!read_jwt_header(parts->header, header_bytes, header)) return VerifyStatus::malformed;
  // An escaped spelling of HS256 is refused rather than unescaped: no legitimate signer writes it.
  if (!header.alg_plain || header.alg != "HS256") return VerifyStatus::wrong_algorithm;
  if (!header.kid_plain) return VerifyStatus::unknown_key;
  const HmacSha256Key* key = ring.find(header.kid);
  if (key == nullptr) return VerifyStatus::unknown_key;

  const std::string_view signing_input = parts->signing_input;
  const Sha256State digest = key->mac_state(
      {reinterpret_cast<const std::uint8_t*>(signing_input.data()), signing_input.size()});
  if (!digest_matches_tag(digest, signature)) return VerifyStatus::bad_signature;

  std::array<std::uint8_t, kJwtMaxClaimsBytes> claims;
  const auto claims_size = base64url_decode(parts->claims, claims);
  if (!claims_size) return VerifyStatus::malformed;
  JwtJsonField claim_fields[] = {{"exp", JwtJsonField::Type::integer},
                                 {"nbf", JwtJsonField::Type::integer}};
  if (!scan_json_object(as_text(claims.data(), *claims_size), claim_fields)) {
    return VerifyStatus::malformed;
  }
  const JwtJsonField& exp = claim_fields[0];
  const JwtJsonField& nbf = claim_fields[1];
  if (!exp.found || !exp.type_ok || (nbf.found && !nbf.type_ok)) return VerifyStatus::malformed;
  if (now >= exp.integer) return VerifyStatus::expired;
  if (nbf.found && now < nbf.integer) return VerifyStatus::not_yet_valid;
  if (times != nullptr) {
    times->exp = exp.integer;
    times->nbf = nbf.found ? std::optional<std::int64_t>(nbf.integer) : std::nullopt;
  }
  return VerifyStatus::ok;
}

}  // namespace gatebench::tokens
