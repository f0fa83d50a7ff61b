#include "micro/core/tokens/token.hpp"

#include <algorithm>
#include <stdexcept>

namespace gatebench::tokens {
namespace {

const TokenKey& current_key(const TokenKeyRing& ring) {
  const TokenKey* key = ring.current();
  if (key == nullptr) throw std::logic_error("token key ring has no current key to mint with");
  return *key;
}

TokenText finish_mint(const TokenKey& key, std::span<std::uint8_t> bytes,
                      std::span<const std::uint8_t> signed_part) {
  const Sha256Digest tag = key.mac.mac_short(signed_part);
  std::copy_n(tag.begin(), kTokenTagSize, bytes.begin() + signed_part.size());
  TokenText text;
  text.size = base64url_encode(bytes.first(signed_part.size() + kTokenTagSize), text.chars);
  return text;
}

// The checks both kinds share: syntax, key, tag, expiry.
VerifyStatus verify_common(const TokenKeyRing& ring, std::string_view token, TokenKind kind,
                           std::uint64_t now, DecodedToken& decoded, const TokenKey*& key) {
  const VerifyStatus syntax = decode_token(token, kind, decoded);
  if (syntax != VerifyStatus::ok) return syntax;
  key = ring.find(decoded.key_id);
  if (key == nullptr) return VerifyStatus::unknown_key;
  const Sha256State digest = key->mac.mac_short_state(decoded.signed_part());
  if (!digest_matches_tag(digest, decoded.tag())) {
    return VerifyStatus::bad_signature;
  }
  if (now >= decoded.expiry) return VerifyStatus::expired;
  return VerifyStatus::ok;
}

}  // namespace

TokenText mint_admission(const TokenKeyRing& ring, std::uint32_t expiry, std::uint32_t queue_id,
                         std::uint64_t ticket) {
  const TokenKey& key = current_key(ring);
  std::array<std::uint8_t, kTokenMaxBytes> bytes;
  return finish_mint(key, bytes, encode_admission_signed(key.id, expiry, queue_id, ticket, bytes));
}

TokenText mint_pass(const TokenKeyRing& ring, std::uint32_t expiry, std::uint32_t client_ipv4,
                    std::string_view user_agent) {
  const TokenKey& key = current_key(ring);
  std::array<std::uint8_t, kTokenMaxBytes> bytes;
  const std::uint64_t binding = client_binding(key.binding, client_ipv4, user_agent);
  return finish_mint(key, bytes, encode_pass_signed(key.id, expiry, binding, bytes));
}

VerifyStatus verify_admission(const TokenKeyRing& ring, std::string_view token, std::uint64_t now,
                              AdmissionClaims* claims) {
  DecodedToken decoded;
  const TokenKey* key = nullptr;
  const VerifyStatus status = verify_common(ring, token, TokenKind::admission, now, decoded, key);
  if (status == VerifyStatus::ok && claims != nullptr) {
    *claims = {decoded.expiry, decoded.queue_id(), decoded.ticket()};
  }
  return status;
}

TokenText mint_bound_admission(const TokenKeyRing& ring, std::uint32_t expiry,
                               std::uint32_t queue_id, std::uint32_t ticket,
                               std::uint32_t client_ipv4, std::string_view user_agent) {
  const TokenKey& key = current_key(ring);
  std::array<std::uint8_t, kTokenMaxBytes> bytes;
  const std::uint64_t binding = client_binding(key.binding, client_ipv4, user_agent);
  const std::uint64_t field = (binding & 0xFFFFFFFF00000000ULL) | ticket;
  return finish_mint(key, bytes, encode_admission_signed(key.id, expiry, queue_id, field, bytes));
}

VerifyStatus verify_bound_admission(const TokenKeyRing& ring, std::string_view token,
                                    std::uint64_t now, std::uint32_t client_ipv4,
                                    std::string_view user_agent, AdmissionClaims* claims) {
  DecodedToken decoded;
  const TokenKey* key = nullptr;
  const VerifyStatus status = verify_common(ring, token, TokenKind::admission, now, decoded, key);
  if (status != VerifyStatus::ok) return status;
  const std::uint64_t field = decoded.ticket();
  const std::uint64_t binding = client_binding(key->binding, client_ipv4, user_agent);
  if ((field ^ binding) >> 32 != 0) return VerifyStatus::wrong_binding;
  if (claims != nullptr) *claims = {decoded.expiry, decoded.queue_id(), field & 0xFFFFFFFFu};
  return VerifyStatus::ok;
}

VerifyStatus verify_pass(const TokenKeyRing& ring, std::string_view token, std::uint64_t now,
                         std::uint32_t client_ipv4, std::string_view user_agent) {
  DecodedToken decoded;
  const TokenKey* key = nullptr;
  const VerifyStatus status = verify_common(ring, token, TokenKind::pass, now, decoded, key);
  if (status != VerifyStatus::ok) return status;
  if (client_binding(key->binding, client_ipv4, user_agent) != decoded.binding()) {
    return VerifyStatus::wrong_binding;
  }
  return VerifyStatus::ok;
}

}  // namespace gatebench::tokens
