// Build and lookup of Ipv4Table. Layout (docs/cidr.md, "Algorithm and memory"):
//
// - Longest-prefix resolution turns the prefixes into disjoint ranges covering all 2^32
//   addresses, each with a 16-bit index into values_ (0 = kNoMatch); equal neighbours merge.
//   Value indices after 0 are numbered by how many ranges use them, so the common values get
//   indices below 256 and fit one-byte codes.
// - index_[a >> 16] says how the /16 ("chunk") of a is stored:
//     kind 0, direct: the whole /16 has one value; the entry is its value index.
//     kind 1, packed leaf: the chunk's keys and value codes in at most 64 bytes, packed together
//       with other chunks' leaves into shared lines (never across a line), so a lookup touches
//       one line. Keys are one byte (the third octet) when every range of the chunk starts on a
//       /24, two bytes otherwise; codes are one byte when every value index is below 256.
//     kind 2, tree: chunks too large for a line get a static B-tree of two-line leaves.
// - Keys are stored as (start - 1) of each range after the first, and the range holding x is
//   the number of keys below x. Comparing with < lets 0xFFFF pad a tree line without ever
//   counting (a range may start at 0xFFFF, but nothing is below 0).
// - Tree: a two-line leaf holds up to 32 ranges (a key line, slot 31 = 0xFFFF, and a value
//   line; both are requested at once). Beyond 32 ranges, inner lines hold (start - 1) of the
//   first range of children 1..31; levels sit at fixed line offsets {0, 1, 33} from the root
//   (inner levels padded to full width), so a child's line is level_base + 32 * node + child,
//   with no pointers stored. A /16 holds at most 65,536 ranges: depth 4 at most.
// - lines_ holds the packed lines first (at most one per chunk, so byte offsets fit 22 bits),
//   then the trees.
#include "micro/core/cidr/table.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#if defined(__AVX512BW__)
#include <immintrin.h>
#endif

