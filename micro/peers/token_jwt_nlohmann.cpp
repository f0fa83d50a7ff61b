#include "micro/peers/token_jwt_nlohmann.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "micro/core/tokens/jwt_hs256.hpp"

namespace gatebench::peers {

using tokens::VerifyStatus;

std::optional<std::string> textbook_base64url_decode(const std::string& in) {
  static const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  if (in.size() % 4 == 1) return std::nullopt;
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const auto v = alphabet.find(c);
    if (v == std::string::npos) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  std::string again;
  acc = 0;
  bits = 0;
  for (unsigned char c : out) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      again.push_back(alphabet[(acc >> bits) & 63]);
    }
  }
  if (bits > 0) again.push_back(alphabet[(acc << (6 - bits)) & 63]);
  if (again != in) return std::nullopt;
  return out;
}

void NlohmannJwtVerifier::add_key(std::string_view kid, std::span<const std::uint8_t> secret) {
  keys_.push_back({std::string(kid), {secret.begin(), secret.end()}});
}

VerifyStatus NlohmannJwtVerifier::verify(std::string_view token_view, std::int64_t now) const {
  const std::string token(token_view);
  const auto dot1 = token.find('.');
  if (dot1 == std::string::npos) return VerifyStatus::malformed;
  const auto dot2 = token.find('.', dot1 + 1);
  if (dot2 == std::string::npos) return VerifyStatus::malformed;
  const auto signature = textbook_base64url_decode(token.substr(dot2 + 1));
  if (!signature || signature->size() != 32) return VerifyStatus::malformed;
  const auto header_text = textbook_base64url_decode(token.substr(0, dot1));
  if (!header_text || header_text->size() > tokens::kJwtMaxHeaderBytes)
    return VerifyStatus::malformed;
  const nlohmann::json header = nlohmann::json::parse(*header_text, nullptr, false);
  if (header.is_discarded() || !header.is_object()) return VerifyStatus::malformed;
  if (!header.contains("alg") || header.contains("crit")) return VerifyStatus::malformed;
  if (!header["alg"].is_string() || header["alg"].get<std::string>() != "HS256") {
    return VerifyStatus::wrong_algorithm;
  }
  // The ring holds the current key (last added) and the previous one.
  const Key* key = nullptr;
  const std::size_t first = keys_.size() > 2 ? keys_.size() - 2 : 0;
  if (header.contains("kid")) {
    if (!header["kid"].is_string()) return VerifyStatus::unknown_key;
    const auto kid = header["kid"].get<std::string>();
    for (std::size_t i = first; i < keys_.size(); ++i) {
      if (keys_[i].kid == kid) key = &keys_[i];
    }
  } else if (!keys_.empty()) {
    key = &keys_.back();
  }
  if (key == nullptr) return VerifyStatus::unknown_key;

  unsigned char tag[EVP_MAX_MD_SIZE];
  unsigned int tag_size = 0;
  const std::string signing_input = token.substr(0, dot2);
  HMAC(EVP_sha256(), key->secret.data(), static_cast<int>(key->secret.size()),
       reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size(), tag,
       &tag_size);
  if (tag_size != 32 || CRYPTO_memcmp(tag, signature->data(), 32) != 0) {
    return VerifyStatus::bad_signature;
  }

  nlohmann::json claims;
  const auto times = textbook_claims(token.substr(dot1 + 1, dot2 - dot1 - 1), claims);
  if (!times) return VerifyStatus::malformed;
  if (now >= times->exp) return VerifyStatus::expired;
  if (times->nbf && now < *times->nbf) return VerifyStatus::not_yet_valid;
  return VerifyStatus::ok;
}

std::optional<TextbookTimes> textbook_claims(const std::string& segment, nlohmann::json& claims) {
  const auto claims_text = textbook_base64url_decode(segment);
  if (!claims_text || claims_text->size() > tokens::kJwtMaxClaimsBytes) return std::nullopt;
  claims = nlohmann::json::parse(*claims_text, nullptr, false);
  if (claims.is_discarded() || !claims.is_object()) return std::nullopt;
  const auto numeric_date = [&](const char* name) -> std::optional<std::int64_t> {
    const auto& v = claims[name];
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_float()) return static_cast<std::int64_t>(std::trunc(v.get<double>()));
    return std::nullopt;
  };
  if (!claims.contains("exp")) return std::nullopt;
  TextbookTimes t;
  const auto exp = numeric_date("exp");
  if (!exp) return std::nullopt;
  t.exp = *exp;
  if (claims.contains("nbf")) {
    t.nbf = numeric_date("nbf");
    if (!t.nbf) return std::nullopt;
  }
  return t;
}

}  // namespace gatebench::peers
