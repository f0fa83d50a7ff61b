// What a simple script does: keep the prefixes in a list and test every one of them. The oracle
// of the table's differential tests (too slow to benchmark on large tables: docs/cidr.md).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "micro/core/cidr/prefix.hpp"

namespace gatebench::peers {

class LinearCidrScan {
 public:
  // Entries must be normalised (as the list parser gives them).
  explicit LinearCidrScan(std::span<const cidr::CidrEntry> entries);

  // Longest matching prefix; among equal prefixes the one given last wins (the table's rule).
  cidr::CidrValue lookup(std::uint32_t address) const noexcept;
  std::size_t memory_bytes() const noexcept { return entries_.size() * sizeof(Entry); }

 private:
  struct Entry {
    std::uint32_t address;
    std::uint32_t mask;
    std::uint32_t length;
    cidr::CidrValue value;
  };
  std::vector<Entry> entries_;
};

}  // namespace gatebench::peers
