// The shape of nginx's ngx_radix32tree (geo and realip modules): a binary trie with one address
// bit per level, nodes with left/right/parent pointers and a value, allocated from pages. A
// lookup walks from the most significant bit and remembers the last value seen, so its cost
// grows with the prefix length (up to 32 dependent loads).
#pragma once

#include <cstdint>
#include <deque>
#include <span>

#include "micro/core/cidr/prefix.hpp"

namespace gatebench::peers {

class NginxTrie {
 public:
  explicit NginxTrie(std::span<const cidr::CidrEntry> entries);
  NginxTrie(const NginxTrie&) = delete;  // nodes point at each other
  NginxTrie& operator=(const NginxTrie&) = delete;

  // Longest matching prefix; a prefix inserted again overwrites its value (last wins).
  cidr::CidrValue lookup(std::uint32_t address) const noexcept;
  std::size_t memory_bytes() const noexcept { return nodes_.size() * sizeof(Node); }
  std::size_t node_count() const noexcept { return nodes_.size(); }

 private:
  struct Node {
    Node* right = nullptr;
    Node* left = nullptr;
    Node* parent = nullptr;
    cidr::CidrValue value = cidr::kNoMatch;
  };
  void insert(cidr::Ipv4Prefix prefix, cidr::CidrValue value);

  std::deque<Node> nodes_;  // stable addresses, allocated in blocks like nginx's pool pages
  Node* root_;
};

}  // namespace gatebench::peers
