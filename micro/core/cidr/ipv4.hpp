// IPv4 addresses as text: the strict dotted-quad parser shared by the CIDR list parser and the
// gateway (client addresses, X-Forwarded-For), and the formatter used in diagnostics.
//
// Addresses are uint32_t in host byte order ("10.1.2.3" is 0x0A010203), so prefix arithmetic is
// plain shifts and comparisons.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gatebench::cidr {

enum class Ipv4ParseError : std::uint8_t {
  kNone = 0,
  kEmpty,          // no text at all
  kBadCharacter,   // something other than a digit or '.'
  kEmptyOctet,     // "1..2.3", ".1.2.3", "1.2.3."
  kOctetTooLarge,  // an octet above 255
  kLeadingZero,    // "01": inet_aton would read it as octal, so it is refused, not guessed
  kTooFewOctets,   // "1.2.3"
  kTooManyOctets,  // "1.2.3.4.5"
};

struct Ipv4ParseResult {
  std::uint32_t address = 0;  // valid when error == kNone
  Ipv4ParseError error = Ipv4ParseError::kNone;
  std::size_t error_offset = 0;  // byte offset in the input where the error was found

  explicit operator bool() const noexcept { return error == Ipv4ParseError::kNone; }
};

// Parses exactly "a.b.c.d" (four decimal octets 0-255, no sign, no whitespace, no leading zero
// except "0" itself). The whole view must be the address. No allocation; safe on any input.
Ipv4ParseResult parse_ipv4(std::string_view text) noexcept;

// A short English reason for diagnostics ("octet over 255", ...).
std::string_view describe(Ipv4ParseError error) noexcept;

// Longest dotted quad: "255.255.255.255".
inline constexpr std::size_t kIpv4MaxText = 15;

// Writes the dotted quad to out (at least kIpv4MaxText bytes, not terminated); returns its length.
std::size_t format_ipv4(std::uint32_t address, char* out) noexcept;
std::string format_ipv4(std::uint32_t address);

}  // namespace gatebench::cidr
