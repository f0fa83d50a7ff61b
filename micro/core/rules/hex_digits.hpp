// Hex digit values for the percent-decoders and the body decoders (one table, one byte load per
// digit).
#pragma once

#include <array>
#include <cstdint>

namespace gatebench::rules {

// 0..15 for the hex digits (either case), 0xff for every other byte.
inline constexpr std::array<std::uint8_t, 256> kHexValue = [] {
  std::array<std::uint8_t, 256> t{};
  for (auto& v : t) v = 0xff;
  for (int c = '0'; c <= '9'; ++c) t[c] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[c] = static_cast<std::uint8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) t[c] = static_cast<std::uint8_t>(c - 'A' + 10);
  return t;
}();

}  // namespace gatebench::rules
