// base64url (RFC 4648 section 5) without padding, as cookies and JWTs carry it.
//
// Decoding is strict so that every byte string has exactly one accepted text: '=' padding,
// characters outside the alphabet, a length of 1 mod 4, and non-zero unused bits in the last
// character are all rejected. Without the last rule, two different cookie texts could carry
// the same signed bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gatebench::tokens {

constexpr std::size_t base64url_encoded_size(std::size_t bytes) {
  return (bytes * 4 + 2) / 3;
}
// The decoded size of a text of `chars` characters, or nullopt when no text has that length.
constexpr std::optional<std::size_t> base64url_decoded_size(std::size_t chars) {
  if (chars % 4 == 1) return std::nullopt;
  return chars / 4 * 3 + (chars % 4 == 0 ? 0 : chars % 4 - 1);
}

// Writes base64url_encoded_size(in.size()) characters to out; returns that count.
// Precondition: out.size() >= base64url_encoded_size(in.size()).
std::size_t base64url_encode(std::span<const std::uint8_t> in, std::span<char> out);
std::string base64url_encode(std::span<const std::uint8_t> in);

// Decodes `in` into `out`; returns the byte count, or nullopt when `in` is not canonical
// base64url or `out` is too small. No allocation. Uses the AVX-512 VBMI kernel when the CPU has
// it (probed once), the scalar one otherwise; the two give identical results.
std::optional<std::size_t> base64url_decode(std::string_view in, std::span<std::uint8_t> out);

// The kernels, exported for their differential test. Precondition for the VBMI one:
// base64url_has_vbmi(). It translates 64 characters per step with one two-table byte permute
// (vpermi2b), packs them with two multiply-adds and compacts the bytes with one vpermb; a token
// of up to 64 characters is one step, its tail handled by masked loads and stores.
std::optional<std::size_t> base64url_decode_scalar(std::string_view in,
                                                   std::span<std::uint8_t> out);
std::optional<std::size_t> base64url_decode_vbmi(std::string_view in, std::span<std::uint8_t> out);
bool base64url_has_vbmi();

}  // namespace gatebench::tokens
