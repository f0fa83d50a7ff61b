// Which KnownHeader a header name is (internal to micro/core/http1): by length, then one to
// three word compares instead of a byte loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "micro/core/http1/message.hpp"

namespace gatebench::http1::detail {

// kN (1-8) bytes from p as a little-endian word, by one load or two overlapping ones of a
// power-of-two size: a memcpy of 3, 5, 6 or 7 bytes into a word goes through the stack, and
// reading the word back stalls on store forwarding (a quarter of a short GET's time, measured).
template <std::size_t kN>
inline std::uint64_t load_le(const char* p) {
  static_assert(kN >= 1 && kN <= 8);
  if constexpr (kN == 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  } else if constexpr (kN >= 4) {
    std::uint32_t lo;
    std::uint32_t hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + kN - 4, 4);  // overlaps lo by 8 - kN bytes, which agree
    return lo | static_cast<std::uint64_t>(hi) << (8 * (kN - 4));
  } else if constexpr (kN >= 2) {
    std::uint16_t lo;
    std::uint16_t hi;
    std::memcpy(&lo, p, 2);
    std::memcpy(&hi, p + kN - 2, 2);
    return lo | static_cast<std::uint64_t>(hi) << (8 * (kN - 2));
  } else {
    return static_cast<unsigned char>(*p);
  }
}

// kN (1-8) bytes of a token from p as a little-endian word, letters lowered by OR 0x20. Only
// letters map onto letters that way, and a token holds no CR (the one other byte that maps onto
// '-'), so comparing such words with a lower-case name is an exact case-insensitive comparison.
template <std::size_t kN>
inline std::uint64_t lowered(const char* p) {
  static_assert(kN >= 1 && kN <= 8);
  constexpr std::uint64_t kMask = kN == 8 ? ~0ULL : (1ULL << (8 * kN)) - 1;
  return load_le<kN>(p) | (0x2020202020202020ULL & kMask);
}

// Bytes [from, from + 8) of a literal (fewer at its end) as a little-endian word.
template <std::size_t kSize>
constexpr std::uint64_t word(const char (&lit)[kSize], std::size_t from = 0) {
  constexpr std::size_t kN = kSize - 1;
  std::uint64_t w = 0;
  const std::size_t n = kN - from < 8 ? kN - from : 8;
  for (std::size_t i = 0; i < n; ++i) {
    w |= static_cast<std::uint64_t>(static_cast<unsigned char>(lit[from + i])) << (8 * i);
  }
  return w;
}

// A string literal as a template argument (token_is<"host">), so that its words are constants:
// passed as a function argument they were built byte by byte at run time where the optimiser
// did not fold them.
template <std::size_t kSize>
struct Literal {
  // Implicit, so that token_is<"host"> takes the literal itself.
  constexpr Literal(const char (&lit)[kSize]) {
    for (std::size_t i = 0; i < kSize; ++i) s[i] = lit[i];
  }
  static constexpr std::size_t kLength = kSize - 1;
  char s[kSize] = {};
};

// Whether the token at p, of the literal's length, is the lower-case literal in any case: one
// word for up to 8 bytes, two overlapping words for 9-16, three for 17-24.
template <Literal kLit>
inline bool token_is(const char* p) {
  constexpr std::size_t kN = decltype(kLit)::kLength;
  constexpr std::uint64_t kW0 = word(kLit.s);
  if constexpr (kN <= 8) {
    return lowered<kN>(p) == kW0;
  } else if constexpr (kN <= 16) {
    constexpr std::uint64_t kW1 = word(kLit.s, kN - 8);
    return lowered<8>(p) == kW0 && lowered<8>(p + kN - 8) == kW1;
  } else {
    static_assert(kN <= 24);
    constexpr std::uint64_t kW1 = word(kLit.s, 8);
    constexpr std::uint64_t kW2 = word(kLit.s, 16);
    return lowered<8>(p) == kW0 && lowered<8>(p + 8) == kW1 && lowered<kN - 16>(p + 16) == kW2;
  }
}

// classify_header for a name already known to be a token (the header-line scans'). Inlined into
// the scans: as a call it makes them spill their vector state and clear the upper halves of the
// AVX registers (vzeroupper) once a line.
[[gnu::always_inline]] inline KnownHeader classify_token(const char* p, std::size_t n) {
  switch (n) {
    case 2:
      if (token_is<"te">(p)) return KnownHeader::kTe;
      break;
    case 4:
      if (token_is<"host">(p)) return KnownHeader::kHost;
      break;
    case 6:
      if (token_is<"cookie">(p)) return KnownHeader::kCookie;
      if (token_is<"expect">(p)) return KnownHeader::kExpect;
      break;
    case 7:
      if (token_is<"trailer">(p)) return KnownHeader::kTrailer;
      if (token_is<"upgrade">(p)) return KnownHeader::kUpgrade;
      if (token_is<"referer">(p)) return KnownHeader::kReferer;
      break;
    case 10:
      if (token_is<"connection">(p)) return KnownHeader::kConnection;
      if (token_is<"keep-alive">(p)) return KnownHeader::kKeepAlive;
      if (token_is<"user-agent">(p)) return KnownHeader::kUserAgent;
      break;
    case 14:
      if (token_is<"content-length">(p)) return KnownHeader::kContentLength;
      break;
    case 15:
      if (token_is<"x-forwarded-for">(p)) return KnownHeader::kXForwardedFor;
      break;
    case 16:
      if (token_is<"proxy-connection">(p)) return KnownHeader::kProxyConnection;
      break;
    case 17:
      if (token_is<"transfer-encoding">(p)) return KnownHeader::kTransferEncoding;
      if (token_is<"x-forwarded-proto">(p)) return KnownHeader::kXForwardedProto;
      break;
    default:
      break;
  }
  return KnownHeader::kOther;
}

}  // namespace gatebench::http1::detail
