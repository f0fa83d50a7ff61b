// The CIDR fixtures: deterministic, the promised sizes and prefix-length mixes.
#include <gtest/gtest.h>

#include <array>
#include <set>

#include "fixtures/cidr_lists.hpp"
#include "micro/core/cidr/cidr.hpp"

namespace gatebench::fixtures {
namespace {

std::array<std::size_t, 33> length_histogram(const std::vector<cidr::CidrEntry>& entries) {
  std::array<std::size_t, 33> h{};
  for (const auto& e : entries) ++h[e.prefix.length];
  return h;
}

void expect_distinct_and_normalised(const std::vector<cidr::CidrEntry>& entries) {
  std::set<std::pair<std::uint32_t, unsigned>> seen;
  for (const auto& e : entries) {
    ASSERT_EQ(e.prefix.address & ~cidr::prefix_mask(e.prefix.length), 0u);
    ASSERT_TRUE(seen.insert({e.prefix.address, e.prefix.length}).second);
    ASSERT_NE(e.value, cidr::kNoMatch);
  }
}

TEST(CidrFixture, List1kIsDeterministicWithARealisticMix) {
  const auto a = cidr_list_1k();
  EXPECT_EQ(a, cidr_list_1k());
  EXPECT_NE(a, cidr_list_1k(kDefaultSeed + 1));
  ASSERT_EQ(a.size(), 1000u);
  expect_distinct_and_normalised(a);
  const auto h = length_histogram(a);
  EXPECT_GT(h[32], 300u);
  EXPECT_GT(h[24], 120u);
  EXPECT_GT(h[16] + h[17] + h[18] + h[19] + h[20] + h[21] + h[22] + h[23], 120u);
  EXPECT_GT(h[8] + h[9] + h[10] + h[11] + h[12] + h[13] + h[14] + h[15], 10u);
  EXPECT_EQ(h[0], 0u);
}

TEST(CidrFixture, Bgp500kHasABgpLikeMix) {
  const auto a = cidr_bgp_500k();
  ASSERT_EQ(a.size(), 500000u);
  expect_distinct_and_normalised(a);
  const auto h = length_histogram(a);
  EXPECT_GT(h[24], 250000u);  // most are /24
  std::size_t mid = 0, short_ones = 0, long_ones = 0;
  for (unsigned l = 16; l <= 23; ++l) mid += h[l];
  for (unsigned l = 0; l < 16; ++l) short_ones += h[l];
  for (unsigned l = 25; l <= 32; ++l) long_ones += h[l];
  EXPECT_GT(mid, 150000u);
  EXPECT_LT(short_ones, 10000u);
  EXPECT_LT(long_ones, 5000u);
  // Nested prefixes exist: the table has fewer ranges than 2 per prefix + 1 would give.
  const cidr::Ipv4Table t = cidr::Ipv4Table::build(a);
  EXPECT_LT(t.range_count(), 2 * a.size() + 1);
}

TEST(CidrFixture, ListTextParsesBackToTheSameEntries) {
  const auto a = cidr_list_1k();
  const cidr::CidrListParse p = cidr::parse_cidr_list(cidr_list_text(a));
  EXPECT_TRUE(p.ok());
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.entries, a);
  const auto bgp = cidr_bgp_500k();
  const cidr::CidrListParse v = cidr::parse_cidr_list(cidr_list_text(bgp, true));
  EXPECT_TRUE(v.ok());
  EXPECT_EQ(v.entries, bgp);
}

TEST(CidrFixture, RandomAddressesAreDeterministicPerPurpose) {
  EXPECT_EQ(random_ipv4_addresses(1000, "a"), random_ipv4_addresses(1000, "a"));
  EXPECT_NE(random_ipv4_addresses(1000, "a"), random_ipv4_addresses(1000, "b"));
}

}  // namespace
}  // namespace gatebench::fixtures
