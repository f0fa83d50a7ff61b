#include "micro/core/cidr/ipv4.hpp"

namespace gatebench::cidr {

Ipv4ParseResult parse_ipv4(std::string_view text) noexcept {
  Ipv4ParseResult result;
  if (text.empty()) {
    result.error = Ipv4ParseError::kEmpty;
    return result;
  }
  std::uint32_t address = 0;
  int octets = 0;
  std::size_t i = 0;
  const auto fail = [&](Ipv4ParseError error, std::size_t offset) {
    result.error = error;
    result.error_offset = offset;
    return result;
  };
  while (true) {
    const std::size_t start = i;
    std::uint32_t octet = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (i - start == 1 && text[start] == '0') return fail(Ipv4ParseError::kLeadingZero, start);
      // Bounded before it can overflow: four digits already exceed 255.
      if (i - start == 3) return fail(Ipv4ParseError::kOctetTooLarge, start);
      octet = octet * 10 + static_cast<std::uint32_t>(text[i] - '0');
      ++i;
    }
    if (i == start) {
      if (i < text.size() && text[i] != '.') return fail(Ipv4ParseError::kBadCharacter, i);
      return fail(Ipv4ParseError::kEmptyOctet, i);
    }
    if (octet > 255) return fail(Ipv4ParseError::kOctetTooLarge, start);
    address = (address << 8) | octet;
    ++octets;
    if (i == text.size()) break;
    if (text[i] != '.') return fail(Ipv4ParseError::kBadCharacter, i);
    if (octets == 4) return fail(Ipv4ParseError::kTooManyOctets, i);
    ++i;
  }
  if (octets < 4) return fail(Ipv4ParseError::kTooFewOctets, text.size());
  result.address = address;
  return result;
}

std::string_view describe(Ipv4ParseError error) noexcept {
  switch (error) {
    case Ipv4ParseError::kNone:
      return "no error";
    case Ipv4ParseError::kEmpty:
      return "empty address";
    case Ipv4ParseError::kBadCharacter:
      return "unexpected character in address";
    case Ipv4ParseError::kEmptyOctet:
      return "empty octet in address";
    case Ipv4ParseError::kOctetTooLarge:
      return "octet over 255";
    case Ipv4ParseError::kLeadingZero:
      return "octet with a leading zero (octal is ambiguous)";
    case Ipv4ParseError::kTooFewOctets:
      return "fewer than 4 octets";
    case Ipv4ParseError::kTooManyOctets:
      return "more than 4 octets";
  }
  return "unknown error";
}

std::size_t format_ipv4(std::uint32_t address, char* out) noexcept {
  std::size_t n = 0;
  for (int shift = 24; shift >= 0; shift -= 8) {
    const unsigned octet = (address >> shift) & 0xFF;
    if (octet >= 100) out[n++] = static_cast<char>('0' + octet / 100);
    if (octet >= 10) out[n++] = static_cast<char>('0' + octet / 10 % 10);
    out[n++] = static_cast<char>('0' + octet % 10);
    if (shift != 0) out[n++] = '.';
  }
  return n;
}

std::string format_ipv4(std::uint32_t address) {
  char buffer[kIpv4MaxText];
  return std::string(buffer, format_ipv4(address, buffer));
}

}  // namespace gatebench::cidr
