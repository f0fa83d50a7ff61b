#include "micro/core/tokens/key_ring.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace gatebench::tokens {
namespace {

SipKey derive_binding_key(const HmacSha256Key& mac) {
  // A labelled MAC under the secret: the binding key is independent of the tags, and never
  // equal to any tag because no token's signed part starts with this label.
  constexpr std::string_view kLabel = "gatebench/token-binding/v1";
  const Sha256Digest d =
      mac.mac({reinterpret_cast<const std::uint8_t*>(kLabel.data()), kLabel.size()});
  SipKey key;
  for (int i = 7; i >= 0; --i) key.k0 = (key.k0 << 8) | d[i];
  for (int i = 15; i >= 8; --i) key.k1 = (key.k1 << 8) | d[i];
  return key;
}

}  // namespace

TokenKey::TokenKey(std::uint8_t key_id, std::span<const std::uint8_t> secret)
    : id(key_id), mac(secret), binding(derive_binding_key(mac)) {}

void TokenKeyRing::rotate(std::uint8_t id, std::span<const std::uint8_t> secret) {
  if (secret.size() < kTokenMinSecretSize) {
    throw std::invalid_argument("token key " + std::to_string(id) + ": secret has " +
                                std::to_string(secret.size()) + " bytes, at least " +
                                std::to_string(kTokenMinSecretSize) + " expected");
  }
  rotate(TokenKey(id, secret));
}

void TokenKeyRing::rotate(const TokenKey& key) {
  if (find(key.id) != nullptr) {
    throw std::invalid_argument("token key " + std::to_string(key.id) +
                                ": id already in the key ring (ids must not be reused while "
                                "their tokens may still be presented)");
  }
  previous_ = std::move(current_);
  current_.emplace(key);
}

bool TokenKeyRing::remove(std::uint8_t id) {
  if (current_ && current_->id == id) {
    current_.reset();
    return true;
  }
  if (previous_ && previous_->id == id) {
    previous_.reset();
    return true;
  }
  return false;
}

}  // namespace gatebench::tokens
