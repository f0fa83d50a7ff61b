// The compiled IPv4 prefix table: address -> value with longest-prefix-match semantics over
// nested and overlapping prefixes. Built once (configuration time), then immutable: lookups are
// const, noexcept, allocation-free and safe from any number of threads, so a gateway can hold a
// std::shared_ptr<const Ipv4Table> and swap it atomically on reload.
//
//   auto list = parse_cidr_list(text);                       // or compile_cidr_list() below
//   Ipv4Table table = Ipv4Table::build(list.entries);
//   if (table.lookup(addr) != kNoMatch) ...                  // single lookup
//   table.lookup_batch(addrs, results);                      // many independent lookups
//
// Layout (docs/cidr.md): a 65,536-entry index on the top 16 address bits; each /16 either holds
// one value directly, or a leaf of at most 64 bytes (one- or two-byte keys and value codes)
// packed with other /16s' leaves into shared cache lines, or (over about 20-32 ranges) a small
// static B-tree. A typical lookup touches the index (L2-resident) and one line. IPv6 will get its
// own Ipv6Table with the same shape (build/lookup/lookup_batch/memory_bytes) rather than a
// template over the address width.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "micro/core/cidr/list.hpp"
#include "micro/core/cidr/page_allocator.hpp"
#include "micro/core/cidr/prefix.hpp"

namespace gatebench::cidr {

class Ipv4Table {
 public:
  // At most this many distinct values in one table (values are stored as 16-bit indices).
  static constexpr std::size_t kMaxDistinctValues = 65535;

  // An empty table: every lookup returns kNoMatch.
  Ipv4Table();

  // Longest prefix wins; for the same prefix given more than once, the LAST entry wins.
  // Throws std::invalid_argument if a value is kNoMatch, a prefix is not normalised (host bits
  // set) or there are more than kMaxDistinctValues distinct values.
  static Ipv4Table build(std::span<const CidrEntry> entries);

  // The value of the longest prefix covering address, or kNoMatch.
  CidrValue lookup(std::uint32_t address) const noexcept;

  // out[i] = lookup(addresses[i]) for every i; out.size() must be >= addresses.size(). Where
  // most /16s hold one value, groups of addresses are looked up in two stages (direct /16s,
  // then the others' prefetched lines), so their memory loads overlap; otherwise one loop of
  // independent lookups overlaps them just as well with less work.
  void lookup_batch(std::span<const std::uint32_t> addresses,
                    std::span<CidrValue> out) const noexcept;

  // Bytes the table holds (index + nodes + value table), excluding sizeof(*this).
  std::size_t memory_bytes() const noexcept;
  // Distinct prefixes after removing duplicates.
  std::size_t prefix_count() const noexcept { return prefix_count_; }
  // Disjoint address ranges after longest-prefix resolution (adjacent equal values merged).
  std::size_t range_count() const noexcept { return range_count_; }

  // How the /16 chunks are stored (docs/cidr.md): for tests and the documented figures.
  struct Layout {
    std::size_t direct_chunks = 0;      // one value for the whole /16
    std::size_t packed_chunks = 0;      // a leaf inside a shared line
    std::size_t packed_word_keys = 0;   // ... of which with two-byte keys (not /24-aligned)
    std::size_t packed_word_codes = 0;  // ... of which with two-byte value codes
    std::size_t tree_chunks = 0;        // a B-tree
    std::size_t deep_tree_chunks = 0;   // ... of which with inner levels (two line latencies)
    std::size_t packed_lines = 0;
    std::size_t tree_lines = 0;
  };
  Layout layout() const noexcept;

  // 64-byte line: 32 uint16 slots. Public only for the implementation's helpers.
  struct alignas(64) Line {
    std::uint16_t slot[32];
  };

 private:
  std::vector<std::uint32_t> index_;  // 65,536 entries: kind | value index, leaf or tree root
  std::vector<Line, HugePageAllocator<Line>> lines_;
  std::vector<CidrValue> values_;  // values_[0] == kNoMatch
  std::size_t prefix_count_ = 0;
  std::size_t range_count_ = 1;
  std::size_t packed_lines_ = 0;  // lines_[0, packed_lines_) hold packed leaves, then trees
  bool two_pass_batch_ = true;    // lookup_batch: direct /16s first (most /16s are direct)
};

// Parses a list (list.hpp) and builds its table. Throws CidrListError naming `source` if
// the text has errors; warnings (host bits set, duplicates) are appended to *warnings when given.
Ipv4Table compile_cidr_list(std::string_view text, std::string_view source,
                            CidrValue default_value = 1,
                            std::vector<CidrDiagnostic>* warnings = nullptr);

// The same as a shared, immutable table: what a gateway swaps on reload.
std::shared_ptr<const Ipv4Table> compile_shared_cidr_list(
    std::string_view text, std::string_view source, CidrValue default_value = 1,
    std::vector<CidrDiagnostic>* warnings = nullptr);

}  // namespace gatebench::cidr
