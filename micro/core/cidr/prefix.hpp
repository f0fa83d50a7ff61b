// IPv4 prefixes, table values and address ranges: the vocabulary of the CIDR table
// (table.hpp) and of the list parser (list.hpp).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace gatebench::cidr {

// The value a table maps an address to: list membership (any value the caller picks, e.g. 1 or a
// list id) or a packed country code. kNoMatch is what a lookup returns when no prefix covers the
// address; it cannot be stored.
using CidrValue = std::uint32_t;
inline constexpr CidrValue kNoMatch = 0xFFFFFFFFu;

// Netmask of a prefix length 0..32 ("/8" -> 0xFF000000).
constexpr std::uint32_t prefix_mask(unsigned length) noexcept {
  return length == 0 ? 0u : ~std::uint32_t{0} << (32 - length);
}

// A normalised prefix: address has no bits set below the prefix length.
struct Ipv4Prefix {
  std::uint32_t address = 0;  // host byte order
  std::uint8_t length = 0;    // 0..32

  constexpr std::uint32_t first() const noexcept { return address; }
  constexpr std::uint32_t last() const noexcept { return address | ~prefix_mask(length); }
  constexpr bool contains(std::uint32_t a) const noexcept {
    return (a & prefix_mask(length)) == address;
  }
  friend constexpr bool operator==(const Ipv4Prefix&, const Ipv4Prefix&) = default;
};

// One prefix and the value its addresses map to.
struct CidrEntry {
  Ipv4Prefix prefix;
  CidrValue value = 1;
  friend constexpr bool operator==(const CidrEntry&, const CidrEntry&) = default;
};

// Country codes are stored as table values with the two ASCII characters packed into the low 16
// bits: pack_country('U', 'S') == ('U' << 8) | 'S' == 0x5553. A lookup result v is a country when
// v != kNoMatch; unpack it with country_first(v) / country_second(v) or country_code(v, buf).
constexpr CidrValue pack_country(char first, char second) noexcept {
  return (CidrValue{static_cast<unsigned char>(first)} << 8) |
         CidrValue{static_cast<unsigned char>(second)};
}
// code must have exactly two characters; any other length packs to kNoMatch.
constexpr CidrValue pack_country(std::string_view code) noexcept {
  return code.size() == 2 ? pack_country(code[0], code[1]) : kNoMatch;
}
constexpr char country_first(CidrValue v) noexcept {
  return static_cast<char>((v >> 8) & 0xFF);
}
constexpr char country_second(CidrValue v) noexcept {
  return static_cast<char>(v & 0xFF);
}

// Splits the inclusive range [first, last] (first <= last) into the fewest prefixes that cover
// exactly that range, in address order, appending them to out. At most 62 prefixes.
void append_range_prefixes(std::uint32_t first, std::uint32_t last, std::vector<Ipv4Prefix>& out);

}  // namespace gatebench::cidr
