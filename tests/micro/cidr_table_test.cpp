// Ipv4Table semantics on hand-made edge cases: longest prefix wins, which duplicate wins, the
// ends of the address space, /16 chunks with many ranges (every B-tree depth), build errors.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "micro/core/cidr.hpp"

namespace gatebench::core {
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
}  // namespace gatebench::core