namespace gatebench::cidr {
namespace {

// Index entry: bits 31..30 kind.
constexpr unsigned kKindShift = 30;
constexpr std::uint32_t kKindPacked = 1;
constexpr std::uint32_t kKindTree = 2;
constexpr std::uint32_t kFirstPacked = kKindPacked << kKindShift;
constexpr std::uint32_t kFirstTree = kKindTree << kKindShift;
// Packed: bit 29 two-byte keys, bit 28 two-byte codes, bits 27..22 key count, 21..0 byte offset.
constexpr unsigned kWordKeysBit = 29;
constexpr unsigned kWordCodesBit = 28;
constexpr unsigned kKeyCountShift = 22;
constexpr std::uint32_t kOffsetMask = (std::uint32_t{1} << kKeyCountShift) - 1;
// Tree: bits 29..27 depth (1..4), bits 26..0 line index of the root.
constexpr unsigned kDepthShift = 27;
constexpr std::uint32_t kTreeRefMask = (std::uint32_t{1} << kDepthShift) - 1;

constexpr std::size_t kLineBytes = sizeof(Ipv4Table::Line);
// Line offset of each tree level from the root, by level; leaves are two lines each.
constexpr std::uint32_t kLevelBase[4] = {0, 1, 1 + 32, 1 + 32 + 32 * 32};
constexpr std::uint16_t kPad = 0xFFFF;
constexpr std::size_t kChunks = 65536;
constexpr unsigned kLeafRanges = 32;
constexpr unsigned kFanout = 32;

// Number of the slots selected by lanes (bit i = slot i) that are below x.
inline unsigned count_below(const std::uint16_t* slots, std::uint16_t x,
                            std::uint32_t lanes) noexcept {
#if defined(__AVX512BW__)
  const __m512i keys = _mm512_load_si512(slots);
  return static_cast<unsigned>(std::popcount(
      _mm512_mask_cmplt_epu16_mask(lanes, keys, _mm512_set1_epi16(static_cast<short>(x)))));
#else
  unsigned n = 0;
  for (unsigned i = 0; i < 32; ++i) n += ((lanes >> i) & 1u) & (slots[i] < x);
  return n;
#endif
}

// The value index of x (the low 16 address bits) in the tree rooted at root.
inline std::uint16_t walk_tree(const Ipv4Table::Line* root, unsigned depth,
                               std::uint16_t x) noexcept {
  std::uint32_t node = 0;
  for (unsigned level = 0; level + 1 < depth; ++level) {
    node = node * kFanout + count_below(root[kLevelBase[level] + node].slot, x, 0xFFFFFFFFu);
  }
  const Ipv4Table::Line* leaf = root + kLevelBase[depth - 1] + 2 * node;
  __builtin_prefetch(leaf + 1);  // the value line, fetched during the compare
  return leaf[1].slot[count_below(leaf->slot, x, 0xFFFFFFFFu)];
}

// Number of the n keys at line + o below x, one or two bytes wide.
inline unsigned keys_below(const std::uint8_t* line, unsigned o, unsigned n,
                           std::uint8_t x) noexcept {
#if defined(__AVX512BW__)
  const std::uint64_t lanes = ((std::uint64_t{1} << n) - 1) << o;
  return static_cast<unsigned>(std::popcount(_mm512_mask_cmplt_epu8_mask(
      lanes, _mm512_load_si512(line), _mm512_set1_epi8(static_cast<char>(x)))));
#else
  unsigned below = 0;
  for (unsigned i = 0; i < n; ++i) below += line[o + i] < x;
  return below;
#endif
}

inline unsigned keys_below(const std::uint8_t* line, unsigned o, unsigned n,
                           std::uint16_t x) noexcept {
#if defined(__AVX512BW__)
  const auto lanes = static_cast<std::uint32_t>(((std::uint64_t{1} << n) - 1) << (o >> 1));
  return static_cast<unsigned>(std::popcount(_mm512_mask_cmplt_epu16_mask(
      lanes, _mm512_load_si512(line), _mm512_set1_epi16(static_cast<short>(x)))));
#else
  unsigned below = 0;
  for (unsigned i = 0; i < n; ++i) {
    std::uint16_t key;
    std::memcpy(&key, line + o + 2 * i, 2);
    below += key < x;
  }
  return below;
#endif
}

// The value index of address in a packed leaf. Branches on the key and code widths: they are
// the same for almost every /16 of a table whose prefixes are /24 or shorter (as in BGP), and
// the straight paths cost fewer instructions than computing every width and selecting.
inline std::uint16_t packed_code(const std::uint8_t* bytes, std::uint32_t entry,
                                 std::uint32_t address) noexcept {
  const std::uint32_t offset = entry & kOffsetMask;
  const std::uint8_t* line = bytes + (offset & ~std::uint32_t{kLineBytes - 1});
  const unsigned o = offset & (kLineBytes - 1);
  const unsigned keys = (entry >> kKeyCountShift) & 63u;
  unsigned codes = o;  // where the value codes start, after the keys
  unsigned below = 0;
  if ((entry & (1u << kWordKeysBit)) == 0) {
    codes += keys;
    below = keys_below(line, o, keys, static_cast<std::uint8_t>(address >> 8));
  } else {
    codes += 2 * keys;
    below = keys_below(line, o, keys, static_cast<std::uint16_t>(address));
  }
  if ((entry & (1u << kWordCodesBit)) == 0) return line[codes + below];
  std::uint16_t code;
  std::memcpy(&code, line + codes + 2 * below, 2);
  return code;
}

inline std::uint16_t code_of(const Ipv4Table::Line* lines, std::uint32_t entry,
                             std::uint32_t address) noexcept {
  if (entry < kFirstPacked) return static_cast<std::uint16_t>(entry);
  if (entry < kFirstTree) {
    return packed_code(reinterpret_cast<const std::uint8_t*>(lines), entry, address);
  }
  return walk_tree(lines + (entry & kTreeRefMask), (entry >> kDepthShift) & 7u,
                   static_cast<std::uint16_t>(address));
}

struct Range {
  std::uint32_t start;
  std::uint16_t value_index;
};

unsigned depth_for(std::size_t ranges) {
  if (ranges <= kLeafRanges) return 1;
  if (ranges <= std::size_t{kLeafRanges} * kFanout) return 2;
  if (ranges <= std::size_t{kLeafRanges} * kFanout * kFanout) return 3;
  return 4;
}

// Longest-prefix resolution by a sweep over the prefixes in (start, length) order: a stack holds
// the prefixes that contain the current position, innermost on top.
std::vector<Range> resolve(const std::vector<std::pair<Ipv4Prefix, std::uint16_t>>& prefixes) {
  std::vector<Range> ranges{{0, 0}};
  const auto emit = [&ranges](std::uint64_t position, std::uint16_t value_index) {
    Range& back = ranges.back();
    if (back.start == position) {
      back.value_index = value_index;
      if (ranges.size() > 1 && ranges[ranges.size() - 2].value_index == value_index) {
        ranges.pop_back();
      }
      return;
    }
    if (back.value_index != value_index) {
      ranges.push_back({static_cast<std::uint32_t>(position), value_index});
    }
  };
  struct Open {
    std::uint64_t last;
    std::uint16_t value_index;
  };
  std::vector<Open> stack;
  const auto close_one = [&] {
    const std::uint64_t after = stack.back().last + 1;
    stack.pop_back();
    if (after <= 0xFFFFFFFFull) emit(after, stack.empty() ? 0 : stack.back().value_index);
  };
  for (const auto& [prefix, value_index] : prefixes) {
    while (!stack.empty() && stack.back().last < prefix.first()) close_one();
    emit(prefix.first(), value_index);
    stack.push_back({prefix.last(), value_index});
  }
  while (!stack.empty()) close_one();
  return ranges;
}

// Renumbers value indices 1.. by descending use (ties by first appearance), so one-byte codes
// cover the most ranges; index 0 (kNoMatch) stays 0.
void renumber_by_use(std::vector<Range>& ranges, std::vector<CidrValue>& values) {
  std::vector<std::size_t> uses(values.size(), 0);
  for (const Range& r : ranges) ++uses[r.value_index];
  std::vector<std::uint16_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint16_t>(i);
  std::stable_sort(order.begin() + 1, order.end(),
                   [&uses](std::uint16_t a, std::uint16_t b) { return uses[a] > uses[b]; });
  std::vector<std::uint16_t> renumbered(values.size());
  std::vector<CidrValue> reordered(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    renumbered[order[i]] = static_cast<std::uint16_t>(i);
    reordered[i] = values[order[i]];
  }
  for (Range& r : ranges) r.value_index = renumbered[r.value_index];
  values = std::move(reordered);
}

// One chunk's packed leaf before placement.
struct PackedLeaf {
  std::uint32_t chunk;
  std::uint32_t flags;  // kind, widths and key count of the index entry
  std::uint8_t size;    // even, so two-byte keys always start at an even line offset
  std::array<std::uint8_t, kLineBytes> bytes;
};

// The packed leaf of a chunk's ranges (starts[0] == 0), or false if it needs more than a line.
bool encode_packed(const std::vector<std::uint16_t>& starts,
                   const std::vector<std::uint16_t>& values, PackedLeaf& leaf) {
  const std::size_t n = starts.size();
  const bool byte_keys = std::all_of(starts.begin() + 1, starts.end(),
                                     [](std::uint16_t s) { return (s & 0xFF) == 0; });
  const bool byte_codes =
      std::all_of(values.begin(), values.end(), [](std::uint16_t v) { return v < 256; });
  const std::size_t key_width = byte_keys ? 1 : 2;
  const std::size_t code_width = byte_codes ? 1 : 2;
  const std::size_t size = ((n - 1) * key_width + n * code_width + 1) & ~std::size_t{1};
  if (size > kLineBytes) return false;
  leaf.size = static_cast<std::uint8_t>(size);
  leaf.bytes.fill(0);
  std::uint8_t* out = leaf.bytes.data();
  for (std::size_t i = 1; i < n; ++i) {
    const auto key = static_cast<std::uint16_t>(starts[i] - 1);
    if (byte_keys) {
      *out++ = static_cast<std::uint8_t>(key >> 8);  // starts[i] is a multiple of 256
    } else {
      std::memcpy(out, &key, 2);
      out += 2;
    }
  }
  for (const std::uint16_t v : values) {
    if (byte_codes) {
      *out++ = static_cast<std::uint8_t>(v);
    } else {
      std::memcpy(out, &v, 2);
      out += 2;
    }
  }
  leaf.flags = (kKindPacked << kKindShift) | (std::uint32_t{!byte_keys} << kWordKeysBit) |
               (std::uint32_t{!byte_codes} << kWordCodesBit) |
               (static_cast<std::uint32_t>(n - 1) << kKeyCountShift);
  return true;
}

// Places the leaves into shared lines, largest first, each into the fullest line it still fits
// (best fit): about 90 % of the bytes are used on bgp_500k. Returns the lines; sets the index
// entries of the packed chunks.
std::vector<Ipv4Table::Line> pack(std::vector<PackedLeaf>& leaves,
                                  std::vector<std::uint32_t>& index) {
  std::stable_sort(leaves.begin(), leaves.end(),
                   [](const PackedLeaf& a, const PackedLeaf& b) { return a.size > b.size; });
  std::vector<Ipv4Table::Line> lines;
  std::vector<std::uint8_t> used;
  std::array<std::vector<std::uint32_t>, kLineBytes + 1> open_by_free;  // lines by free bytes
  for (const PackedLeaf& leaf : leaves) {
    std::size_t free = leaf.size;
    while (free <= kLineBytes && open_by_free[free].empty()) ++free;
    std::uint32_t line = 0;
    if (free <= kLineBytes) {
      line = open_by_free[free].back();
      open_by_free[free].pop_back();
    } else {
      line = static_cast<std::uint32_t>(lines.size());
      lines.emplace_back();
      std::fill(std::begin(lines.back().slot), std::end(lines.back().slot), 0);
      used.push_back(0);
    }
    const std::uint32_t offset = line * static_cast<std::uint32_t>(kLineBytes) + used[line];
    std::memcpy(reinterpret_cast<std::uint8_t*>(lines[line].slot) + used[line], leaf.bytes.data(),
                leaf.size);
    used[line] = static_cast<std::uint8_t>(used[line] + leaf.size);
    if (used[line] < kLineBytes) open_by_free[kLineBytes - used[line]].push_back(line);
    index[leaf.chunk] = leaf.flags | offset;
  }
  return lines;
}

// Appends the B-tree over a chunk's ranges to tree; returns its depth.
unsigned append_tree(const std::vector<std::uint16_t>& starts,
                     const std::vector<std::uint16_t>& values, std::vector<Ipv4Table::Line>& tree) {
  const std::size_t n = starts.size();
  const unsigned depth = depth_for(n);
  const std::size_t leaves = (n + kLeafRanges - 1) / kLeafRanges;
  const std::size_t root = tree.size();
  Ipv4Table::Line padding;
  std::fill(std::begin(padding.slot), std::end(padding.slot), kPad);
  tree.resize(root + kLevelBase[depth - 1] + 2 * leaves, padding);
  Ipv4Table::Line* base = tree.data() + root;
  for (std::size_t leaf = 0; leaf < leaves; ++leaf) {
    std::uint16_t* keys = base[kLevelBase[depth - 1] + 2 * leaf].slot;
    std::uint16_t* leaf_values = base[kLevelBase[depth - 1] + 2 * leaf + 1].slot;
    for (unsigned s = 0; s < kLeafRanges; ++s) {
      const std::size_t i = leaf * kLeafRanges + s;
      if (s + 1 < kLeafRanges && i + 1 < n) keys[s] = static_cast<std::uint16_t>(starts[i + 1] - 1);
      leaf_values[s] = i < n ? values[i] : 0;
    }
  }
  std::size_t child_span = kLeafRanges;  // ranges under one child of the current level
  for (unsigned level = depth - 1; level-- > 0;) {
    const std::size_t span = child_span * kFanout;
    const std::size_t nodes = (n + span - 1) / span;
    for (std::size_t node = 0; node < nodes; ++node) {
      std::uint16_t* slot = base[kLevelBase[level] + node].slot;
      for (unsigned s = 0; s + 1 < kFanout; ++s) {
        const std::size_t first = (node * kFanout + s + 1) * child_span;
        if (first < n) slot[s] = static_cast<std::uint16_t>(starts[first] - 1);
      }
    }
    child_span = span;
  }
  return depth;
}

}  // namespace

// One spare line at offset 0 gives the batch's prefetch of direct entries a valid target.
Ipv4Table::Ipv4Table() : index_(kChunks, 0), lines_(1), values_{kNoMatch} {}

Ipv4Table Ipv4Table::build(std::span<const CidrEntry> entries) {
  Ipv4Table table;
  // Value indices in order of first appearance; 0 is kNoMatch. Renumbered by use below.
  std::unordered_map<CidrValue, std::uint16_t> value_index;
  std::vector<std::pair<Ipv4Prefix, std::uint16_t>> prefixes;
  prefixes.reserve(entries.size());
  for (const CidrEntry& e : entries) {
    if (e.value == kNoMatch) {
      throw std::invalid_argument("Ipv4Table::build: value 0xFFFFFFFF is reserved for kNoMatch");
    }
    if (e.prefix.length > 32 || (e.prefix.address & ~prefix_mask(e.prefix.length)) != 0) {
      throw std::invalid_argument("Ipv4Table::build: prefix with length " +
                                  std::to_string(e.prefix.length) + " is not normalised");
    }
    auto [it, inserted] =
        value_index.try_emplace(e.value, static_cast<std::uint16_t>(table.values_.size()));
    if (inserted) {
      if (table.values_.size() > kMaxDistinctValues) {
        throw std::invalid_argument("Ipv4Table::build: more than " +
                                    std::to_string(kMaxDistinctValues) + " distinct values");
      }
      table.values_.push_back(e.value);
    }
    prefixes.emplace_back(e.prefix, it->second);
  }
  // Stable, so among equal prefixes the input order survives and the last one can win.
  std::stable_sort(prefixes.begin(), prefixes.end(), [](const auto& a, const auto& b) {
    return a.first.address != b.first.address ? a.first.address < b.first.address
                                              : a.first.length < b.first.length;
  });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < prefixes.size(); ++i) {
    if (i + 1 < prefixes.size() && prefixes[i + 1].first == prefixes[i].first) continue;
    prefixes[kept++] = prefixes[i];
  }
  prefixes.resize(kept);
  table.prefix_count_ = kept;

