// LiteralSet (one pass over a field for all the literals rules search in it) against a search of
// each literal on its own, on generated texts and literal sets over a small alphabet (so
// fingerprints collide and buckets hold several literals), at every length around the 16-byte
// block and tail edges; its portable path against the SIMD one; and the edge cases.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures/rng.hpp"
#include "micro/core/rules/literal_set.hpp"
#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::rules {
namespace {

std::string lower_copy(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower_ascii(c);
  return out;
}

// The literals of `literals` found in `text`, one std::string_view::find each.
std::uint64_t expected(const std::vector<LiteralSet::Literal>& literals, std::string_view text) {
  const std::string folded = lower_copy(text);
  std::uint64_t found = 0;
  for (std::size_t i = 0; i < literals.size(); ++i) {
    const LiteralSet::Literal& l = literals[i];
    const bool hit = l.case_insensitive
                         ? std::string_view(folded).find(lower_copy(l.text)) != std::string::npos
                         : text.find(l.text) != std::string_view::npos;
    if (hit) found |= std::uint64_t{1} << i;
  }
  return found;
}

std::string random_text(fixtures::Rng& rng, std::size_t size) {
  // Letters in both cases, a byte with bit 7 set, NUL and '@'/'`' (the bytes just below 'A' and
  // 'a', which share their low nibble with letters).
  static constexpr std::string_view kAlphabet("abcABC@`\0\xC1/", 11);
  std::string s(size, ' ');
  for (char& c : s) c = kAlphabet[rng.below(kAlphabet.size())];
  return s;
}

TEST(RuleLiteralSet, AgreesWithOneSearchPerLiteral) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/rule_literal_set");
  std::size_t hits = 0, misses = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<LiteralSet::Literal> literals(rng.between(1, LiteralSet::kMaxLiterals));
    for (auto& l : literals) {
      l.text = random_text(rng, rng.below(6));
      l.case_insensitive = rng.chance(1, 2);
    }
    const LiteralSet set(literals);
    for (int t = 0; t < 20; ++t) {
      const std::string text = random_text(rng, rng.below(70));
      const std::uint64_t want = expected(literals, text);
      ASSERT_EQ(set.find_all(text), want) << "round " << round << " text '" << text << "'";
      ASSERT_EQ(set.find_all_portable(text), want) << "round " << round;
      hits += static_cast<std::size_t>(__builtin_popcountll(want));
      misses += literals.size() - static_cast<std::size_t>(__builtin_popcountll(want));
    }
  }
  // Both outcomes must be common, or agreement says little.
  EXPECT_GT(hits, 100000u);
  EXPECT_GT(misses, 100000u);
}

TEST(RuleLiteralSet, EveryPositionAndLength) {
  // One literal planted at every position of every text length up to 80: block starts, block
  // ends and the padded tail.
  const LiteralSet set({{"xyz", false}, {"Q", true}, {"longer-literal", true}});
  for (std::size_t size = 0; size <= 80; ++size) {
    for (std::size_t at = 0; at < size; ++at) {
      std::string text(size, '.');
      text[at] = 'q';
      EXPECT_EQ(set.find_all(text), 2u) << size << " " << at;
      if (at + 3 <= size) {
        text.replace(at, 3, "xyz");
        EXPECT_EQ(set.find_all(text), 1u) << size << " " << at;
        text[at + 2] = 'Z';  // case-sensitive: no longer there
        EXPECT_EQ(set.find_all(text), 0u) << size << " " << at;
      }
      if (at + 14 <= size) {
        text.replace(at, 14, "LONGER-Literal");
        EXPECT_EQ(set.find_all(text), 4u) << size << " " << at;
      }
    }
  }
}

TEST(RuleLiteralSet, Edges) {
  const LiteralSet empty_set;
  EXPECT_EQ(empty_set.find_all("anything"), 0u);
  const LiteralSet set({{"", false}, {"abc", false}, {"", true}});
  EXPECT_EQ(set.find_all(""), 0b101u);  // empty literals occur in every text, even the empty one
  EXPECT_EQ(set.find_all("xabcx"), 0b111u);
  EXPECT_EQ(set.find_all_portable(""), 0b101u);
  // Non-ASCII bytes are never case-folded.
  const LiteralSet high({{"\xC1", true}});
  EXPECT_EQ(high.find_all("\xE1"), 0u);
  EXPECT_EQ(high.find_all("\xC1"), 1u);
  // '@' and '`' share their low nibble with 'A' and 'a' but are not letters.
  const LiteralSet letter({{"a", true}});
  EXPECT_EQ(letter.find_all("@`"), 0u);
  EXPECT_EQ(letter.find_all("@A`"), 1u);
  std::vector<LiteralSet::Literal> too_many(LiteralSet::kMaxLiterals + 1, {"a", false});
  EXPECT_THROW(LiteralSet{too_many}, std::invalid_argument);
  too_many.pop_back();
  EXPECT_EQ(LiteralSet(too_many).find_all("a"), ~std::uint64_t{0});
}

}  // namespace
}  // namespace gatebench::rules
