// Build and lookup of Ipv4Table. Layout (docs/cidr.md):
//
// - Longest-prefix resolution turns the prefixes into disjoint ranges covering all 2^32
//   addresses, each with a 16-bit index into values_ (0 = kNoMatch); equal neighbours merge.
// - index_[a >> 16] holds a depth code and either a value index (depth 0: the whole /16 has one
//   value) or the line offset of the structure over the ranges inside that /16, searched on the
//   low 16 address bits.
// - Keys are stored as (start - 1) and a range is found by counting the keys below x: 0xFFFF
//   pads without ever counting (a range may start at 0xFFFF, but nothing is below 0).
// - Small leaf (code 5, up to 16 ranges): one line, keys of ranges 1..15 in slots 0..14, 0xFFFF
//   in slot 15, the 16 value indices in slots 16..31.
// - Two-line leaf (up to 32 ranges): a key line (ranges 1..31, slot 31 = 0xFFFF) and a value
//   line; both are requested at once, so it costs one memory latency.
// - Chunks with more than 32 ranges get a static B-tree of depth 2-4 over two-line leaves. An
//   inner line holds (start - 1) of the first range of children 1..31; levels sit at fixed line
//   offsets {0, 1, 33} from the root (inner levels padded to full width), so a child's line is
//   level_base + 32 * node + child, with no pointers stored. A /16 holds at most 65,536 ranges.
#include "micro/core/cidr_table.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#if defined(__AVX512BW__)
#include <immintrin.h>
#endif

