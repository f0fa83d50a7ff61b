// libFuzzer target for Ipv4Table::build and its lookups: the bytes are read as prefixes (address,
// length, value) biased towards one /16 so nesting, duplicates and many ranges per /16 (every
// packed leaf width, deep B-trees) are common; every lookup must agree with a linear scan.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "micro/core/cidr/cidr.hpp"

namespace {

using namespace gatebench::cidr;

CidrValue linear_lookup(const std::vector<CidrEntry>& entries, std::uint32_t a) {
  CidrValue best = kNoMatch;
  int best_length = -1;
  for (const CidrEntry& e : entries) {
    if (e.prefix.contains(a) && e.prefix.length >= best_length) {
      best = e.value;
      best_length = e.prefix.length;
    }
  }
  return best;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kRecord = 6;  // 4 address bytes, length byte, value byte
  std::vector<CidrEntry> entries;
  for (std::size_t i = 0; i + kRecord <= size && entries.size() < 700; i += kRecord) {
    std::uint32_t address;
    std::memcpy(&address, data + i, 4);
    const std::uint8_t flags = data[i + 4];
    // High bit: keep the address anywhere; otherwise pin it into 10.20.0.0/16.
    if ((flags & 0x80) == 0) address = 0x0A140000u | (address & 0xFFFFu);
    const unsigned length = (flags & 0x3F) % 33;
    // Bit 6: one of 256 more values, so a table can pass 256 distinct values (two-byte codes).
    const std::uint32_t value = (flags & 0x40) != 0 ? 100u + data[i + 5] : data[i + 5] % 5 + 1u;
    entries.push_back({{address & prefix_mask(length), static_cast<std::uint8_t>(length)},
                       static_cast<CidrValue>(value)});
  }
  const Ipv4Table table = Ipv4Table::build(entries);
  std::vector<std::uint32_t> probes;
  for (const CidrEntry& e : entries) {
    for (const std::uint32_t a :
         {e.prefix.first(), e.prefix.last(), e.prefix.first() - 1, e.prefix.last() + 1,
          e.prefix.first() + (e.prefix.last() - e.prefix.first()) / 2}) {
      probes.push_back(a);
    }
  }
  std::vector<CidrValue> batch(probes.size());
  table.lookup_batch(probes, batch);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const CidrValue expected = linear_lookup(entries, probes[i]);
    if (table.lookup(probes[i]) != expected || batch[i] != expected) std::abort();
  }
  return 0;
}