  std::vector<Range> ranges = resolve(prefixes);
  renumber_by_use(ranges, table.values_);
  table.range_count_ = ranges.size();

  std::vector<PackedLeaf> packed;
  std::vector<Line> tree;
  std::vector<std::uint16_t> starts;
  std::vector<std::uint16_t> values;
  std::size_t direct_chunks = 0;
  std::size_t r = 0;  // the range containing the current chunk's first address
  for (std::size_t chunk = 0; chunk < kChunks; ++chunk) {
    const std::uint64_t lo = std::uint64_t{chunk} << 16;
    const std::uint64_t hi = lo + 65536;
    while (r + 1 < ranges.size() && ranges[r + 1].start <= lo) ++r;
    if (r + 1 == ranges.size() || ranges[r + 1].start >= hi) {  // the whole /16 is one range
      table.index_[chunk] = ranges[r].value_index;
      ++direct_chunks;
      continue;
    }
    starts.assign(1, 0);
    values.assign(1, ranges[r].value_index);
    for (std::size_t j = r + 1; j < ranges.size() && ranges[j].start < hi; ++j) {
      starts.push_back(static_cast<std::uint16_t>(ranges[j].start & 0xFFFF));
      values.push_back(ranges[j].value_index);
    }
    PackedLeaf leaf;
    if (encode_packed(starts, values, leaf)) {
      leaf.chunk = static_cast<std::uint32_t>(chunk);
      packed.push_back(leaf);
      continue;
    }
    // The root's line index relative to the trees; the packed lines' count is added below.
    const auto root = static_cast<std::uint32_t>(std::min<std::size_t>(tree.size(), kTreeRefMask));
    const unsigned depth = append_tree(starts, values, tree);
    table.index_[chunk] = (kKindTree << kKindShift) | (depth << kDepthShift) | root;
  }

