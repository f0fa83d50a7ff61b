#include "micro/peers/nginx_trie.hpp"

namespace gatebench::peers {

NginxTrie::NginxTrie(std::span<const cidr::CidrEntry> entries) : root_(&nodes_.emplace_back()) {
  for (const cidr::CidrEntry& e : entries) insert(e.prefix, e.value);
}

void NginxTrie::insert(cidr::Ipv4Prefix prefix, cidr::CidrValue value) {
  Node* node = root_;
  std::uint32_t bit = 0x80000000u;
  for (unsigned depth = 0; depth < prefix.length; ++depth, bit >>= 1) {
    Node*& next = (prefix.address & bit) ? node->right : node->left;
    if (next == nullptr) {
      next = &nodes_.emplace_back();
      next->parent = node;
    }
    node = next;
  }
  node->value = value;
}

cidr::CidrValue NginxTrie::lookup(std::uint32_t address) const noexcept {
  cidr::CidrValue value = cidr::kNoMatch;
  std::uint32_t bit = 0x80000000u;
  for (const Node* node = root_; node != nullptr; bit >>= 1) {
    if (node->value != cidr::kNoMatch) value = node->value;
    // bit reaches 0 below a /32 leaf, whose children are always null.
    node = (address & bit) ? node->right : node->left;
  }
  return value;
}

}  // namespace gatebench::peers
