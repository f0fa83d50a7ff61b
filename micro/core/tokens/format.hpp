// The byte layout of gatecore's signed tokens (docs/tokens.md) and its strict decoding.
//
//   offset size  field
//   0      1     version (1)
//   1      1     kind (1 admission, 2 pass)
//   2      1     key id
//   3      4     expiry, unix seconds, big-endian (now >= expiry is expired)
//   7      12    admission: queue id (4, BE), ticket (8, BE)
//   7      8     pass: client binding (8, BE), see binding.hpp
//   19|15  16    tag: HMAC-SHA256 of the bytes before it, first 16 bytes
//
// The whole is base64url without padding: 47 characters for an admission token, 42 for a pass.
// The signed part (19 or 15 bytes) fits one SHA-256 block after the HMAC key block.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "micro/core/tokens/base64url.hpp"
#include "micro/core/tokens/status.hpp"

namespace gatebench::tokens {

enum class TokenKind : std::uint8_t { admission = 1, pass = 2 };

inline constexpr std::uint8_t kTokenVersion = 1;
inline constexpr std::size_t kTokenHeaderSize = 7;  // version, kind, key id, expiry
inline constexpr std::size_t kTokenTagSize = 16;
inline constexpr std::size_t kAdmissionSignedSize = kTokenHeaderSize + 12;
inline constexpr std::size_t kPassSignedSize = kTokenHeaderSize + 8;

constexpr std::size_t token_signed_size(TokenKind kind) {
  return kind == TokenKind::admission ? kAdmissionSignedSize : kPassSignedSize;
}
constexpr std::size_t token_text_size(TokenKind kind) {
  return base64url_encoded_size(token_signed_size(kind) + kTokenTagSize);
}

inline constexpr std::size_t kTokenMaxBytes = kAdmissionSignedSize + kTokenTagSize;
inline constexpr std::size_t kTokenMaxText = base64url_encoded_size(kTokenMaxBytes);

// A token's bytes after base64url decoding; views into `bytes`.
struct DecodedToken {
  std::array<std::uint8_t, kTokenMaxBytes> bytes;
  std::size_t size;
  TokenKind kind;
  std::uint8_t key_id;
  std::uint32_t expiry;

  std::span<const std::uint8_t> signed_part() const { return {bytes.data(), size - kTokenTagSize}; }
  std::span<const std::uint8_t> tag() const {
    return {bytes.data() + size - kTokenTagSize, kTokenTagSize};
  }
  // Subject fields (read only the ones of `kind`).
  std::uint32_t queue_id() const;
  std::uint64_t ticket() const;
  std::uint64_t binding() const;
};

// Decodes and checks the syntax of a token expected to be of `expected` kind. Returns ok,
// malformed (length, alphabet, version or an unknown kind), or wrong_kind. Nothing is
// authenticated yet: the caller checks the tag before trusting any field.
VerifyStatus decode_token(std::string_view text, TokenKind expected, DecodedToken& out);

// Writes the signed part of a token into `out` (token_signed_size(kind) bytes); returns it.
std::span<const std::uint8_t> encode_admission_signed(std::uint8_t key_id, std::uint32_t expiry,
                                                      std::uint32_t queue_id, std::uint64_t ticket,
                                                      std::span<std::uint8_t> out);
std::span<const std::uint8_t> encode_pass_signed(std::uint8_t key_id, std::uint32_t expiry,
                                                 std::uint64_t binding,
                                                 std::span<std::uint8_t> out);

}  // namespace gatebench::tokens
