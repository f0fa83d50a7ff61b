// contains_literal (the SIMD first/last-byte substring search) against std::string_view::find
// on generated haystacks and needles over a small alphabet, at every length around the 16-byte
// block edges; equals_lower and lower8 (8 bytes folded at once) against a byte-at-a-time fold.
#include <gtest/gtest.h>

#include <string>

#include "fixtures/rng.hpp"
#include "micro/core/request_ascii.hpp"
#include "micro/core/request_search.hpp"

namespace gatebench::core {
namespace {

TEST(RuleSearch, ContainsLiteralAgreesWithFind) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/rule_search");
  std::size_t found = 0;
  for (int i = 0; i < 300000; ++i) {
    std::string hay(rng.below(80), 'a');
    std::string needle(rng.below(7), 'a');
    for (char& c : hay) c = "abc\0"[rng.below(4)];
    for (char& c : needle) c = "abc\0"[rng.below(4)];
    const bool want = std::string_view(hay).find(needle) != std::string_view::npos;
    ASSERT_EQ(contains_literal(hay, needle), want)
        << "hay '" << hay << "' needle '" << needle << "'";
    found += want;
  }
  EXPECT_GT(found, 50000u);
  EXPECT_LT(found, 250000u);
}

TEST(RuleSearch, Edges) {
  EXPECT_TRUE(contains_literal("", ""));
  EXPECT_FALSE(contains_literal("", "a"));
  EXPECT_TRUE(contains_literal("abc", "abc"));
  EXPECT_FALSE(contains_literal("ab", "abc"));
  const std::string long_hay = std::string(100, 'x') + "needle";
  EXPECT_TRUE(contains_literal(long_hay, "needle"));
  EXPECT_FALSE(contains_literal(long_hay, "needlf"));
  EXPECT_TRUE(contains_literal(long_hay, "xneedle"));
}

TEST(RuleSearch, Lower8FoldsExactlyTheAsciiCapitals) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/rule_search/lower8");
  for (int i = 0; i < 200000; ++i) {
    char bytes[8];
    for (char& c : bytes) c = static_cast<char>(rng.below(256));
    char want[8];
    for (int k = 0; k < 8; ++k) want[k] = lower_ascii(bytes[k]);
    ASSERT_EQ(lower8(load8(bytes)), load8(want)) << i;
  }
  // Every byte value in every lane.
  for (int b = 0; b < 256; ++b) {
    for (int lane = 0; lane < 8; ++lane) {
      char bytes[8] = {'Z', '@', '[', '`', 'A', 'z', '\x80', '\xDA'};
      bytes[lane] = static_cast<char>(b);
      char want[8];
      for (int k = 0; k < 8; ++k) want[k] = lower_ascii(bytes[k]);
      ASSERT_EQ(lower8(load8(bytes)), load8(want)) << b << " " << lane;
    }
  }
}

TEST(RuleSearch, EqualsLowerAgreesWithByteFold) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/rule_search/equals");
  std::size_t equal = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string text(rng.below(40), 'a');
    for (char& c : text) c = "aAbB@`\xC1"[rng.below(7)];
    std::string lower;
    for (char c : text) lower += lower_ascii(c);
    if (rng.chance(1, 2) && !lower.empty()) {
      char& c = lower[rng.below(lower.size())];
      c = "ab@`\xC1\xE1"[rng.below(6)];
    }
    std::string folded;
    for (char c : text) folded += lower_ascii(c);
    const bool want = folded == lower;
    ASSERT_EQ(equals_lower(text, lower), want) << text << " " << lower;
    equal += want;
  }
  EXPECT_GT(equal, 50000u);
  EXPECT_LT(equal, 150000u);
  EXPECT_FALSE(equals_lower("abc", "ab"));
  EXPECT_TRUE(equals_lower("", ""));
}

}  // namespace
}  // namespace gatebench::core
