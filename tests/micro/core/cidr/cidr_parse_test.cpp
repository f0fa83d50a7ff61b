// The text side of CIDR matching: dotted quads, the list format's every error and warning, and
// range splitting.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/rng.hpp"
#include "micro/core/cidr/cidr.hpp"

namespace gatebench::cidr {
namespace {

using ::testing::HasSubstr;

std::uint32_t ip(std::string_view text) {
  const Ipv4ParseResult r = parse_ipv4(text);
  EXPECT_TRUE(r) << text;
  return r.address;
}

TEST(Ipv4Parse, AcceptsDottedQuads) {
  EXPECT_EQ(ip("0.0.0.0"), 0u);
  EXPECT_EQ(ip("10.1.2.3"), 0x0A010203u);
  EXPECT_EQ(ip("255.255.255.255"), 0xFFFFFFFFu);
  EXPECT_EQ(ip("192.168.100.9"), 0xC0A86409u);
}

TEST(Ipv4Parse, ReportsEachError) {
  const struct {
    const char* text;
    Ipv4ParseError error;
    std::size_t offset;
  } cases[] = {
      {"", Ipv4ParseError::kEmpty, 0},
      {"1.2.3.x", Ipv4ParseError::kBadCharacter, 6},
      {"1.2.3.4 ", Ipv4ParseError::kBadCharacter, 7},
      {"+1.2.3.4", Ipv4ParseError::kBadCharacter, 0},
      {"1..3.4", Ipv4ParseError::kEmptyOctet, 2},
      {".1.2.3", Ipv4ParseError::kEmptyOctet, 0},
      {"1.2.3.", Ipv4ParseError::kEmptyOctet, 6},
      {"1.2.256.4", Ipv4ParseError::kOctetTooLarge, 4},
      {"1.2.3.1000", Ipv4ParseError::kOctetTooLarge, 6},
      {"1.2.3.99999999999999999999", Ipv4ParseError::kOctetTooLarge, 6},
      {"01.2.3.4", Ipv4ParseError::kLeadingZero, 0},
      {"1.2.3.00", Ipv4ParseError::kLeadingZero, 6},
      {"1.2.3", Ipv4ParseError::kTooFewOctets, 5},
      {"1", Ipv4ParseError::kTooFewOctets, 1},
      {"1.2.3.4.5", Ipv4ParseError::kTooManyOctets, 7},
  };
  for (const auto& c : cases) {
    const Ipv4ParseResult r = parse_ipv4(c.text);
    EXPECT_EQ(r.error, c.error) << c.text;
    EXPECT_EQ(r.error_offset, c.offset) << c.text;
    EXPECT_FALSE(r) << c.text;
    EXPECT_NE(describe(r.error), describe(Ipv4ParseError::kNone));
  }
}

TEST(Ipv4Parse, FormatRoundTripsRandomAddresses) {
  fixtures::Rng rng(fixtures::kDefaultSeed);
  for (int i = 0; i < 100000; ++i) {
    const auto a = static_cast<std::uint32_t>(rng.next());
    const std::string text = format_ipv4(a);
    ASSERT_LE(text.size(), kIpv4MaxText);
    ASSERT_EQ(ip(text), a) << text;
  }
  EXPECT_EQ(format_ipv4(0), "0.0.0.0");
  EXPECT_EQ(format_ipv4(0xFFFFFFFFu), "255.255.255.255");
  EXPECT_EQ(format_ipv4(0x0A00640Bu), "10.0.100.11");
}

TEST(CountryCode, PacksTwoCharacters) {
  EXPECT_EQ(pack_country('U', 'S'), ('U' << 8 | 'S'));
  EXPECT_EQ(pack_country("DE"), pack_country('D', 'E'));
  EXPECT_EQ(pack_country("DEU"), kNoMatch);
  EXPECT_EQ(country_first(pack_country("A1")), 'A');
  EXPECT_EQ(country_second(pack_country("A1")), '1');
}

CidrListParse parse_ok(std::string_view text, CidrValue value = 1) {
  CidrListParse p = parse_cidr_list(text, value);
  for (const auto& e : p.errors) ADD_FAILURE() << "line " << e.line << ": " << e.message;
  return p;
}

TEST(CidrList, ParsesPrefixesAddressesRangesCommentsAndValues) {
  const CidrListParse p = parse_ok(
      "# block list\n"
      "\n"
      "10.0.0.0/8\n"
      "  192.0.2.7   # a single client\r\n"
      "\t198.51.100.0/24 7\n"
      "1.0.0.0/24 AU\n"
      "203.0.113.4-203.0.113.9 O1\n"
      "0.0.0.0/0 4294967294\n");
  EXPECT_TRUE(p.warnings.empty());
  const std::vector<CidrEntry> expected = {
      {{0x0A000000u, 8}, 1},
      {{0xC0000207u, 32}, 1},
      {{0xC6336400u, 24}, 7},
      {{0x01000000u, 24}, pack_country("AU")},
      {{0xCB007104u, 30}, pack_country("O1")},
      {{0xCB007108u, 31}, pack_country("O1")},
      {{0, 0}, 4294967294u},
  };
  EXPECT_EQ(p.entries, expected);
}

TEST(CidrList, EmptyTextAndCommentsOnly) {
  EXPECT_TRUE(parse_ok("").entries.empty());
  EXPECT_TRUE(parse_ok("\n\n# nothing\n   \n").entries.empty());
  EXPECT_EQ(parse_ok("1.2.3.4").entries.size(), 1u);  // no final newline
}

TEST(CidrList, UsesTheDefaultValue) {
  const CidrListParse p = parse_ok("1.2.3.4\n5.6.7.0/24 9\n", 42);
  ASSERT_EQ(p.entries.size(), 2u);
  EXPECT_EQ(p.entries[0].value, 42u);
  EXPECT_EQ(p.entries[1].value, 9u);
  EXPECT_THROW(parse_cidr_list("1.2.3.4", kNoMatch), std::invalid_argument);
}

struct ErrorCase {
  const char* line;
  const char* message;
};

TEST(CidrList, ReportsEveryErrorWithItsLine) {
  const ErrorCase cases[] = {
      {"10.0.300.0/24", "octet over 255 in '10.0.300.0/24'"},
      {"10.0.0/24", "fewer than 4 octets"},
      {"10.0.0.0.0/24", "more than 4 octets"},
      {"10.0..0/24", "empty octet"},
      {"10.0.0.x", "unexpected character"},
      {"010.0.0.0/8", "leading zero"},
      {"/8", "empty address"},
      {"10.0.0.0/33", "prefix length 33 over 32"},
      {"10.0.0.0/999999999999", "over 32"},
      {"10.0.0.0/", "missing prefix length"},
      {"10.0.0.0/8x", "bad prefix length"},
      {"10.0.0.0/-1", "bad prefix length"},
      {"10.0.0.9-10.0.0.1", "range start after range end"},
      {"10.0.0.1-", "spaces are not allowed around '-'"},
      {"10.0.0.1 - 10.0.0.9", "spaces are not allowed around '-'"},
      {"10.0.0.1-10.0.0", "fewer than 4 octets"},
      {"10.0.0.1-10.0.256.1", "octet over 255"},
      {"10.0.0.0/8 us", "bad value 'us'"},
      {"10.0.0.0/8 12x", "bad value '12x'"},
      {"10.0.0.0/8 4294967296", "bad value"},
      {"10.0.0.0/8 99999999999999999999999", "bad value"},
      {"10.0.0.0/8 4294967295", "reserved for 'no match'"},
      {"10.0.0.0/8 US extra", "unexpected text 'extra'"},
  };
  for (const ErrorCase& c : cases) {
    const std::string text = "# header\n1.2.3.4\n" + std::string(c.line) + "\n5.6.7.8\n";
    const CidrListParse p = parse_cidr_list(text);
    ASSERT_EQ(p.errors.size(), 1u) << c.line;
    EXPECT_EQ(p.errors[0].line, 3u) << c.line;
    EXPECT_THAT(p.errors[0].message, HasSubstr(c.message)) << c.line;
    EXPECT_FALSE(p.ok());
    EXPECT_EQ(p.entries.size(), 2u) << "the good lines around it still parse: " << c.line;
  }
}

TEST(CidrList, CollectsAllErrors) {
  const CidrListParse p = parse_cidr_list("1.2.3.999\n1.2.3.4/40\nok\n8.8.8.8\n");
  ASSERT_EQ(p.errors.size(), 3u);
  EXPECT_EQ(p.errors[0].line, 1u);
  EXPECT_EQ(p.errors[1].line, 2u);
  EXPECT_EQ(p.errors[2].line, 3u);
}

TEST(CidrList, WarnsAboutHostBitsAndNormalises) {
  const CidrListParse p = parse_ok("\n10.1.2.3/8\n");
  ASSERT_EQ(p.entries.size(), 1u);
  EXPECT_EQ(p.entries[0].prefix, (Ipv4Prefix{0x0A000000u, 8}));
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(p.warnings[0].line, 2u);
  EXPECT_THAT(p.warnings[0].message, HasSubstr("host bits set in '10.1.2.3/8', using 10.0.0.0/8"));
  EXPECT_EQ(parse_ok("0.0.0.1/0").entries[0].prefix, (Ipv4Prefix{0, 0}));
}

TEST(CidrList, WarnsAboutDuplicatesAndConflicts) {
  const CidrListParse p = parse_ok("10.0.0.0/8\n10.0.0.0/8\n10.0.0.0/8 5\n10.0.0.1/8\n");
  EXPECT_EQ(p.entries.size(), 4u);
  ASSERT_EQ(p.warnings.size(), 4u);
  EXPECT_EQ(p.warnings[0].line, 2u);
  EXPECT_THAT(p.warnings[0].message, HasSubstr("10.0.0.0/8 duplicates line 1"));
  EXPECT_EQ(p.warnings[1].line, 3u);
  EXPECT_THAT(p.warnings[1].message, HasSubstr("also at line 2 with another value"));
  EXPECT_EQ(p.warnings[2].line, 4u);
  EXPECT_THAT(p.warnings[2].message, HasSubstr("host bits set"));
  EXPECT_THAT(p.warnings[3].message, HasSubstr("also at line 3 with another value"));
  // A range overlapping an explicit prefix is a duplicate too.
  const CidrListParse r = parse_ok("1.2.3.4/31\n1.2.3.4-1.2.3.5\n");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0].message, HasSubstr("1.2.3.4/31 duplicates line 1"));
}

