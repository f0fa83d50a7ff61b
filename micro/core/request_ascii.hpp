// ASCII case folding for request fields. HTTP names and the tokens rules compare are ASCII;
// locale-dependent tolower would be slower and could fold bytes differently per machine.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gatebench::core {

inline constexpr std::array<unsigned char, 256> kLowerTable = [] {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 256; ++c) {
    t[c] = static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
  }
  return t;
}();

inline char lower_ascii(char c) {
  return static_cast<char>(kLowerTable[static_cast<unsigned char>(c)]);
}

// True when `text` equals `lower` ignoring ASCII case; `lower` must already be lower case.
inline bool equals_lower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (lower_ascii(text[i]) != lower[i]) return false;
  }
  return true;
}

// Writes the lower-cased `text` to `out` (room for text.size() bytes) and returns the view.
// Arithmetic instead of the table so the compiler vectorises the loop (fields such as User-Agent
// are 100+ bytes).
inline std::string_view lower_into(std::string_view text, char* out) {
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  auto* o = reinterpret_cast<unsigned char*>(out);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = in[i];
    o[i] = static_cast<unsigned char>(c + ((static_cast<unsigned char>(c - 'A') < 26) << 5));
  }
  return {out, text.size()};
}

}  // namespace gatebench::core
