#include "micro/core/tokens/format.hpp"

namespace gatebench::tokens {
namespace {

std::uint64_t load_be(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

void store_be(std::uint8_t* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * (bytes - 1 - i)));
}

void store_header(std::uint8_t* p, TokenKind kind, std::uint8_t key_id, std::uint32_t expiry) {
  p[0] = kTokenVersion;
  p[1] = static_cast<std::uint8_t>(kind);
  p[2] = key_id;
  store_be(p + 3, expiry, 4);
}

}  // namespace

std::uint32_t DecodedToken::queue_id() const {
  return static_cast<std::uint32_t>(load_be(bytes.data() + kTokenHeaderSize, 4));
}
std::uint64_t DecodedToken::ticket() const {
  return load_be(bytes.data() + kTokenHeaderSize + 4, 8);
}
std::uint64_t DecodedToken::binding() const {
  return load_be(bytes.data() + kTokenHeaderSize, 8);
}

VerifyStatus decode_token(std::string_view text, TokenKind expected, DecodedToken& out) {
  // The length alone tells the kind; checking it first keeps garbage out of the decoder.
  TokenKind kind;
  if (text.size() == token_text_size(TokenKind::admission)) {
    kind = TokenKind::admission;
  } else if (text.size() == token_text_size(TokenKind::pass)) {
    kind = TokenKind::pass;
  } else {
    return VerifyStatus::malformed;
  }
  const auto size = base64url_decode(text, out.bytes);
  if (!size) return VerifyStatus::malformed;
  out.size = *size;
  if (out.bytes[0] != kTokenVersion) return VerifyStatus::malformed;
  // The kind byte must agree with the length, or one token could be read as two layouts.
  if (out.bytes[1] != static_cast<std::uint8_t>(kind)) return VerifyStatus::malformed;
  out.kind = kind;
  out.key_id = out.bytes[2];
  out.expiry = static_cast<std::uint32_t>(load_be(out.bytes.data() + 3, 4));
  return kind == expected ? VerifyStatus::ok : VerifyStatus::wrong_kind;
}

std::span<const std::uint8_t> encode_admission_signed(std::uint8_t key_id, std::uint32_t expiry,
                                                      std::uint32_t queue_id, std::uint64_t ticket,
                                                      std::span<std::uint8_t> out) {
  store_header(out.data(), TokenKind::admission, key_id, expiry);
  store_be(out.data() + kTokenHeaderSize, queue_id, 4);
  store_be(out.data() + kTokenHeaderSize + 4, ticket, 8);
  return out.first(kAdmissionSignedSize);
}

std::span<const std::uint8_t> encode_pass_signed(std::uint8_t key_id, std::uint32_t expiry,
                                                 std::uint64_t binding,
                                                 std::span<std::uint8_t> out) {
  store_header(out.data(), TokenKind::pass, key_id, expiry);
  store_be(out.data() + kTokenHeaderSize, binding, 8);
  return out.first(kPassSignedSize);
}

}  // namespace gatebench::tokens
