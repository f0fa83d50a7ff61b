// Which KnownHeader a header name is (internal to micro/core/http1): by length, then one to
// three word compares instead of a byte loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "micro/core/http1/message.hpp"

namespace gatebench::http1::detail {

// kN (1-8) bytes of a token from p as a little-endian word, letters lowered by OR 0x20. Only
// letters map onto letters that way, and a token holds no CR (the one other byte that maps onto
// '-'), so comparing such words with a lower-case name is an exact case-insensitive comparison.
template <std::size_t kN>
inline std::uint64_t lowered(const char* p) {
  static_assert(kN >= 1 && kN <= 8);
  std::uint64_t w = 0;
  std::memcpy(&w, p, kN);
  constexpr std::uint64_t kMask = kN == 8 ? ~0ULL : (1ULL << (8 * kN)) - 1;
  return w | (0x2020202020202020ULL & kMask);
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

// Whether the token at p, of the literal's length, is the lower-case literal in any case: one
// word for up to 8 bytes, two overlapping words for 9-16, three for 17-24.
template <std::size_t kSize>
inline bool token_is(const char* p, const char (&lit)[kSize]) {
  constexpr std::size_t kN = kSize - 1;
  if constexpr (kN <= 8) {
    return lowered<kN>(p) == word(lit);
  } else if constexpr (kN <= 16) {
    return lowered<8>(p) == word(lit) && lowered<8>(p + kN - 8) == word(lit, kN - 8);
  } else {
    static_assert(kN <= 24);
    return lowered<8>(p) == word(lit) && lowered<8>(p + 8) == word(lit, 8) &&
           lowered<kN - 16>(p + 16) == word(lit, 16);
  }
}

// classify_header for a name already known to be a token (the header-line scans').
inline KnownHeader classify_token(const char* p, std::size_t n) {
  switch (n) {
    case 2:
      if (token_is(p, "te")) return KnownHeader::kTe;
      break;
    case 4:
      if (token_is(p, "host")) return KnownHeader::kHost;
      break;
    case 6:
      if (token_is(p, "cookie")) return KnownHeader::kCookie;
      if (token_is(p, "expect")) return KnownHeader::kExpect;
      break;
    case 7:
      if (token_is(p, "trailer")) return KnownHeader::kTrailer;
      if (token_is(p, "upgrade")) return KnownHeader::kUpgrade;
      if (token_is(p, "referer")) return KnownHeader::kReferer;
      break;
    case 10:
      if (token_is(p, "connection")) return KnownHeader::kConnection;
      if (token_is(p, "keep-alive")) return KnownHeader::kKeepAlive;
      if (token_is(p, "user-agent")) return KnownHeader::kUserAgent;
      break;
    case 14:
      if (token_is(p, "content-length")) return KnownHeader::kContentLength;
      break;
    case 15:
      if (token_is(p, "x-forwarded-for")) return KnownHeader::kXForwardedFor;
      break;
    case 16:
      if (token_is(p, "proxy-connection")) return KnownHeader::kProxyConnection;
      break;
    case 17:
      if (token_is(p, "transfer-encoding")) return KnownHeader::kTransferEncoding;
      if (token_is(p, "x-forwarded-proto")) return KnownHeader::kXForwardedProto;
      break;
    default:
      break;
  }
  return KnownHeader::kOther;
}

}  // namespace gatebench::http1::detail
