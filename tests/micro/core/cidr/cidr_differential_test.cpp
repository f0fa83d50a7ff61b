// Ipv4Table against its naive peers on generated tables and addresses: the linear scan is the
// oracle; the bit trie and sorted ranges (themselves checked against the linear scan here) stand
// in for it where a linear scan over 500k prefixes is too slow; libgeoip checks the country table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/cidr_lists.hpp"
#include "fixtures/geoip_country.hpp"
#include "fixtures/rng.hpp"
#include "micro/core/cidr/cidr.hpp"
#include "micro/peers/cidr_linear.hpp"
#include "micro/peers/geoip_country_lookup.hpp"
#include "micro/peers/nginx_trie.hpp"
#include "micro/peers/sorted_ranges.hpp"

namespace gatebench {
namespace {

using cidr::CidrEntry;
using cidr::CidrValue;
using cidr::Ipv4Table;

constexpr std::size_t kRandomAddresses = 1'000'000;

// Addresses where answers change: each prefix's first and last address and their neighbours.
std::vector<std::uint32_t> boundary_addresses(const std::vector<CidrEntry>& entries) {
  std::vector<std::uint32_t> out;
  out.reserve(entries.size() * 4);
  for (const CidrEntry& e : entries) {
    out.push_back(e.prefix.first());
    out.push_back(e.prefix.last());
    out.push_back(e.prefix.first() - 1);
    out.push_back(e.prefix.last() + 1);
  }
  return out;
}

// Compares the table (single and batch) with the oracle on every address; stops at the first
// few mismatches with the address in dotted form.
template <typename Oracle>
void expect_same(const Ipv4Table& table, const Oracle& oracle,
                 const std::vector<std::uint32_t>& addresses, const char* what) {
  std::vector<CidrValue> batch(addresses.size());
  table.lookup_batch(addresses, batch);
  int failures = 0;
  for (std::size_t i = 0; i < addresses.size() && failures < 5; ++i) {
    const CidrValue expected = oracle.lookup(addresses[i]);
    const CidrValue single = table.lookup(addresses[i]);
    if (single != expected || batch[i] != expected) {
      ++failures;
      ADD_FAILURE() << what << ": " << cidr::format_ipv4(addresses[i]) << " expected " << expected
                    << " single " << single << " batch " << batch[i];
    }
  }
}

TEST(CidrDifferential, List1kAgainstLinearScan) {
  const std::vector<CidrEntry> entries = fixtures::cidr_list_1k();
  const Ipv4Table table = Ipv4Table::build(entries);
  const peers::LinearCidrScan linear(entries);
  expect_same(table, linear, fixtures::random_ipv4_addresses(kRandomAddresses, "test/cidr/list_1k"),
              "random");
  expect_same(table, linear, boundary_addresses(entries), "boundaries");
}

// Small random tables dense with nesting, duplicates (conflicting values) and short prefixes:
// the cases a realistic list rarely has.
std::vector<CidrEntry> random_table(fixtures::Rng& rng, std::size_t count) {
  std::vector<CidrEntry> entries;
  // One table in four draws from 600 values, so some /16s need two-byte value codes.
  const std::uint64_t max_value = rng.chance(1, 4) ? 600 : 4;
  // All prefixes inside one /8 (or anywhere) so they collide and nest often.
  const bool clustered = rng.chance(1, 2);
  const auto cluster = static_cast<std::uint32_t>(rng.next()) & 0xFF000000u;
  for (std::size_t i = 0; i < count; ++i) {
    if (!entries.empty() && rng.chance(1, 10)) {
      CidrEntry dup = entries[rng.below(entries.size())];
      dup.value = static_cast<CidrValue>(rng.between(1, max_value));
      entries.push_back(dup);
      continue;
    }
    const auto length =
        static_cast<unsigned>(rng.chance(1, 20) ? rng.below(8) : rng.between(8, 32));
    std::uint32_t address = static_cast<std::uint32_t>(rng.next());
    if (clustered) address = cluster | (address & 0x00FFFFFFu);
    address &= cidr::prefix_mask(length);
    entries.push_back({{address, static_cast<std::uint8_t>(length)},
                       static_cast<CidrValue>(rng.between(1, max_value))});
  }
  return entries;
}

TEST(CidrDifferential, RandomTablesAgainstAllPeers) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/cidr/random_tables");
  for (int round = 0; round < 200; ++round) {
    const std::vector<CidrEntry> entries = random_table(rng, 1 + rng.below(300));
    const Ipv4Table table = Ipv4Table::build(entries);
    const peers::LinearCidrScan linear(entries);
    const peers::NginxTrie trie(entries);
    const peers::SortedRanges ranges(entries);
    std::vector<std::uint32_t> addresses = boundary_addresses(entries);
    const std::uint32_t cluster = entries[0].prefix.address & 0xFF000000u;
    for (int i = 0; i < 2000; ++i) {
      const auto a = static_cast<std::uint32_t>(rng.next());
      addresses.push_back(rng.chance(1, 2) ? a : cluster | (a & 0x00FFFFFFu));
    }
    SCOPED_TRACE("round " + std::to_string(round));
    expect_same(table, linear, addresses, "table vs linear");
    for (const std::uint32_t a : addresses) {
      ASSERT_EQ(trie.lookup(a), linear.lookup(a)) << "trie " << cidr::format_ipv4(a);
      ASSERT_EQ(ranges.lookup(a), linear.lookup(a)) << "sorted ranges " << cidr::format_ipv4(a);
    }
  }
}

TEST(CidrDifferential, PeersAgainstLinearScanOnList1k) {
  const std::vector<CidrEntry> entries = fixtures::cidr_list_1k();
  const peers::LinearCidrScan linear(entries);
  const peers::NginxTrie trie(entries);
  const peers::SortedRanges ranges(entries);
  std::vector<std::uint32_t> addresses = boundary_addresses(entries);
  const auto random = fixtures::random_ipv4_addresses(100000, "test/cidr/peers");
  addresses.insert(addresses.end(), random.begin(), random.end());
  for (const std::uint32_t a : addresses) {
    ASSERT_EQ(trie.lookup(a), linear.lookup(a)) << cidr::format_ipv4(a);
    ASSERT_EQ(ranges.lookup(a), linear.lookup(a)) << cidr::format_ipv4(a);
  }
}

// A linear scan over 500k prefixes costs ~0.5 ms per address under ASan: it checks a sample,
// the trie (checked against the linear scan above) checks a million addresses.
TEST(CidrDifferential, Bgp500kAgainstTrieAndSampledLinearScan) {
  const std::vector<CidrEntry> entries = fixtures::cidr_bgp_500k();
  const Ipv4Table table = Ipv4Table::build(entries);
  EXPECT_EQ(table.prefix_count(), entries.size());
  {
    const peers::NginxTrie trie(entries);
    expect_same(table, trie, fixtures::random_ipv4_addresses(kRandomAddresses, "test/cidr/bgp"),
                "random vs trie");
    expect_same(table, trie, boundary_addresses(entries), "boundaries vs trie");
  }
  const peers::LinearCidrScan linear(entries);
  std::vector<std::uint32_t> sample = fixtures::random_ipv4_addresses(100, "test/cidr/bgp_linear");
  for (std::size_t i = 0; i < 100; ++i) sample.push_back(entries[i * 4999].prefix.last());
  expect_same(table, linear, sample, "sample vs linear");
}

TEST(CidrDifferential, GeoipCountryAgainstLibgeoip) {
  const fixtures::GeoipCountryTable geo = fixtures::load_geoip_country();
  const peers::GeoipCountryLookup libgeoip;
  if (!geo.available || !libgeoip.available()) {
    GTEST_SKIP() << "skipped: " << (geo.available ? libgeoip.reason() : geo.reason);
  }
  EXPECT_GT(geo.entries.size(), 100000u) << "the Debian database has about 350,000 prefixes";
  const Ipv4Table table = Ipv4Table::build(geo.entries);
  expect_same(table, libgeoip, fixtures::random_ipv4_addresses(kRandomAddresses, "test/cidr/geoip"),
              "random");
  expect_same(table, libgeoip, boundary_addresses(geo.entries), "boundaries");
  EXPECT_EQ(table.lookup(0x01000001u), cidr::pack_country("AU"));  // 1.0.0.1, APNIC's AU block
}

}  // namespace
}  // namespace gatebench
