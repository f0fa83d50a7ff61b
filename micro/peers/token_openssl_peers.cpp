#include "micro/peers/token_openssl_peers.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

#include "micro/core/tokens/format.hpp"
#include "micro/core/tokens/key_ring.hpp"

namespace gatebench::peers {
namespace {

using tokens::DecodedToken;
using tokens::TokenKind;
using tokens::VerifyStatus;

// The order of checks is gatecore's (micro/core/tokens/token.hpp); only `compute_tag` differs.
template <typename Keys, typename ComputeTag>
VerifyStatus verify(const Keys& keys, std::string_view token, TokenKind kind, std::uint64_t now,
                    const std::uint32_t* ipv4, std::string_view user_agent,
                    ComputeTag&& compute_tag) {
  DecodedToken decoded;
  const VerifyStatus syntax = tokens::decode_token(token, kind, decoded);
  if (syntax != VerifyStatus::ok) return syntax;
  const auto* key = [&]() -> const typename Keys::value_type* {
    for (const auto& k : keys) {
      if (k.id == decoded.key_id) return &k;
    }
    return nullptr;
  }();
  if (key == nullptr) return VerifyStatus::unknown_key;
  unsigned char tag[EVP_MAX_MD_SIZE];
  if (!compute_tag(*key, decoded.signed_part(), tag)) return VerifyStatus::bad_signature;
  if (CRYPTO_memcmp(tag, decoded.tag().data(), tokens::kTokenTagSize) != 0) {
    return VerifyStatus::bad_signature;
  }
  if (now >= decoded.expiry) return VerifyStatus::expired;
  if (ipv4 != nullptr &&
      tokens::client_binding(key->binding, *ipv4, user_agent) != decoded.binding()) {
    return VerifyStatus::wrong_binding;
  }
  return VerifyStatus::ok;
}

tokens::SipKey binding_key(std::uint8_t id, std::span<const std::uint8_t> secret) {
  return tokens::TokenKey(id, secret).binding;
}

}  // namespace

void HmacOneshotTokenVerifier::add_key(std::uint8_t id, std::span<const std::uint8_t> secret) {
  keys_.push_back({id, {secret.begin(), secret.end()}, binding_key(id, secret)});
}

namespace {
auto oneshot_tag = [](const auto& key, std::span<const std::uint8_t> message, unsigned char* out) {
  unsigned int size = 0;
  return HMAC(EVP_sha256(), key.secret.data(), static_cast<int>(key.secret.size()), message.data(),
              message.size(), out, &size) != nullptr;
};
}  // namespace

VerifyStatus HmacOneshotTokenVerifier::verify_admission(std::string_view token,
                                                        std::uint64_t now) const {
  return verify(keys_, token, TokenKind::admission, now, nullptr, {}, oneshot_tag);
}

VerifyStatus HmacOneshotTokenVerifier::verify_pass(std::string_view token, std::uint64_t now,
                                                   std::uint32_t ipv4,
                                                   std::string_view user_agent) const {
  return verify(keys_, token, TokenKind::pass, now, &ipv4, user_agent, oneshot_tag);
}

void EvpMacTokenVerifier::CtxFree::operator()(evp_mac_ctx_st* ctx) const {
  EVP_MAC_CTX_free(ctx);
}

EvpMacTokenVerifier::EvpMacTokenVerifier() = default;
EvpMacTokenVerifier::~EvpMacTokenVerifier() = default;

void EvpMacTokenVerifier::add_key(std::uint8_t id, std::span<const std::uint8_t> secret) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (mac == nullptr) throw std::runtime_error("evp_mac: OpenSSL has no HMAC");
  std::unique_ptr<evp_mac_ctx_st, CtxFree> ctx(EVP_MAC_CTX_new(mac));
  EVP_MAC_free(mac);  // the context holds its own reference
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  if (!ctx || EVP_MAC_init(ctx.get(), secret.data(), secret.size(), params) != 1) {
    throw std::runtime_error("evp_mac: cannot initialise HMAC-SHA256");
  }
  keys_.push_back({id, std::move(ctx), binding_key(id, secret)});
}

namespace {
auto evp_tag = [](const auto& key, std::span<const std::uint8_t> message, unsigned char* out) {
  // A null key re-initialises the context with the key it already holds.
  std::size_t size = 0;
  return EVP_MAC_init(key.ctx.get(), nullptr, 0, nullptr) == 1 &&
         EVP_MAC_update(key.ctx.get(), message.data(), message.size()) == 1 &&
         EVP_MAC_final(key.ctx.get(), out, &size, EVP_MAX_MD_SIZE) == 1;
};
}  // namespace

VerifyStatus EvpMacTokenVerifier::verify_admission(std::string_view token,
                                                   std::uint64_t now) const {
  return verify(keys_, token, TokenKind::admission, now, nullptr, {}, evp_tag);
}

VerifyStatus EvpMacTokenVerifier::verify_pass(std::string_view token, std::uint64_t now,
                                              std::uint32_t ipv4,
                                              std::string_view user_agent) const {
  return verify(keys_, token, TokenKind::pass, now, &ipv4, user_agent, evp_tag);
}

}  // namespace gatebench::peers