  std::vector<Line> packed_lines = pack(packed, table.index_);
  if (packed_lines.size() + tree.size() > kTreeRefMask) {
    throw std::length_error("Ipv4Table::build: table too large");
  }
  for (std::uint32_t& entry : table.index_) {
    if (entry >= kFirstTree) entry += static_cast<std::uint32_t>(packed_lines.size());
  }
  table.packed_lines_ = packed_lines.size();
  table.two_pass_batch_ = 2 * direct_chunks >= kChunks;
  table.lines_.clear();
  table.lines_.reserve(std::max<std::size_t>(1, packed_lines.size() + tree.size()));
  table.lines_.insert(table.lines_.end(), packed_lines.begin(), packed_lines.end());
  table.lines_.insert(table.lines_.end(), tree.begin(), tree.end());
  if (table.lines_.empty()) table.lines_.emplace_back();
  return table;
}

CidrValue Ipv4Table::lookup(std::uint32_t address) const noexcept {
  return values_[code_of(lines_.data(), index_[address >> 16], address)];
}

void Ipv4Table::lookup_batch(std::span<const std::uint32_t> addresses,
                             std::span<CidrValue> out) const noexcept {
  // Where most /16s are direct (IP lists, country tables), stage 1 answers the addresses whose
  // /16 holds one value on a predictable branch and queues the others after
  // prefetching their line (a tree's first two); stage 2 looks the queued ones up, reloading
  // their index entries from L1 (cheaper than storing them in stage 1, which runs for every
  // address). Loads of different addresses are independent, so a group's cache misses overlap.
  constexpr std::size_t kGroup = 32;
  const std::uint32_t* index = index_.data();
  const Line* lines = lines_.data();
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(lines);
  const CidrValue* values = values_.data();
  const std::size_t n = addresses.size();
  if (!two_pass_batch_) {
    // Most /16s hold leaves: the core already overlaps the independent lookups' misses, and a
    // first pass would only add work and a mispredicted direct/leaf branch per address.
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = values[code_of(lines, index[addresses[i] >> 16], addresses[i])];
    }
    return;
  }
  std::uint8_t queued[kGroup];
  for (std::size_t begin = 0; begin < n; begin += kGroup) {
    const std::size_t count = std::min(kGroup, n - begin);
    std::size_t pending = 0;
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint32_t entry = index[addresses[begin + k] >> 16];
      if (entry < kFirstPacked) {  // predictable on small lists, where most /16s are direct
        out[begin + k] = values[entry];
        continue;
      }
      // A mask rather than a select, which the compiler would turn into a branch.
      const std::size_t tree = entry >= kFirstTree;
      const std::size_t target =
          (std::size_t{entry & kOffsetMask} & (tree - 1)) |
          (std::size_t{entry & kTreeRefMask} * kLineBytes & (std::size_t{0} - tree));
      __builtin_prefetch(bytes + target);
      __builtin_prefetch(bytes + target + kLineBytes * tree);
      queued[pending++] = static_cast<std::uint8_t>(k);
    }
    for (std::size_t j = 0; j < pending; ++j) {
      const std::size_t k = queued[j];
      const std::uint32_t address = addresses[begin + k];
      out[begin + k] = values[code_of(lines, index[address >> 16], address)];
    }
  }
}

