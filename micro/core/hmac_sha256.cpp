#include "micro/core/hmac_sha256.hpp"

#include <openssl/crypto.h>

#include <cstring>

namespace gatebench::core {
namespace {

void store_be64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (56 - 8 * i));
}

}  // namespace

HmacSha256Key::HmacSha256Key(std::span<const std::uint8_t> key) {
  std::uint8_t block[kSha256BlockSize] = {};
  if (key.size() > kSha256BlockSize) {
    const Sha256Digest hashed = sha256(key);
    std::memcpy(block, hashed.data(), hashed.size());
  } else if (!key.empty()) {
    std::memcpy(block, key.data(), key.size());
  }
  std::uint8_t pad[kSha256BlockSize];
  for (std::size_t i = 0; i < kSha256BlockSize; ++i) pad[i] = block[i] ^ 0x36;
  inner_ = kSha256Initial;
  sha256_compress(inner_, pad, 1);
  for (std::size_t i = 0; i < kSha256BlockSize; ++i) pad[i] = block[i] ^ 0x5c;
  outer_ = kSha256Initial;
  sha256_compress(outer_, pad, 1);
  // The padded key must not linger on the stack after configuration.
  OPENSSL_cleanse(block, sizeof block);
  OPENSSL_cleanse(pad, sizeof pad);
}

Sha256Digest HmacSha256Key::outer(const Sha256State& inner_done) const {
  // Outer message: the 32-byte inner digest after the key block, so 96 bytes = 768 bits in all.
  std::uint8_t block[kSha256BlockSize] = {};
  for (int i = 0; i < 8; ++i) {
    block[4 * i] = static_cast<std::uint8_t>(inner_done.h[i] >> 24);
    block[4 * i + 1] = static_cast<std::uint8_t>(inner_done.h[i] >> 16);
    block[4 * i + 2] = static_cast<std::uint8_t>(inner_done.h[i] >> 8);
    block[4 * i + 3] = static_cast<std::uint8_t>(inner_done.h[i]);
  }
  block[kSha256DigestSize] = 0x80;
  store_be64(block + 56, (kSha256BlockSize + kSha256DigestSize) * 8);
  Sha256State state = outer_;
  sha256_compress(state, block, 1);
  return sha256_state_bytes(state);
}

Sha256Digest HmacSha256Key::mac_short(std::span<const std::uint8_t> message) const {
  std::uint8_t block[kSha256BlockSize] = {};
  if (!message.empty()) std::memcpy(block, message.data(), message.size());
  block[message.size()] = 0x80;
  store_be64(block + 56, (kSha256BlockSize + message.size()) * 8);
  Sha256State state = inner_;
  sha256_compress(state, block, 1);
  return outer(state);
}

Sha256Digest HmacSha256Key::mac(std::span<const std::uint8_t> message) const {
  if (message.size() <= kHmacShortMessageMax) return mac_short(message);
  return outer(sha256_finish_state(inner_, kSha256BlockSize, message));
}

bool constant_time_equal(const std::uint8_t* a, const std::uint8_t* b, std::size_t size) {
  // CRYPTO_memcmp is OpenSSL's audited constant-time compare (assembly on x86-64), so the
  // compiler cannot turn it into an early-exit loop.
  return CRYPTO_memcmp(a, b, size) == 0;
}

}  // namespace gatebench::core
