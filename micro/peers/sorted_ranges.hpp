// The usual precomputed alternative to a trie: the prefixes resolved into disjoint, sorted
// address ranges, one std::upper_bound per lookup (about log2(ranges) dependent loads).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "micro/core/cidr/prefix.hpp"

namespace gatebench::peers {

class SortedRanges {
 public:
  explicit SortedRanges(std::span<const cidr::CidrEntry> entries);

  cidr::CidrValue lookup(std::uint32_t address) const noexcept;
  std::size_t memory_bytes() const noexcept {
    return starts_.size() * sizeof(std::uint32_t) + values_.size() * sizeof(cidr::CidrValue);
  }
  std::size_t range_count() const noexcept { return starts_.size(); }

 private:
  std::vector<std::uint32_t> starts_;  // starts_[0] == 0
  std::vector<cidr::CidrValue> values_;
};

}  // namespace gatebench::peers