TEST(CidrListError, NamesSourceAndLines) {
  try {
    compile_cidr_list("1.2.3.4\n1.2.3.256\n", "blocklist.txt");
    FAIL() << "no exception";
  } catch (const CidrListError& e) {
    EXPECT_EQ(e.source(), "blocklist.txt");
    ASSERT_EQ(e.errors().size(), 1u);
    EXPECT_STREQ(e.what(), "blocklist.txt:2: octet over 255 in '1.2.3.256'");
  }
  std::string many;
  for (int i = 0; i < 8; ++i) many += "bad\n";
  try {
    compile_cidr_list(many, "x.txt");
    FAIL() << "no exception";
  } catch (const CidrListError& e) {
    EXPECT_EQ(e.errors().size(), 8u);
    EXPECT_THAT(e.what(), HasSubstr("x.txt:5: "));
    EXPECT_THAT(e.what(), HasSubstr("x.txt: 3 more errors"));
  }
}

TEST(CidrList, CompileReturnsWarnings) {
  std::vector<CidrDiagnostic> warnings;
  const Ipv4Table t = compile_cidr_list("10.9.9.9/8\n", "list", 3, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(format_diagnostic("list", warnings[0]),
            "list:1: host bits set in '10.9.9.9/8', using 10.0.0.0/8");
  EXPECT_EQ(t.lookup(ip("10.200.0.1")), 3u);
  const auto shared = compile_shared_cidr_list("10.0.0.0/8\n", "list");
  EXPECT_EQ(shared->lookup(ip("10.0.0.1")), 1u);
}

std::vector<Ipv4Prefix> split(std::uint32_t first, std::uint32_t last) {
  std::vector<Ipv4Prefix> out;
  append_range_prefixes(first, last, out);
  return out;
}

TEST(RangeSplit, KnownRanges) {
  EXPECT_EQ(split(0, 0xFFFFFFFFu), (std::vector<Ipv4Prefix>{{0, 0}}));
  EXPECT_EQ(split(5, 5), (std::vector<Ipv4Prefix>{{5, 32}}));
  EXPECT_EQ(split(0xFFFFFFFFu, 0xFFFFFFFFu), (std::vector<Ipv4Prefix>{{0xFFFFFFFFu, 32}}));
  EXPECT_EQ(split(ip("10.0.0.0"), ip("10.0.1.255")), (std::vector<Ipv4Prefix>{{0x0A000000u, 23}}));
  EXPECT_EQ(split(ip("10.0.0.1"), ip("10.0.0.6")),
            (std::vector<Ipv4Prefix>{
                {0x0A000001u, 32}, {0x0A000002u, 31}, {0x0A000004u, 31}, {0x0A000006u, 32}}));
  EXPECT_EQ(split(1, 0xFFFFFFFEu).size(), 62u);  // the worst case
}

TEST(RangeSplit, RandomRangesAreCoveredExactlyByMaximalBlocks) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/cidr/range_split");
  for (int i = 0; i < 20000; ++i) {
    auto a = static_cast<std::uint32_t>(rng.next());
    auto b = rng.chance(1, 2) ? a + static_cast<std::uint32_t>(rng.below(5000))
                              : static_cast<std::uint32_t>(rng.next());
    if (a > b) std::swap(a, b);
    const std::vector<Ipv4Prefix> prefixes = split(a, b);
    ASSERT_FALSE(prefixes.empty());
    std::uint64_t next = a;
    for (std::size_t k = 0; k < prefixes.size(); ++k) {
      const Ipv4Prefix& p = prefixes[k];
      ASSERT_EQ(p.address & ~prefix_mask(p.length), 0u) << "normalised";
      ASSERT_EQ(p.first(), next) << "contiguous";
      next = std::uint64_t{p.last()} + 1;
      // Maximal: doubling the block would misalign it or leave the range.
      if (p.length > 0) {
        const Ipv4Prefix parent{p.address & prefix_mask(p.length - 1u),
                                static_cast<std::uint8_t>(p.length - 1)};
        ASSERT_TRUE(parent.first() < a || parent.last() > b) << "block could be larger";
      }
    }
    ASSERT_EQ(next, std::uint64_t{b} + 1);
  }
}

}  // namespace
}  // namespace gatebench::cidr
