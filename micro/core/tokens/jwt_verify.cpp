#include "micro/core/tokens/jwt_verify.hpp"

#include <algorithm>
#include <stdexcept>

#include "micro/core/tokens/base64url.hpp"
#include "micro/core/tokens/jwt_header.hpp"
#include "micro/core/tokens/jwt_json.hpp"

namespace gatebench::tokens {
namespace {

std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

std::span<const std::uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

void JwtKeySet::check_kid(std::string_view kid) const {
  const std::string name(kid);
  if (kid.empty() || kid.size() > 64 || kid.find_first_of("\"\\") != std::string_view::npos) {
    throw std::invalid_argument("jwt key '" + name +
                                "': kid must be 1-64 characters without '\"' or '\\'");
  }
  for (const Key& k : keys_) {
    if (k.kid == kid) throw std::invalid_argument("jwt key '" + name + "': kid already in the set");
  }
}

void JwtKeySet::add_hs256(std::string_view kid, std::span<const std::uint8_t> secret) {
  check_kid(kid);
  if (secret.size() < 32) {
    throw std::invalid_argument("jwt key '" + std::string(kid) + "': secret has " +
                                std::to_string(secret.size()) + " bytes, at least 32 expected");
  }
  keys_.push_back(Key{std::string(kid), JwtAlgorithm::hs256, HmacSha256Key(secret), std::nullopt});
}

void JwtKeySet::add_es256(std::string_view kid, Es256PublicKey key) {
  check_kid(kid);
  keys_.push_back(Key{std::string(kid), JwtAlgorithm::es256, std::nullopt, std::move(key)});
}

JwtVerifier::JwtVerifier(std::shared_ptr<const JwtKeySet> keys) : keys_(std::move(keys)) {
  es256_.resize(keys_->keys().size());
  for (std::size_t i = 0; i < keys_->keys().size(); ++i) {
    const JwtKeySet::Key& k = keys_->keys()[i];
    if (k.es256) es256_[i].emplace(*k.es256);
  }
}

VerifyStatus JwtVerifier::verify(std::string_view token, std::int64_t now,
                                 const JwtRequirements& required, JwtClaims* claims_out) {
  const std::optional<JwtSegments> parts = split_jwt(token);
  if (!parts) return VerifyStatus::malformed;

  std::array<std::uint8_t, kEs256SignatureSize> signature;
  const auto signature_size = base64url_decode(parts->signature, signature);
  if (!signature_size) return VerifyStatus::malformed;

  std::array<std::uint8_t, kJwtMaxHeaderBytes> header_bytes;
  JwtHeader header;
  if (!read_jwt_header(parts->header, header_bytes, header)) return VerifyStatus::malformed;
  if (!header.alg_plain) return VerifyStatus::wrong_algorithm;
  JwtAlgorithm algorithm;
  if (header.alg == "HS256") {
    algorithm = JwtAlgorithm::hs256;
  } else if (header.alg == "ES256") {
    algorithm = JwtAlgorithm::es256;
  } else {
    return VerifyStatus::wrong_algorithm;
  }
  if (!header.kid_plain) return VerifyStatus::unknown_key;
  const std::vector<JwtKeySet::Key>& keys = keys_->keys();
  std::size_t index = keys.size();
  if (header.kid) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].kid == *header.kid) index = i;
    }
  } else if (keys.size() == 1) {
    index = 0;
  }
  if (index == keys.size()) return VerifyStatus::unknown_key;
  const JwtKeySet::Key& key = keys[index];
  if (key.algorithm != algorithm) return VerifyStatus::wrong_algorithm;

  const std::span<const std::uint8_t> signing_input = as_bytes(parts->signing_input);
  const std::span<const std::uint8_t> sig(signature.data(), *signature_size);
  if (algorithm == JwtAlgorithm::hs256) {
    if (sig.size() != kSha256DigestSize) return VerifyStatus::malformed;
    if (!digest_matches_tag(key.hs256->mac_state(signing_input), sig)) {
      return VerifyStatus::bad_signature;
    }
  } else {
    if (sig.size() != kEs256SignatureSize) return VerifyStatus::malformed;
    if (!es256_[index]->verify(sha256(signing_input), sig)) return VerifyStatus::bad_signature;
  }

  const auto claims_size = base64url_decode(parts->claims, claims_);
  if (!claims_size) return VerifyStatus::malformed;
  JwtJsonField fields[] = {
      {"exp", JwtJsonField::Type::integer}, {"nbf", JwtJsonField::Type::integer},
      {"iss", JwtJsonField::Type::string},  {"aud", JwtJsonField::Type::raw},
      {"sub", JwtJsonField::Type::string},  {"scope", JwtJsonField::Type::string}};
  if (!scan_json_object(as_text(claims_.data(), *claims_size), fields)) {
    return VerifyStatus::malformed;
  }
  const JwtJsonField& exp = fields[0];
  const JwtJsonField& nbf = fields[1];
  const JwtJsonField& iss = fields[2];
  const JwtJsonField& aud = fields[3];
  if (!exp.found || !exp.type_ok || (nbf.found && !nbf.type_ok)) return VerifyStatus::malformed;
  // The leeway moves `now`, not the claims: exp and nbf may be anywhere in int64, now is a clock
  // reading and the leeway at most kJwtMaxLeeway, so nothing can overflow.
  const std::int64_t leeway = std::clamp<std::int64_t>(required.leeway_s, 0, kJwtMaxLeeway);
  if (now - leeway >= exp.integer) return VerifyStatus::expired;
  if (nbf.found && now + leeway < nbf.integer) return VerifyStatus::not_yet_valid;
  if (!required.issuer.empty() &&
      (!iss.found || !iss.type_ok || iss.string_has_escape || iss.string_raw != required.issuer)) {
    return VerifyStatus::wrong_issuer;
  }
  if (!required.audience.empty() &&
      (!aud.found || !json_value_has_string(aud.string_raw, required.audience))) {
    return VerifyStatus::wrong_audience;
  }
  if (claims_out != nullptr) {
    claims_out->exp = exp.integer;
    claims_out->nbf = nbf.found ? std::optional<std::int64_t>(nbf.integer) : std::nullopt;
    claims_out->iss = iss.found && iss.type_ok ? iss.string_raw : std::string_view();
    claims_out->sub =
        fields[4].found && fields[4].type_ok ? fields[4].string_raw : std::string_view();
    claims_out->scope =
        fields[5].found && fields[5].type_ok ? fields[5].string_raw : std::string_view();
    claims_out->kid = key.kid;
  }
  return VerifyStatus::ok;
}

}  // namespace gatebench::tokens
