#include "micro/core/cidr/prefix.hpp"

#include <bit>

namespace gatebench::cidr {

void append_range_prefixes(std::uint32_t first, std::uint32_t last, std::vector<Ipv4Prefix>& out) {
  // 64-bit so that "one past 255.255.255.255" and the /0 block size are representable.
  std::uint64_t begin = first;
  const std::uint64_t end = std::uint64_t{last} + 1;
  while (begin < end) {
    // The largest block that starts at begin (alignment) and does not pass end (size).
    int bits = begin == 0 ? 32 : std::countr_zero(begin);
    while ((std::uint64_t{1} << bits) > end - begin) --bits;
    out.push_back({static_cast<std::uint32_t>(begin), static_cast<std::uint8_t>(32 - bits)});
    begin += std::uint64_t{1} << bits;
  }
}

}  // namespace gatebench::cidr
