// The keys signed tokens are minted and verified with: a current key (mints and verifies) and the
// previous one (verifies only), each addressed by the one-byte key id carried in the token.
//
// Everything per key is derived once, in rotate(): the HMAC inner/outer states (so a verify
// costs two compressions, not four) and the SipHash key of the client binding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "micro/core/tokens/binding.hpp"
#include "micro/core/tokens/hmac_sha256.hpp"

namespace gatebench::tokens {

// 256-bit secrets at least: the tag is truncated to 128 bits, the key must not be the weak part.
inline constexpr std::size_t kTokenMinSecretSize = 32;

struct TokenKey {
  TokenKey(std::uint8_t id, std::span<const std::uint8_t> secret);

  // Whether both keys come from the same secret (their binding keys, a MAC of it, agree).
  bool same_secret(const TokenKey& other) const {
    return binding.k0 == other.binding.k0 && binding.k1 == other.binding.k1;
  }

  std::uint8_t id;
  HmacSha256Key mac;
  SipKey binding;
};

class TokenKeyRing {
 public:
  // Makes `id` the current key; the former current key becomes the previous one (still
  // verifies); the former previous key is dropped (its tokens verify as unknown_key).
  // Throws std::invalid_argument when the secret is shorter than kTokenMinSecretSize or the id
  // is already in the ring (reusing an id would turn its outstanding tokens into forgeries).
  void rotate(std::uint8_t id, std::span<const std::uint8_t> secret);
  // rotate() with a key already derived (a running ring's key carried into a reloaded one).
  void rotate(const TokenKey& key);
  // Drops the key with this id (for example the previous key once its tokens have expired);
  // returns whether it was there.
  bool remove(std::uint8_t id);

  const TokenKey* find(std::uint8_t id) const {
    if (current_ && current_->id == id) return &*current_;
    if (previous_ && previous_->id == id) return &*previous_;
    return nullptr;
  }
  const TokenKey* current() const { return current_ ? &*current_ : nullptr; }
  const TokenKey* previous() const { return previous_ ? &*previous_ : nullptr; }

 private:
  std::optional<TokenKey> current_;
  std::optional<TokenKey> previous_;
};

}  // namespace gatebench::tokens
