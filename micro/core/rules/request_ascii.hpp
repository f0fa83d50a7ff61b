// ASCII case folding for request fields. HTTP names and the tokens rules compare are ASCII;
// locale-dependent tolower would be slower and could fold bytes differently per machine.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gatebench::rules {

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

// ASCII lower case of 8 bytes at once: 0x20 added to the bytes in 'A'..'Z'. Each byte's range
// test adds to its low 7 bits only, so no carry crosses into the next byte.
inline std::uint64_t lower8(std::uint64_t x) {
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  const std::uint64_t low7 = x & ~kHigh;
  const std::uint64_t from_a = (low7 + 0x3F3F3F3F3F3F3F3Full) & kHigh;  // >= 'A' (0x41)
  const std::uint64_t past_z = (low7 + 0x2525252525252525ull) & kHigh;  // >  'Z' (0x5A)
  const std::uint64_t upper = from_a & ~past_z & ~x;                    // and < 0x80
  return x | (upper >> 2);
}

inline std::uint64_t load8(const char* p) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}

// True when `text` equals `lower` ignoring ASCII case; `lower` must already be lower case.
// Host names, header names and needles are 4 to 30 bytes: 8 at a time, the last 8 overlapping.
inline bool equals_lower(std::string_view text, std::string_view lower) {
  const std::size_t n = text.size();
  if (n != lower.size()) return false;
  if (n < 8) {
    for (std::size_t i = 0; i < n; ++i) {
      if (lower_ascii(text[i]) != lower[i]) return false;
    }
    return true;
  }
  for (std::size_t i = 0; i + 8 < n; i += 8) {
    if (lower8(load8(text.data() + i)) != load8(lower.data() + i)) return false;
  }
  return lower8(load8(text.data() + n - 8)) == load8(lower.data() + n - 8);
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

}  // namespace gatebench::rules
