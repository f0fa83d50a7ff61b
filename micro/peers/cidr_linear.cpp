#include "micro/peers/cidr_linear.hpp"

namespace gatebench::peers {

LinearCidrScan::LinearCidrScan(std::span<const cidr::CidrEntry> entries) {
  entries_.reserve(entries.size());
  for (const cidr::CidrEntry& e : entries) {
    entries_.push_back(
        {e.prefix.address, cidr::prefix_mask(e.prefix.length), e.prefix.length, e.value});
  }
}

cidr::CidrValue LinearCidrScan::lookup(std::uint32_t address) const noexcept {
  cidr::CidrValue best = cidr::kNoMatch;
  std::uint32_t best_length = 0;
  bool found = false;
  for (const Entry& e : entries_) {
    if ((address & e.mask) == e.address && (!found || e.length >= best_length)) {
      best = e.value;
      best_length = e.length;
      found = true;
    }
  }
  return best;
}

}  // namespace gatebench::peers
