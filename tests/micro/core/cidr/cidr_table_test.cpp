// Ipv4Table semantics on hand-made edge cases: longest prefix wins, which duplicate wins, the
// ends of the address space, /16 chunks with many ranges (every B-tree depth), build errors.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "micro/core/cidr/cidr.hpp"

namespace gatebench::cidr {
namespace {

std::uint32_t ip(std::string_view text) {
  const Ipv4ParseResult r = parse_ipv4(text);
  EXPECT_TRUE(r) << text;
  return r.address;
}

Ipv4Prefix pfx(std::string_view address, unsigned length) {
  return {ip(address), static_cast<std::uint8_t>(length)};
}

// Every lookup path must agree: single, batch, and the batch on odd-sized spans.
void expect_lookup(const Ipv4Table& t, std::string_view address, CidrValue expected) {
  const std::uint32_t a = ip(address);
  EXPECT_EQ(t.lookup(a), expected) << address;
  CidrValue out[3] = {0, 0, 0};
  const std::uint32_t in[3] = {a, a, a};
  t.lookup_batch(std::span(in, 3), std::span(out, 3));
  EXPECT_EQ(out[2], expected) << address << " (batch)";
}

TEST(Ipv4Table, EmptyTableMatchesNothing) {
  const Ipv4Table t;
  expect_lookup(t, "0.0.0.0", kNoMatch);
  expect_lookup(t, "255.255.255.255", kNoMatch);
  const Ipv4Table built = Ipv4Table::build({});
  expect_lookup(built, "10.0.0.1", kNoMatch);
  EXPECT_EQ(built.prefix_count(), 0u);
  EXPECT_EQ(built.range_count(), 1u);
  EXPECT_GT(built.memory_bytes(), 0u);
}

TEST(Ipv4Table, DefaultRouteCoversEverything) {
  const std::vector<CidrEntry> e = {{pfx("0.0.0.0", 0), 7}};
  const Ipv4Table t = Ipv4Table::build(e);
  expect_lookup(t, "0.0.0.0", 7);
  expect_lookup(t, "128.0.0.0", 7);
  expect_lookup(t, "255.255.255.255", 7);
  EXPECT_EQ(t.range_count(), 1u);
}

TEST(Ipv4Table, SingleAddressesAtTheEndsOfTheSpace) {
  const std::vector<CidrEntry> e = {
      {pfx("0.0.0.0", 32), 1}, {pfx("255.255.255.255", 32), 2}, {pfx("10.0.0.255", 32), 3}};
  const Ipv4Table t = Ipv4Table::build(e);
  expect_lookup(t, "0.0.0.0", 1);
  expect_lookup(t, "0.0.0.1", kNoMatch);
  expect_lookup(t, "255.255.255.254", kNoMatch);
  expect_lookup(t, "255.255.255.255", 2);
  expect_lookup(t, "10.0.0.254", kNoMatch);
  expect_lookup(t, "10.0.0.255", 3);
  expect_lookup(t, "10.0.1.0", kNoMatch);
}

TEST(Ipv4Table, NestedPrefixesLongestWins) {
  const std::vector<CidrEntry> e = {{pfx("10.1.2.0", 24), 3},   {pfx("10.0.0.0", 8), 1},
                                    {pfx("10.1.0.0", 16), 2},   {pfx("10.1.2.128", 25), 4},
                                    {pfx("10.1.2.200", 32), 5}, {pfx("0.0.0.0", 0), 9}};
  const Ipv4Table t = Ipv4Table::build(e);
  expect_lookup(t, "9.255.255.255", 9);
  expect_lookup(t, "10.0.0.0", 1);
  expect_lookup(t, "10.1.0.0", 2);
  expect_lookup(t, "10.1.1.255", 2);
  expect_lookup(t, "10.1.2.0", 3);
  expect_lookup(t, "10.1.2.127", 3);
  expect_lookup(t, "10.1.2.128", 4);
  expect_lookup(t, "10.1.2.199", 4);
  expect_lookup(t, "10.1.2.200", 5);
  expect_lookup(t, "10.1.2.201", 4);
  expect_lookup(t, "10.1.2.255", 4);
  expect_lookup(t, "10.1.3.0", 2);
  expect_lookup(t, "10.2.0.0", 1);
  expect_lookup(t, "10.255.255.255", 1);
  expect_lookup(t, "11.0.0.0", 9);
}

TEST(Ipv4Table, AdjacentPrefixesWithEqualValuesMerge) {
  const std::vector<CidrEntry> e = {
      {pfx("10.0.0.0", 25), 1}, {pfx("10.0.0.128", 25), 1}, {pfx("10.0.1.0", 24), 2}};
  const Ipv4Table t = Ipv4Table::build(e);
  expect_lookup(t, "9.255.255.255", kNoMatch);
  expect_lookup(t, "10.0.0.127", 1);
  expect_lookup(t, "10.0.0.128", 1);
  expect_lookup(t, "10.0.0.255", 1);
  expect_lookup(t, "10.0.1.0", 2);
  expect_lookup(t, "10.0.2.0", kNoMatch);
  EXPECT_EQ(t.range_count(), 4u);  // none, 1, 2, none
}

TEST(Ipv4Table, LastDuplicateWins) {
  const std::vector<CidrEntry> e = {{pfx("10.0.0.0", 8), 1},
                                    {pfx("10.0.0.0", 16), 5},
                                    {pfx("10.0.0.0", 8), 2},
                                    {pfx("10.0.0.0", 8), 3}};
  const Ipv4Table t = Ipv4Table::build(e);
  EXPECT_EQ(t.prefix_count(), 2u);
  expect_lookup(t, "10.1.0.0", 3);
  expect_lookup(t, "10.0.1.0", 5);
}

TEST(Ipv4Table, CountryValuesRoundTrip) {
  const std::vector<CidrEntry> e = {{pfx("1.0.0.0", 24), pack_country("AU")},
                                    {pfx("8.8.8.0", 24), pack_country("US")}};
  const Ipv4Table t = Ipv4Table::build(e);
  const CidrValue v = t.lookup(ip("8.8.8.8"));
  EXPECT_EQ(country_first(v), 'U');
  EXPECT_EQ(country_second(v), 'S');
  expect_lookup(t, "1.0.0.77", pack_country("AU"));
}

// A /16 split into n ranges of alternating values, n chosen at every depth boundary.
class ManyRangesInOneChunk : public ::testing::TestWithParam<unsigned> {};

TEST_P(ManyRangesInOneChunk, EveryRangeIsFound) {
  const unsigned ranges = GetParam();  // 2..65536
  // ranges disjoint /32-aligned blocks inside 172.16.0.0/16; block i has value i % 3 + 1 (so
  // neighbours never merge) unless it is a gap.
  std::vector<CidrEntry> e;
  const std::uint32_t base = ip("172.16.0.0");
  const std::uint32_t step = 65536 / ranges;
  for (unsigned i = 0; i < ranges; ++i) {
    const std::uint32_t first = base + i * step;
    std::vector<Ipv4Prefix> parts;
    append_range_prefixes(first, first + step - 1, parts);
    for (const Ipv4Prefix& p : parts) e.push_back({p, i % 3 + 1});
  }
  const Ipv4Table t = Ipv4Table::build(e);
  EXPECT_EQ(t.range_count(), ranges + 2);  // plus no-match before and after the /16
  std::vector<std::uint32_t> addresses;
  std::vector<CidrValue> expected;
  for (unsigned i = 0; i < ranges; ++i) {
    for (const std::uint32_t a : {base + i * step, base + (i + 1) * step - 1}) {
      addresses.push_back(a);
      expected.push_back(i % 3 + 1);
    }
  }
  addresses.push_back(base - 1);
  expected.push_back(kNoMatch);
  addresses.push_back(base + 65536);
  expected.push_back(kNoMatch);
  std::vector<CidrValue> out(addresses.size());
  t.lookup_batch(addresses, out);
  for (std::size_t k = 0; k < addresses.size(); ++k) {
    ASSERT_EQ(t.lookup(addresses[k]), expected[k]) << format_ipv4(addresses[k]);
    ASSERT_EQ(out[k], expected[k]) << format_ipv4(addresses[k]);
  }
}

// Around the depth boundaries 32 / 1,024 / 32,768 ranges (ranges divides 65,536).
INSTANTIATE_TEST_SUITE_P(Depths, ManyRangesInOneChunk,
                         ::testing::Values(2u, 16u, 32u, 64u, 512u, 1024u, 2048u, 16384u, 32768u,
                                           65536u));

// One /16 split into `ranges` equal blocks (ranges divides 65,536), block i valued
// values[i % values.size()]; the entries to add to a table.
std::vector<CidrEntry> split_chunk(std::uint32_t chunk_base, unsigned ranges,
                                   const std::vector<CidrValue>& values) {
  std::vector<CidrEntry> e;
  const std::uint32_t step = 65536 / ranges;
  for (unsigned i = 0; i < ranges; ++i) {
    std::vector<Ipv4Prefix> parts;
    append_range_prefixes(chunk_base + i * step, chunk_base + (i + 1) * step - 1, parts);
    for (const Ipv4Prefix& p : parts) e.push_back({p, values[i % values.size()]});
  }
  return e;
}

// Every block's first and last address, from block `first` on, gives its value.
void expect_blocks(const Ipv4Table& t, std::uint32_t chunk_base, unsigned ranges,
                   const std::vector<CidrValue>& values, unsigned first = 0) {
  const std::uint32_t step = 65536 / ranges;
  std::vector<std::uint32_t> addresses;
  for (unsigned i = first; i < ranges; ++i) {
    addresses.push_back(chunk_base + i * step);
    addresses.push_back(chunk_base + (i + 1) * step - 1);
  }
  std::vector<CidrValue> out(addresses.size());
  t.lookup_batch(addresses, out);
  for (std::size_t k = 0; k < addresses.size(); ++k) {
    const CidrValue expected = values[(first + k / 2) % values.size()];
    ASSERT_EQ(t.lookup(addresses[k]), expected) << format_ipv4(addresses[k]);
    ASSERT_EQ(out[k], expected) << format_ipv4(addresses[k]) << " (batch)";
  }
}

// 320 values used by four ranges each in 10.0.0.0/8, so values used less often than that get
// value indices of 256 and above (two-byte codes).
std::vector<CidrEntry> common_values() {
  std::vector<CidrEntry> e;
  for (std::uint32_t i = 0; i < 320 * 4; ++i)
    e.push_back({{0x0A000000u | (i << 12), 20}, i % 320 + 1});
  return e;
}

struct EncodingCase {
  unsigned ranges;
  bool byte_aligned;  // every block starts on a /24 (one-byte keys)
  bool rare_values;   // the chunk's values have value indices >= 256 (two-byte codes)
  bool packed;        // expected in a shared line (else a tree)
};

class ChunkEncoding : public ::testing::TestWithParam<EncodingCase> {};

// Each key width x code width at the largest range count that still fits a line, and one more.
TEST_P(ChunkEncoding, LeafKindAndEveryRange) {
  const EncodingCase c = GetParam();
  std::vector<CidrEntry> e = common_values();
  const std::uint32_t base = ip("172.16.0.0");
  std::vector<CidrValue> values;
  for (unsigned i = 0; i < c.ranges; ++i) values.push_back(c.rare_values ? 5000 + i : i % 3 + 1);
  // Blocks of 65,536 / ranges addresses; shifting the table by 16 addresses breaks /24 alignment
  // while keeping the range count (the first block becomes 16 addresses shorter).
  std::vector<CidrEntry> chunk = split_chunk(base, c.ranges, values);
  if (!c.byte_aligned) {
    for (CidrEntry& x : chunk) {
      if (x.prefix.first() == base) x.prefix = {base, 28};  // only the first 16 addresses
    }
    chunk.push_back({{base + 16, 28}, values[0]});
    chunk.push_back({{base + 32, 27}, values[1 % values.size()]});
  }
  e.insert(e.end(), chunk.begin(), chunk.end());
  const Ipv4Table t = Ipv4Table::build(e);
  // The 10.0.0.0/8 chunks are encoded the same with and without the test chunk (its values
  // either already lead or come last in the renumbering): compare with them alone.
  const Ipv4Table::Layout baseline = Ipv4Table::build(common_values()).layout();
  const Ipv4Table::Layout layout = t.layout();
  EXPECT_EQ(layout.packed_chunks - baseline.packed_chunks, c.packed ? 1u : 0u);
  EXPECT_EQ(layout.tree_chunks - baseline.tree_chunks, c.packed ? 0u : 1u);
  if (c.packed) {
    EXPECT_EQ(layout.packed_word_keys - baseline.packed_word_keys, c.byte_aligned ? 0u : 1u);
    EXPECT_EQ(layout.packed_word_codes - baseline.packed_word_codes, c.rare_values ? 1u : 0u);
  }
  if (c.byte_aligned) {
    expect_blocks(t, base, c.ranges, values);
  } else {
    expect_lookup(t, "172.16.0.15", values[0]);
    expect_lookup(t, "172.16.0.16", values[0]);
    expect_lookup(t, "172.16.0.31", values[0]);
    expect_lookup(t, "172.16.0.32", values[1 % values.size()]);
    expect_lookup(t, "172.16.0.63", values[1 % values.size()]);
    expect_lookup(t, "172.16.0.64", kNoMatch);
    expect_blocks(t, base, c.ranges, values, 1);
  }
  expect_lookup(t, "172.15.255.255", kNoMatch);
  expect_lookup(t, "172.17.0.0", kNoMatch);
  expect_lookup(t, "10.0.16.1", 2);
}

// Range counts on both sides of the one-line limit of each key and code width. Leaf bytes for n
// ranges: one-byte keys and codes 2n - 1; one-byte keys, two-byte codes 3n - 1; two-byte keys,
// one-byte codes 3n - 2; both two-byte 4n - 2 (rounded up to even; unaligned cases have n + 2).
INSTANTIATE_TEST_SUITE_P(
    Widths, ChunkEncoding,
    ::testing::Values(EncodingCase{32, true, false, true}, EncodingCase{64, true, false, false},
                      EncodingCase{16, true, true, true}, EncodingCase{32, true, true, false},
                      EncodingCase{16, false, false, true}, EncodingCase{32, false, false, false},
                      EncodingCase{8, false, true, true}, EncodingCase{16, false, true, false}));

TEST(Ipv4Table, ChunksShareLines) {
  // 2,000 /16s with two ranges each: four bytes per leaf, sixteen leaves per line.
  std::vector<CidrEntry> e;
  for (std::uint32_t c = 0; c < 2000; ++c) e.push_back({{(0x1000u + c) << 16, 17}, c % 7 + 1});
  const Ipv4Table t = Ipv4Table::build(e);
  const Ipv4Table::Layout layout = t.layout();
  EXPECT_EQ(layout.packed_chunks, 2000u);
  EXPECT_EQ(layout.packed_lines, 125u);
  for (std::uint32_t c = 0; c < 2000; ++c) {
    const std::uint32_t base = (0x1000u + c) << 16;
    ASSERT_EQ(t.lookup(base), c % 7 + 1);
    ASSERT_EQ(t.lookup(base + 0x7FFF), c % 7 + 1);
    ASSERT_EQ(t.lookup(base + 0x8000), kNoMatch);
    ASSERT_EQ(t.lookup(base + 0xFFFF), kNoMatch);
  }
}

TEST(Ipv4Table, BatchOverATableWithoutDirectChunks) {
  // Every /16 split in two: no direct chunk, so lookup_batch takes its one-loop path.
  std::vector<CidrEntry> e;
  for (std::uint32_t c = 0; c < 65536; ++c) e.push_back({{c << 16, 17}, c % 5 + 1});
  const Ipv4Table t = Ipv4Table::build(e);
  EXPECT_EQ(t.layout().direct_chunks, 0u);
  std::vector<std::uint32_t> addresses;
  for (std::uint32_t i = 0; i < 100000; ++i) addresses.push_back(i * 2654435761u);
  std::vector<CidrValue> out(addresses.size());
  t.lookup_batch(addresses, out);
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const std::uint32_t a = addresses[i];
    const CidrValue expected = (a & 0x8000) != 0 ? kNoMatch : (a >> 16) % 5 + 1;
    ASSERT_EQ(out[i], expected) << format_ipv4(a);
    ASSERT_EQ(t.lookup(a), expected) << format_ipv4(a);
  }
}

TEST(Ipv4Table, RangeStartingAtTheLastAddressOfAChunk) {
  // A range may start at low half 0xFFFF: the key stored is 0xFFFE, never the padding value.
  const std::vector<CidrEntry> e = {{pfx("10.0.255.255", 32), 4}, {pfx("10.0.0.0", 32), 6}};
  const Ipv4Table t = Ipv4Table::build(e);
  expect_lookup(t, "10.0.255.254", kNoMatch);
  expect_lookup(t, "10.0.255.255", 4);
  expect_lookup(t, "10.0.0.0", 6);
  expect_lookup(t, "10.0.0.1", kNoMatch);
  expect_lookup(t, "10.1.0.0", kNoMatch);
}

TEST(Ipv4Table, BuildRejectsBadEntries) {
  const std::vector<CidrEntry> sentinel = {{pfx("10.0.0.0", 8), kNoMatch}};
  EXPECT_THROW(Ipv4Table::build(sentinel), std::invalid_argument);
  const std::vector<CidrEntry> host_bits = {{{ip("10.0.0.1"), 8}, 1}};
  EXPECT_THROW(Ipv4Table::build(host_bits), std::invalid_argument);
  const std::vector<CidrEntry> too_long = {{{ip("10.0.0.1"), 33}, 1}};
  EXPECT_THROW(Ipv4Table::build(too_long), std::invalid_argument);
}

TEST(Ipv4Table, DistinctValueLimit) {
  std::vector<CidrEntry> e;
  for (std::uint32_t i = 0; i < Ipv4Table::kMaxDistinctValues; ++i) {
    e.push_back({{i << 8, 24}, i + 100});
  }
  const Ipv4Table t = Ipv4Table::build(e);
  EXPECT_EQ(t.lookup(ip("0.1.2.3")), 0x102u + 100);
  EXPECT_EQ(t.lookup((Ipv4Table::kMaxDistinctValues - 1) << 8), Ipv4Table::kMaxDistinctValues + 99);
  e.push_back({{0xF0000000u, 24}, 7});
  EXPECT_THROW(Ipv4Table::build(e), std::invalid_argument);
}

TEST(Ipv4Table, SharedTableIsUsableThroughConstPointer) {
  const std::vector<CidrEntry> e = {{pfx("192.0.2.0", 24), 1}};
  const std::shared_ptr<const Ipv4Table> t = std::make_shared<const Ipv4Table>(Ipv4Table::build(e));
  EXPECT_EQ(t->lookup(ip("192.0.2.1")), 1u);
  const std::shared_ptr<const Ipv4Table> copy = t;  // what a reload swap hands out
  EXPECT_EQ(copy->lookup(ip("192.0.3.1")), kNoMatch);
}

TEST(Ipv4Table, MemoryGrowsWithRanges) {
  const Ipv4Table empty;
  std::vector<CidrEntry> e;
  for (std::uint32_t i = 0; i < 4096; ++i) e.push_back({{0x0A000000u | (i << 4), 28}, 1 + i % 2});
  const Ipv4Table t = Ipv4Table::build(e);
  EXPECT_GT(t.memory_bytes(), empty.memory_bytes());
  EXPECT_LT(t.memory_bytes(), empty.memory_bytes() + 4096 * 16);
}

}  // namespace
}  // namespace gatebench::cidr
