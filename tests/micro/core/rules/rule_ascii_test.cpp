// ASCII case folding of request fields: lower8 (8 bytes folded at once) and equals_lower (8 at a
// time, the last 8 overlapping) against a byte-at-a-time fold, on random bytes of every value
// (non-ASCII bytes must not fold) and at every length around the 8-byte steps.
#include <gtest/gtest.h>

#include <string>

#include "fixtures/rng.hpp"
#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::rules {
namespace {

TEST(RuleAscii, Lower8FoldsExactlyTheAsciiCapitals) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/rule_ascii/lower8");
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

TEST(RuleAscii, EqualsLowerAgreesWithByteFold) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/rule_ascii/equals");
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
}  // namespace gatebench::rules
