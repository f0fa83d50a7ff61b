#include "micro/core/rules/percent_decode.hpp"

#include <cstdint>
#include <cstring>

#include "micro/core/rules/hex_digits.hpp"
#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::rules {

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