namespace gatebench::core {
namespace {

constexpr unsigned kDepthShift = 29;
constexpr std::uint32_t kRefMask = (std::uint32_t{1} << kDepthShift) - 1;
// Line offset of each level from the root, by level; leaves are two lines each.
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

// Depth code of a chunk whose up to 16 ranges fit one line (keys in slots 0..15, value indices
// in 16..31): half the memory of a two-line leaf for the common small /16.
constexpr unsigned kSmallLeaf = 5;
constexpr unsigned kSmallLeafRanges = 16;

// The value index of x in the chunk rooted at root. Small and two-line leaves share one
// branch-free path (the lane mask and the value slots differ), so a batch mixing them does not
// mispredict; only chunks with more than 32 ranges loop over inner levels.
inline std::uint16_t walk(const Ipv4Table::Line* root, unsigned depth, std::uint16_t x) noexcept {
  const Ipv4Table::Line* leaf = root;
  if (depth >= 2 && depth < kSmallLeaf) {
    std::uint32_t node = 0;
    for (unsigned level = 0; level + 1 < depth; ++level) {
      node = node * kFanout + count_below(root[kLevelBase[level] + node].slot, x, 0xFFFFFFFFu);
    }
    leaf = root + kLevelBase[depth - 1] + 2 * node;
  }
  // Arithmetic rather than selects, so the compiler cannot turn them into branches.
  const unsigned small = depth == kSmallLeaf;
  const std::uint16_t* value_slots = leaf->slot + 32 - kSmallLeafRanges * small;
  __builtin_prefetch(value_slots);  // a two-line leaf's value line, fetched during the compare
  return value_slots[count_below(leaf->slot, x, 0xFFFFFFFFu >> (kSmallLeafRanges * small))];
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

}  // namespace

// Two spare lines at offset 0 give the batch's prefetch of direct entries a valid target.
Ipv4Table::Ipv4Table() : index_(kChunks, 0), lines_(2), values_{kNoMatch} {}

Ipv4Table Ipv4Table::build(std::span<const CidrEntry> entries) {
  Ipv4Table table;
  // Value indices in order of first appearance; 0 is kNoMatch.
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

  const std::vector<Range> ranges = resolve(prefixes);
  table.range_count_ = ranges.size();

  std::vector<std::uint16_t> starts;
  std::vector<std::uint16_t> values;
  std::size_t r = 0;  // the range containing the current chunk's first address
  for (std::size_t chunk = 0; chunk < kChunks; ++chunk) {
    const std::uint64_t lo = std::uint64_t{chunk} << 16;
    const std::uint64_t hi = lo + 65536;
    while (r + 1 < ranges.size() && ranges[r + 1].start <= lo) ++r;
    if (r + 1 == ranges.size() || ranges[r + 1].start >= hi) {  // the whole /16 is one range
      table.index_[chunk] = ranges[r].value_index;
      continue;
    }
    starts.assign(1, 0);
    values.assign(1, ranges[r].value_index);
    for (std::size_t j = r + 1; j < ranges.size() && ranges[j].start < hi; ++j) {
      starts.push_back(static_cast<std::uint16_t>(ranges[j].start & 0xFFFF));
      values.push_back(ranges[j].value_index);
    }
    const std::size_t n = starts.size();
    if (n <= kSmallLeafRanges) {
      const std::size_t root = table.lines_.size();
      if (root + 1 > kRefMask) throw std::length_error("Ipv4Table::build: table too large");
      Line leaf;
      std::fill(std::begin(leaf.slot), std::end(leaf.slot), kPad);
      for (std::size_t i = 0; i < n; ++i) {
        if (i + 1 < n) leaf.slot[i] = static_cast<std::uint16_t>(starts[i + 1] - 1);
        leaf.slot[kSmallLeafRanges + i] = values[i];
      }
      table.lines_.push_back(leaf);
      table.index_[chunk] = (kSmallLeaf << kDepthShift) | static_cast<std::uint32_t>(root);
      continue;
    }
    const unsigned depth = depth_for(n);
    const std::size_t leaves = (n + kLeafRanges - 1) / kLeafRanges;
    const std::size_t root = table.lines_.size();
    const std::size_t total = kLevelBase[depth - 1] + 2 * leaves;
    if (root + total > kRefMask) throw std::length_error("Ipv4Table::build: table too large");
    Line padding;
    std::fill(std::begin(padding.slot), std::end(padding.slot), kPad);
    table.lines_.resize(root + total, padding);
    Line* base = table.lines_.data() + root;
    for (std::size_t leaf = 0; leaf < leaves; ++leaf) {
      std::uint16_t* keys = base[kLevelBase[depth - 1] + 2 * leaf].slot;
      std::uint16_t* leaf_values = base[kLevelBase[depth - 1] + 2 * leaf + 1].slot;
      for (unsigned s = 0; s < kLeafRanges; ++s) {
        const std::size_t i = leaf * kLeafRanges + s;
        if (s + 1 < kLeafRanges && i + 1 < n)
          keys[s] = static_cast<std::uint16_t>(starts[i + 1] - 1);
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
    table.index_[chunk] = (depth << kDepthShift) | static_cast<std::uint32_t>(root);
  }
  table.lines_.shrink_to_fit();
  return table;
}

CidrValue Ipv4Table::lookup(std::uint32_t address) const noexcept {
  const std::uint32_t entry = index_[address >> 16];
  const unsigned depth = entry >> kDepthShift;
  const std::uint32_t ref = entry & kRefMask;
  if (depth == 0) return values_[ref];
  return values_[walk(lines_.data() + ref, depth, static_cast<std::uint16_t>(address))];
}

void Ipv4Table::lookup_batch(std::span<const std::uint32_t> addresses,
                             std::span<CidrValue> out) const noexcept {
  // Stage 1 answers the addresses whose /16 holds one value and queues the others after
  // prefetching their leaf lines; stage 2 walks the queued ones, reloading their index entries
  // from L1 (cheaper than storing them in stage 1, which runs for every address). Loads of
  // different addresses are independent, so a group's cache misses overlap.
  constexpr std::size_t kGroup = 32;
  const std::uint32_t* index = index_.data();
  const Line* lines = lines_.data();
  const CidrValue* values = values_.data();
  const std::size_t n = addresses.size();
  std::uint8_t queued[kGroup];
  for (std::size_t begin = 0; begin < n; begin += kGroup) {
    const std::size_t count = std::min(kGroup, n - begin);
    std::size_t pending = 0;
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint32_t entry = index[addresses[begin + k] >> 16];
      const bool direct = entry <= kRefMask;
      out[begin + k] = values[direct ? entry : 0];
      const Line* first = lines + (direct ? 0 : entry & kRefMask);
      __builtin_prefetch(first);
      __builtin_prefetch(first + 1);
      queued[pending] = static_cast<std::uint8_t>(k);
      pending += !direct;
    }
    for (std::size_t j = 0; j < pending; ++j) {
      const std::size_t k = queued[j];
      const std::uint32_t entry = index[addresses[begin + k] >> 16];
      out[begin + k] = values[walk(lines + (entry & kRefMask), entry >> kDepthShift,
                                   static_cast<std::uint16_t>(addresses[begin + k]))];
    }
  }
}

std::size_t Ipv4Table::memory_bytes() const noexcept {
  return index_.size() * sizeof(std::uint32_t) + lines_.size() * sizeof(Line) +
         values_.size() * sizeof(CidrValue);
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

}  // namespace gatebench::core
