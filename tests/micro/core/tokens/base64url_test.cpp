// base64url: RFC 4648 vectors, round trips, and every way a text can be non-canonical.
#include "micro/core/tokens/base64url.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "fixtures/rng.hpp"

namespace gatebench::tokens {
namespace {

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::optional<std::string> decode(std::string_view text) {
  std::array<std::uint8_t, 256> out;
  const auto size = base64url_decode(text, out);
  if (!size) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(out.data()), *size);
}

TEST(Base64url, Rfc4648VectorsWithoutPadding) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"", ""},           {"f", "Zg"},          {"fo", "Zm8"},         {"foo", "Zm9v"},
      {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, text] : cases) {
    EXPECT_EQ(base64url_encode(bytes_of(plain)), text);
    EXPECT_EQ(decode(text), std::string(plain)) << text;
  }
}

TEST(Base64url, UsesTheUrlAlphabet) {
  const std::uint8_t data[] = {0xfb, 0xff, 0xbf};
  EXPECT_EQ(base64url_encode(data), "-_-_");
  EXPECT_EQ(decode("-_-_"), std::string("\xfb\xff\xbf"));
  EXPECT_FALSE(decode("+/+/"));  // the standard alphabet's 62 and 63 are not accepted
}

TEST(Base64url, RejectsPadding) {
  EXPECT_FALSE(decode("Zg=="));
  EXPECT_FALSE(decode("Zm8="));
  EXPECT_FALSE(decode("Zg="));
}

TEST(Base64url, RejectsLengthOneModFour) {
  EXPECT_FALSE(decode("Z"));
  EXPECT_FALSE(decode("Zm9vY"));
  EXPECT_EQ(base64url_decoded_size(1), std::nullopt);
  EXPECT_EQ(base64url_decoded_size(0), 0u);
  EXPECT_EQ(base64url_decoded_size(2), 1u);
  EXPECT_EQ(base64url_decoded_size(3), 2u);
  EXPECT_EQ(base64url_decoded_size(4), 3u);
}

TEST(Base64url, RejectsEveryCharacterOutsideTheAlphabetAtEveryPosition) {
  const std::string valid = "Zm9vYmFyYg";
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    const bool in_alphabet = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                             (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
    if (in_alphabet) continue;
    for (std::size_t pos = 0; pos < valid.size(); ++pos) {
      std::string text = valid;
      text[pos] = ch;
      EXPECT_FALSE(decode(text)) << "char " << c << " at " << pos;
    }
  }
}

// A last character with non-zero unused bits decodes to the same bytes as the canonical one;
// accepting it would give one token several texts.
TEST(Base64url, RejectsNonZeroUnusedBits) {
  EXPECT_TRUE(decode("Zg"));
  EXPECT_FALSE(decode("Zh"));
  EXPECT_FALSE(decode("Zv"));
  EXPECT_TRUE(decode("Zm8"));
  EXPECT_FALSE(decode("Zm9"));
  EXPECT_FALSE(decode("Zm-"));
}

TEST(Base64url, RejectsOutputBufferTooSmall) {
  std::array<std::uint8_t, 2> out;
  EXPECT_FALSE(base64url_decode("Zm9v", out));
  EXPECT_TRUE(base64url_decode("Zm8", out));
}

TEST(Base64url, RoundTripsGeneratedBytesAndIsCanonical) {
  fixtures::Rng rng(fixtures::kDefaultSeed ^ 0x6236);
  std::array<std::uint8_t, 256> out;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> data(rng.below(200));
    for (auto& b : data) b = static_cast<std::uint8_t>(rng.next());
    const std::string text = base64url_encode(data);
    ASSERT_EQ(text.size(), base64url_encoded_size(data.size()));
    const auto size = base64url_decode(text, out);
    ASSERT_TRUE(size);
    ASSERT_EQ(*size, data.size());
    ASSERT_TRUE(std::equal(data.begin(), data.end(), out.begin()));
    // Changing any one character to another alphabet character changes the bytes or fails.
    if (!text.empty()) {
      std::string other = text;
      const std::size_t pos = rng.below(text.size());
      other[pos] = other[pos] == 'A' ? 'B' : 'A';
      const auto other_size = base64url_decode(other, out);
      if (other_size) {
        EXPECT_FALSE(std::equal(data.begin(), data.end(), out.begin())) << text;
      }
    }
  }
}

// The VBMI kernel against the scalar one on valid texts, texts with one bad character, texts
// with non-canonical tails, and output buffers one byte too small, of every length to 300.
TEST(Base64url, VbmiKernelMatchesScalar) {
  if (!base64url_has_vbmi()) GTEST_SKIP() << "CPU without AVX-512 VBMI";
  fixtures::Rng rng(fixtures::kDefaultSeed ^ 0x7662);
  std::array<std::uint8_t, 512> a, b;
  for (int i = 0; i < 60000; ++i) {
    std::vector<std::uint8_t> data(rng.below(226));
    for (auto& x : data) x = static_cast<std::uint8_t>(rng.next());
    std::string text = base64url_encode(data);
    switch (rng.below(5)) {
      case 0:
        if (!text.empty()) text[rng.below(text.size())] = static_cast<char>(rng.next());
        break;
      case 1:
        if (!text.empty()) text.back() = "AaBbQg-_"[rng.below(8)];
        break;
      case 2:
        text.resize(rng.below(text.size() + 1));
        break;
      default:
        break;
    }
    const std::size_t room = rng.chance(1, 10) && !data.empty() ? data.size() - 1 : a.size();
    a.fill(0xEE);
    b.fill(0xEE);
    const auto scalar = base64url_decode_scalar(text, std::span(a).first(room));
    const auto vbmi = base64url_decode_vbmi(text, std::span(b).first(room));
    ASSERT_EQ(scalar, vbmi) << text;
    ASSERT_EQ(base64url_decode(text, std::span(b).first(room)), scalar);
    if (scalar) {
      ASSERT_TRUE(std::equal(a.begin(), a.begin() + *scalar, b.begin())) << text;
      // Nothing is written past the decoded bytes.
      ASSERT_EQ(b[*scalar], 0xEE) << text;
    }
  }
}

}  // namespace
}  // namespace gatebench::tokens
