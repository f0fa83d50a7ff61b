#include "micro/peers/sorted_ranges.hpp"

#include <algorithm>

#include "micro/peers/nginx_trie.hpp"

namespace gatebench::peers {

SortedRanges::SortedRanges(std::span<const cidr::CidrEntry> entries) {
  // Every prefix start and every address just past a prefix is where the answer can change;
  // the answer between two such points is the trie's answer at the first. Built this way rather
  // than with gatecore's sweep so the two constructions check each other.
  std::vector<std::uint32_t> points{0};
  points.reserve(entries.size() * 2 + 1);
  for (const cidr::CidrEntry& e : entries) {
    points.push_back(e.prefix.first());
    if (e.prefix.last() != 0xFFFFFFFFu) points.push_back(e.prefix.last() + 1);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  const NginxTrie trie(entries);
  for (const std::uint32_t p : points) {
    const cidr::CidrValue v = trie.lookup(p);
    if (!values_.empty() && values_.back() == v) continue;
    starts_.push_back(p);
    values_.push_back(v);
  }
}

cidr::CidrValue SortedRanges::lookup(std::uint32_t address) const noexcept {
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), address);
  return values_[static_cast<std::size_t>(it - starts_.begin()) - 1];
}

}  // namespace gatebench::peers
