#include "micro/core/tokens/hmac_sha256.hpp"

#include <openssl/crypto.h>

#include <cstring>

namespace gatebench::tokens {
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

Sha256State HmacSha256Key::outer_state(const Sha256State& inner_done) const {
  // Outer message: the 32-byte inner digest after the key block, so 96 bytes = 768 bits in all.
  // The digest's big-endian bytes read back as message words are the state words themselves.
  const std::uint32_t words[16] = {inner_done.h[0],
                                   inner_done.h[1],
                                   inner_done.h[2],
                                   inner_done.h[3],
                                   inner_done.h[4],
                                   inner_done.h[5],
                                   inner_done.h[6],
                                   inner_done.h[7],
                                   0x80000000u,
                                   0,
                                   0,
                                   0,
                                   0,
                                   0,
                                   0,
                                   (kSha256BlockSize + kSha256DigestSize) * 8};
  Sha256State state = outer_;
  sha256_compress_words(state, words);
  return state;
}

Sha256State HmacSha256Key::mac_short_state(std::span<const std::uint8_t> message) const {
  std::uint8_t block[kSha256BlockSize] = {};
  if (!message.empty()) std::memcpy(block, message.data(), message.size());
  block[message.size()] = 0x80;
  store_be64(block + 56, (kSha256BlockSize + message.size()) * 8);
  Sha256State state = inner_;
  sha256_compress(state, block, 1);
  return outer_state(state);
}

Sha256State HmacSha256Key::mac_state(std::span<const std::uint8_t> message) const {
  if (message.size() <= kHmacShortMessageMax) return mac_short_state(message);
  return outer_state(sha256_finish_state(inner_, kSha256BlockSize, message));
}

Sha256Digest HmacSha256Key::mac_short(std::span<const std::uint8_t> message) const {
  return sha256_state_bytes(mac_short_state(message));
}

Sha256Digest HmacSha256Key::mac(std::span<const std::uint8_t> message) const {
  return sha256_state_bytes(mac_state(message));
}

bool digest_matches_tag(const Sha256State& digest, std::span<const std::uint8_t> tag) {
  // XOR/OR over every word, no early exit; the empty asm keeps the compiler from proving
  // anything about `diff` and inserting a branch.
  std::uint32_t diff = 0;
  for (std::size_t i = 0; i < tag.size() / 4; ++i) {
    const std::uint32_t word = (std::uint32_t{tag[4 * i]} << 24) |
                               (std::uint32_t{tag[4 * i + 1]} << 16) |
                               (std::uint32_t{tag[4 * i + 2]} << 8) | tag[4 * i + 3];
    diff |= word ^ digest.h[i];
    asm volatile("" : "+r"(diff));
  }
  return diff == 0;
}

bool constant_time_equal(const std::uint8_t* a, const std::uint8_t* b, std::size_t size) {
  // CRYPTO_memcmp is OpenSSL's audited constant-time compare (assembly on x86-64), so the
  // compiler cannot turn it into an early-exit loop.
  return CRYPTO_memcmp(a, b, size) == 0;
}

}  // namespace gatebench::tokens
