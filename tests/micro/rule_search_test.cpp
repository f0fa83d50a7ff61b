// contains_literal (the SIMD first/last-byte substring search behind contains conditions and
// regex prefilter atoms) against std::string_view::find on generated haystacks and needles over
// a small alphabet, at every length around the 16-byte block edges.
#include <gtest/gtest.h>

#include <string>

#include "fixtures/rng.hpp"
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

}  // namespace
}  // namespace gatebench::core