std::size_t Ipv4Table::memory_bytes() const noexcept {
  return index_.size() * sizeof(std::uint32_t) + lines_.size() * sizeof(Line) +
         values_.size() * sizeof(CidrValue);
}

Ipv4Table::Layout Ipv4Table::layout() const noexcept {
  Layout l;
  for (const std::uint32_t entry : index_) {
    if (entry < kFirstPacked) {
      ++l.direct_chunks;
    } else if (entry < kFirstTree) {
      ++l.packed_chunks;
      l.packed_word_keys += (entry >> kWordKeysBit) & 1u;
      l.packed_word_codes += (entry >> kWordCodesBit) & 1u;
    } else {
      ++l.tree_chunks;
      l.deep_tree_chunks += ((entry >> kDepthShift) & 7u) > 1;
    }
  }
  l.packed_lines = packed_lines_;
  l.tree_lines = l.tree_chunks == 0 ? 0 : lines_.size() - packed_lines_;
  return l;
}
Ipv4Table compile_cidr_list(std::string_view text, std::string_view source, CidrValue default_value,
                            std::vector<CidrDiagnostic>* warnings) {
  CidrListParse parsed = parse_cidr_list(text, default_value);
  if (!parsed.ok()) throw CidrListError(std::string(source), std::move(parsed.errors));
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), parsed.warnings.begin(), parsed.warnings.end());
  }
  return Ipv4Table::build(parsed.entries);
}

std::shared_ptr<const Ipv4Table> compile_shared_cidr_list(std::string_view text,
                                                          std::string_view source,
                                                          CidrValue default_value,
                                                          std::vector<CidrDiagnostic>* warnings) {
  return std::make_shared<const Ipv4Table>(
      compile_cidr_list(text, source, default_value, warnings));
}

}  // namespace gatebench::cidr
