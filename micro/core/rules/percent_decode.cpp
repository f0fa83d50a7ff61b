#include "micro/core/rules/percent_decode.hpp"

#include <array>
#include <cstdint>
#include <cstring>

#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::rules {
namespace {

// 0..15 for hex digits, 0xff otherwise.
constexpr std::array<std::uint8_t, 256> kHexValue = [] {
  std::array<std::uint8_t, 256> t{};
  for (auto& v : t) v = 0xff;
  for (int c = '0'; c <= '9'; ++c) t[c] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[c] = static_cast<std::uint8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) t[c] = static_cast<std::uint8_t>(c - 'A' + 10);
  return t;
}();

}  // namespace

std::string_view percent_decode_lower(std::string_view in, char* out, PlusMode plus) {
  const char* p = in.data();
  const char* const end = p + in.size();
  char* o = out;
  const char plus_to = plus == PlusMode::kToSpace ? ' ' : '+';
  while (p < end) {
    const char c = *p;
    if (c == '%' && end - p >= 3) {
      const std::uint8_t hi = kHexValue[static_cast<unsigned char>(p[1])];
      const std::uint8_t lo = kHexValue[static_cast<unsigned char>(p[2])];
      if ((hi | lo) < 16) {
        *o++ = lower_ascii(static_cast<char>((hi << 4) | lo));
        p += 3;
        continue;
      }
    }
    *o++ = c == '+' ? plus_to : lower_ascii(c);
    ++p;
  }
  return {out, static_cast<std::size_t>(o - out)};
}

}  // namespace gatebench::rules
