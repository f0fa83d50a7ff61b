// Combined's hashed IPv4 parser (micro/core/access_log/combined_ipv4.hpp) against the plain one:
// every shape of digits and dots up to 15 bytes (so every mask the hash can see), octet values
// around 255, and other bytes in the field.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "fixtures/rng.hpp"
#include "micro/core/access_log/combined_ipv4.hpp"
#include "micro/core/access_log/scan.hpp"

namespace gatebench::access_log::detail {
namespace {

#if defined(__SSSE3__)
// The field followed by enough bytes for the parser's 16-byte read.
::testing::AssertionResult same_as_plain(const std::string& field) {
  const std::string buf = field + std::string(16, ' ');
  std::uint32_t plain = 0, hashed = 0;
  const bool want = parse_ipv4(buf.data(), buf.data() + field.size(), plain);
  const bool got = parse_ipv4_hashed(buf.data(), buf.data() + field.size(), hashed);
  if (got != want || (want && hashed != plain)) {
    return ::testing::AssertionFailure() << "'" << field << "': " << got << " " << hashed;
  }
  return ::testing::AssertionSuccess();
}

TEST(AccessLogCombinedIpv4, EveryShapeOfDigitsAndDots) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("access_log_combined_ipv4");
  int accepted = 0;
  for (unsigned len = 0; len <= 15; ++len) {
    for (unsigned dots = 0; dots < (1u << len); ++dots) {
      for (int round = 0; round < 3; ++round) {
        std::string field(len, '0');
        for (unsigned i = 0; i < len; ++i) {
          // Round 0: small digits (valid octets), then any digit (octets above 255 too).
          field[i] = (dots >> i & 1) ? '.' : static_cast<char>('0' + rng.below(round ? 10 : 3));
        }
        ASSERT_TRUE(same_as_plain(field));
        std::uint32_t ip;
        accepted += parse_ipv4(field.data(), field.data() + len, ip);
      }
    }
  }
  EXPECT_GE(accepted, 81);  // round 0 gives each of the 81 valid shapes a valid address
}

TEST(AccessLogCombinedIpv4, OctetValuesAndOtherBytes) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("access_log_combined_ipv4_values");
  for (int i = 0; i < 200'000; ++i) {
    std::string field;
    for (int o = 0; o < 4; ++o) {
      if (o) field += '.';
      field += std::to_string(rng.chance(1, 2) ? rng.between(240, 260) : rng.below(1000));
    }
    if (rng.chance(1, 4) && !field.empty()) {
      field[rng.below(field.size())] = static_cast<char>(rng.below(256));
    }
    if (field.size() > 15) field.resize(rng.below(16));
    ASSERT_TRUE(same_as_plain(field));
  }
}
#else
TEST(AccessLogCombinedIpv4, EveryShapeOfDigitsAndDots) {
  GTEST_SKIP() << "this build has no SSSE3 (the combined parser uses parse_ipv4_near)";
}
#endif

}  // namespace
}  // namespace gatebench::access_log::detail
