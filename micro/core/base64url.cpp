#include "micro/core/base64url.hpp"

#include <array>

namespace gatebench::core {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// 0..63 for alphabet characters, 0x80 otherwise: OR-ing four lookups tests all four at once.
constexpr std::array<std::uint8_t, 256> make_decode_table() {
  std::array<std::uint8_t, 256> table{};
  for (auto& v : table) v = 0x80;
  for (std::uint8_t i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = i;
  return table;
}
constexpr std::array<std::uint8_t, 256> kDecode = make_decode_table();

std::uint8_t lookup(char c) {
  return kDecode[static_cast<unsigned char>(c)];
}

}  // namespace

std::size_t base64url_encode(std::span<const std::uint8_t> in, std::span<char> out) {
  std::size_t o = 0;
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v =
        (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) | in[i + 2];
    out[o++] = kAlphabet[v >> 18];
    out[o++] = kAlphabet[(v >> 12) & 63];
    out[o++] = kAlphabet[(v >> 6) & 63];
    out[o++] = kAlphabet[v & 63];
  }
  const std::size_t rest = in.size() - i;
  if (rest == 1) {
    const std::uint32_t v = std::uint32_t{in[i]} << 16;
    out[o++] = kAlphabet[v >> 18];
    out[o++] = kAlphabet[(v >> 12) & 63];
  } else if (rest == 2) {
    const std::uint32_t v = (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8);
    out[o++] = kAlphabet[v >> 18];
    out[o++] = kAlphabet[(v >> 12) & 63];
    out[o++] = kAlphabet[(v >> 6) & 63];
  }
  return o;
}

std::string base64url_encode(std::span<const std::uint8_t> in) {
  std::string out(base64url_encoded_size(in.size()), '\0');
  base64url_encode(in, std::span<char>(out.data(), out.size()));
  return out;
}

std::optional<std::size_t> base64url_decode(std::string_view in, std::span<std::uint8_t> out) {
  const auto size = base64url_decoded_size(in.size());
  if (!size || *size > out.size()) return std::nullopt;
  std::uint8_t* dst = out.data();
  std::size_t i = 0;
  std::uint8_t bad = 0;
  for (; i + 4 <= in.size(); i += 4) {
    const std::uint8_t a = lookup(in[i]), b = lookup(in[i + 1]), c = lookup(in[i + 2]),
                       d = lookup(in[i + 3]);
    bad |= a | b | c | d;
    const std::uint32_t v =
        (std::uint32_t{a} << 18) | (std::uint32_t{b} << 12) | (std::uint32_t{c} << 6) | d;
    *dst++ = static_cast<std::uint8_t>(v >> 16);
    *dst++ = static_cast<std::uint8_t>(v >> 8);
    *dst++ = static_cast<std::uint8_t>(v);
  }
  const std::size_t rest = in.size() - i;
  if (rest == 2) {
    const std::uint8_t a = lookup(in[i]), b = lookup(in[i + 1]);
    // Two characters carry 12 bits for one byte: the low 4 bits of the second must be zero.
    bad |= a | b | ((b & 0x0f) != 0 ? 0x80 : 0);
    *dst++ = static_cast<std::uint8_t>((a << 2) | (b >> 4));
  } else if (rest == 3) {
    const std::uint8_t a = lookup(in[i]), b = lookup(in[i + 1]), c = lookup(in[i + 2]);
    // Three characters carry 18 bits for two bytes: the low 2 bits of the third must be zero.
    bad |= a | b | c | ((c & 0x03) != 0 ? 0x80 : 0);
    const std::uint32_t v =
        (std::uint32_t{a} << 18) | (std::uint32_t{b} << 12) | (std::uint32_t{c} << 6);
    *dst++ = static_cast<std::uint8_t>(v >> 16);
    *dst++ = static_cast<std::uint8_t>(v >> 8);
  }
  if (bad & 0x80) return std::nullopt;
  return *size;
}

}  // namespace gatebench::core
