// --count-header: the value table, the field lookup in an HTTP/1.1 head and the parser's slot per
// response (the option's validation is in cli_test).
#include "macro/load/header_count.hpp"

#include <gtest/gtest.h>

#include <string>

#include "macro/load/response_parser.hpp"

namespace gatebench::load {
namespace {

TEST(HeaderCounts, SlotsByValueThenOther) {
  HeaderCounts c;
  const int hit = c.slot("HIT");
  const int miss = c.slot("MISS");
  EXPECT_NE(hit, miss);
  EXPECT_EQ(c.slot("HIT"), hit);
  EXPECT_EQ(c.slot("hit"), 2);  // values are compared exactly
  for (int i = 3; i < HeaderCounts::kMaxValues; ++i) c.slot(std::to_string(i) + "v");
  EXPECT_EQ(c.values(), HeaderCounts::kMaxValues);
  EXPECT_EQ(c.slot("one too many"), HeaderCounts::kOther);
  EXPECT_EQ(c.slot("MISS"), miss);  // known values keep their slot when the table is full
  c.count(hit);
  c.count(hit);
  c.count(HeaderCounts::kOther);
  c.count(HeaderCounts::kAbsent);
  EXPECT_EQ(c.count_of(hit), 2u);
  EXPECT_EQ(c.total(), 4u);
}

TEST(HeaderCounts, MergeMatchesValuesNotSlots) {
  HeaderCounts a, b;
  a.count(a.slot("HIT"));
  a.count(a.slot("MISS"));
  b.count(b.slot("MISS"));
  b.count(b.slot("MISS"));
  b.count(b.slot("HIT"));
  b.count(HeaderCounts::kAbsent);
  b.slot("SEEN-IN-WARMUP");  // a value without a count adds nothing
  a.merge(b);
  EXPECT_EQ(a.values(), 2);
  EXPECT_EQ(a.count_of(a.slot("HIT")), 2u);
  EXPECT_EQ(a.count_of(a.slot("MISS")), 3u);
  EXPECT_EQ(a.count_of(HeaderCounts::kAbsent), 1u);
  EXPECT_EQ(a.total(), 6u);
}

TEST(HeaderCounts, MergeOverflowsIntoOther) {
  HeaderCounts a, b;
  for (int i = 0; i < HeaderCounts::kMaxValues; ++i) a.count(a.slot(std::to_string(i) + "a"));
  b.count(b.slot("b"));
  b.count(b.slot("3a"));
  a.merge(b);
  EXPECT_EQ(a.count_of(HeaderCounts::kOther), 1u);
  EXPECT_EQ(a.count_of(a.slot("3a")), 2u);
}

TEST(FindField, CaseInsensitiveNameTrimmedValue) {
  const std::string head =
      "HTTP/1.1 200 OK\r\nServer: x\r\nx-cache-statusx: no\r\nX-Cache-STATUS: \t HIT \r\n"
      "X-Cache-Status: second\r\n\r\n";
  EXPECT_EQ(find_field(head, "x-cache-status"), "HIT");  // the first of repeated fields
  EXPECT_EQ(find_field(head, "server"), "x");
  EXPECT_FALSE(find_field(head, "age"));
  EXPECT_FALSE(find_field("HTTP/1.1 204 No Content\r\n\r\n", "server"));
  // The status line is not a field, and nothing after the empty line is.
  EXPECT_FALSE(find_field("HTTP/1.1 200 OK\r\n\r\nServer: body\r\n", "server"));
  EXPECT_EQ(find_field("HTTP/1.1 200 OK\r\nAge:\r\n\r\n", "age"), "");
}

TEST(ResponseParserCount, SlotOfEachFinalHead) {
  HeaderCounts counts;
  ResponseParser p;
  p.count_field("x-cache-status", &counts);
  const std::string hit = "HTTP/1.1 200 OK\r\nX-Cache-Status: HIT\r\nContent-Length: 2\r\n\r\nok";
  p.reset();
  // A head cut in two reads is looked up once it is whole.
  EXPECT_EQ(p.feed(std::string_view(hit).substr(0, 20)).status, ParseStatus::kNeedMore);
  EXPECT_EQ(p.feed(hit).status, ParseStatus::kComplete);
  EXPECT_EQ(p.count_slot(), counts.slot("HIT"));
  p.reset();  // keeps the counted field
  EXPECT_EQ(p.feed("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").status, ParseStatus::kComplete);
  EXPECT_EQ(p.count_slot(), HeaderCounts::kAbsent);
  // An interim head's fields are not the response's.
  p.reset();
  EXPECT_EQ(p.feed("HTTP/1.1 100 Continue\r\nX-Cache-Status: EARLY\r\n\r\n"
                   "HTTP/1.1 200 OK\r\nX-Cache-Status: MISS\r\nContent-Length: 0\r\n\r\n")
                .status,
            ParseStatus::kComplete);
  EXPECT_EQ(p.count_slot(), counts.slot("MISS"));
  EXPECT_EQ(counts.values(), 2);
}

TEST(ResponseParserCount, NothingLookedUpWithoutAField) {
  ResponseParser p;
  p.reset();
  EXPECT_EQ(p.feed("HTTP/1.1 200 OK\r\nX-Cache-Status: HIT\r\nContent-Length: 0\r\n\r\n").status,
            ParseStatus::kComplete);
  EXPECT_EQ(p.count_slot(), HeaderCounts::kAbsent);
}

}  // namespace
}  // namespace gatebench::load
