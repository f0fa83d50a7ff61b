// Every status of gatecore's HPACK decoder, each checked against the naive peer (status and
// the offset of the representation that failed), and what each leaves behind: stream errors
// keep the dynamic table in step, decoding errors stop the decoder.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "micro/core/http2/hpack.hpp"
#include "micro/peers/hpack_naive.hpp"
#include "tests/micro/core/http2/hpack_encode.hpp"

namespace gatebench::http2 {
namespace {

using namespace gatebench::testing;

struct Pair {
  explicit Pair(std::uint32_t table = 4096, std::uint32_t list = 4096, std::size_t fields = 16)
      : g({.max_table_size = table, .max_header_list_size = list}),
        n(table, list, fields),
        out(fields),
        scratch(g.scratch_bytes()) {}

  // Decodes with both; statuses and offsets must agree. Returns the fields as strings.
  std::vector<peers::HpackField> decode(const std::string& block, HpackStatus expect,
                                        std::uint32_t offset = 0) {
    const HpackResult r = g.decode(block, out, scratch);
    const peers::NaiveHpackResult nr = n.decode(block);
    EXPECT_EQ(r.status, expect) << describe(r.status) << " for " << hex(block);
    EXPECT_EQ(nr.status, expect) << describe(nr.status) << " for " << hex(block);
    if (expect != HpackStatus::kOk) {
      EXPECT_EQ(r.offset, offset);
      EXPECT_EQ(nr.offset, offset);
      EXPECT_EQ(r.count, 0u);
    }
    std::vector<peers::HpackField> f;
    for (std::uint32_t i = 0; i < r.count; ++i)
      f.push_back({std::string(out[i].name), std::string(out[i].value), out[i].never_indexed});
    EXPECT_EQ(f, nr.fields);
    EXPECT_EQ(g.dynamic_size(), n.table_size());
    return f;
  }

  void set_max_table_size(std::uint32_t s) {
    EXPECT_TRUE(g.set_max_table_size(s));
    EXPECT_TRUE(n.set_max_table_size(s));
  }

  HpackDecoder g;
  peers::NaiveHpackDecoder n;
  std::vector<HeaderField> out;
  std::vector<char> scratch;
};

const std::string kGet = hpack_indexed(2);  // :method: GET

TEST(HpackErrors, IndexZero) {
  Pair p;
  p.decode(kGet + hpack_indexed(0), HpackStatus::kIndexZero, 1);
}

TEST(HpackErrors, IndexPastTheTables) {
  {
    Pair p;
    p.decode(hpack_indexed(61), HpackStatus::kOk);  // www-authenticate, the last static entry
    p.decode(hpack_indexed(62), HpackStatus::kIndexOutOfRange);
  }
  {
    Pair p;
    p.decode(hpack_literal(0x40, 0, "a", "b", false, false) + hpack_indexed(62) + hpack_indexed(63),
             HpackStatus::kIndexOutOfRange, 6);
  }
  {
    Pair p;
    p.decode(kGet + hpack_literal(0x00, 62, "", "v", false, false), HpackStatus::kIndexOutOfRange,
             1);
  }
  {
    Pair p;
    p.decode(hpack_literal(0x10, 1000, "", "v", true, true), HpackStatus::kIndexOutOfRange);
  }
}

TEST(HpackErrors, IntegerOverflow) {
  Pair p;
  p.decode(hpack_int(7, 0x80, 0xffffffffull + 1), HpackStatus::kIntegerOverflow);
  Pair q;  // a sixth continuation byte, though the value is small
  q.decode(std::string("\xff\x80\x80\x80\x80\x80\x00", 7), HpackStatus::kIntegerOverflow);
  Pair r;  // the largest integer accepted: an index, past the tables
  r.decode(hpack_int(7, 0x80, 0xffffffffull), HpackStatus::kIndexOutOfRange);
  Pair s;  // a string length over 2^32
  std::string long_name = "\x40";
  long_name += hpack_int(7, 0, 0x1'0000'0000ull);
  s.decode(long_name, HpackStatus::kIntegerOverflow);
}

TEST(HpackErrors, Truncated) {
  const std::string whole = hpack_literal(0x40, 0, "custom-key", "custom-value", true, false);
  for (std::size_t cut = 1; cut < whole.size(); ++cut) {
    Pair p;
    p.decode(kGet + whole.substr(0, cut), HpackStatus::kTruncated, 1);
  }
  Pair p;
  p.decode("\xff", HpackStatus::kTruncated);  // index with its integer cut
  Pair q;
  q.decode(kGet + "\x3f", HpackStatus::kSizeUpdateNotAtStart, 1);
  Pair r;
  r.decode("\x3f", HpackStatus::kTruncated);  // size update cut
  Pair s;
  s.decode("\x04\x85\xff", HpackStatus::kTruncated);  // Huffman length past the end
}

TEST(HpackErrors, HuffmanPaddingAndEos) {
  {
    Pair p;
    p.decode(kGet + "\x04\x81\xff", HpackStatus::kHuffmanPadding, 1);  // 8 bits of padding
  }
  {
    Pair p;  // the name: 'a' then 35 ones, EOS inside
    p.decode("\x40\x85\x1f\xff\xff\xff\xff\x00", HpackStatus::kHuffmanEos);
  }
  {
    Pair p;  // zero padding
    p.decode(std::string("\x00\x81\x00", 3), HpackStatus::kHuffmanPadding);
  }
}

TEST(HpackErrors, SizeUpdates) {
  {
    Pair p(4096);
    p.decode(hpack_size_update(4097), HpackStatus::kSizeUpdateTooLarge);
  }
  {
    Pair p(4096);  // two at the start (RFC 7541 4.2), then fields
    p.decode(hpack_size_update(0) + hpack_size_update(4096) + kGet, HpackStatus::kOk);
    p.decode(kGet + hpack_size_update(100), HpackStatus::kSizeUpdateNotAtStart, 1);
  }
  {
    Pair p(4096);  // the limit lowered: the next block must start with an update
    p.decode(hpack_literal(0x40, 0, "k", std::string(100, 'v'), false, false), HpackStatus::kOk);
    p.set_max_table_size(100);
    p.decode(kGet, HpackStatus::kSizeUpdateMissing);
  }
  {
    Pair p(4096);
    p.decode(hpack_literal(0x40, 0, "k", std::string(100, 'v'), false, false), HpackStatus::kOk);
    p.set_max_table_size(100);
    p.decode("", HpackStatus::kSizeUpdateMissing);
  }
  {
    Pair p(4096);
    p.decode(hpack_literal(0x40, 0, "k", std::string(100, 'v'), false, false), HpackStatus::kOk);
    p.set_max_table_size(100);
    p.decode(hpack_size_update(101), HpackStatus::kSizeUpdateTooLarge);
  }
  {
    Pair p(4096);  // the update evicts the entry that no longer fits
    p.decode(hpack_literal(0x40, 0, "k", std::string(100, 'v'), false, false), HpackStatus::kOk);
    p.set_max_table_size(100);
    p.decode(hpack_size_update(100) + hpack_indexed(62), HpackStatus::kIndexOutOfRange, 2);
  }
  {
    Pair p(4096);  // raising the limit needs no update
    p.set_max_table_size(1000);
    p.decode(hpack_size_update(1000) + kGet, HpackStatus::kOk);
    p.set_max_table_size(4096);
    p.decode(kGet, HpackStatus::kOk);
    EXPECT_EQ(p.g.max_size(), 1000u);
    EXPECT_FALSE(p.g.set_max_table_size(4097));
  }
}

TEST(HpackErrors, HeaderListTooLargeKeepsTheTableInStep) {
  Pair p(4096, 200);
  // 3 fields of 32 + 1 + 50 bytes: 249 > 200. All of them are added to the table anyway.
  std::vector<std::string> reps;
  for (char c : {'a', 'b', 'c'})
    reps.push_back(hpack_literal(0x40, 0, std::string(1, c), std::string(50, c), true, true));
  const std::string two = reps[0] + reps[1];
  p.decode(two + reps[2], HpackStatus::kHeaderListTooLarge, static_cast<std::uint32_t>(two.size()));
  EXPECT_EQ(p.g.dynamic_count(), 3u);
  const auto f = p.decode(hpack_indexed(62) + hpack_indexed(64), HpackStatus::kOk);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].value, std::string(50, 'c'));
  EXPECT_EQ(f[1].value, std::string(50, 'a'));
  // Exactly at the limit is allowed.
  Pair q(4096, 2 * (32 + 1 + 50));
  q.decode(two, HpackStatus::kOk);
}

TEST(HpackErrors, HuffmanStringOverTheScratch) {
  // A Huffman value decoding past the scratch (4,096 bytes) is a list too large, and the block
  // still updates the table: the oversized entry empties it, the next one is added.
  Pair p(4096, 4096);
  p.decode(hpack_literal(0x40, 0, "old", "entry", false, false), HpackStatus::kOk);
  const std::string block = hpack_literal(0x40, 0, "big", std::string(5000, 'e'), false, true) +
                            hpack_literal(0x40, 0, "next", "one", true, true);
  p.decode(block, HpackStatus::kHeaderListTooLarge);
  ASSERT_EQ(p.g.dynamic_count(), 1u);
  EXPECT_EQ(p.g.dynamic_entry(0).name, "next");
}

TEST(HpackErrors, TooManyFieldsKeepsTheTableInStep) {
  Pair p(4096, 65536, 2);
  const std::string block = kGet + hpack_literal(0x40, 0, "x", "1", false, false) +
                            hpack_literal(0x40, 0, "y", "2", false, false);
  p.decode(block, HpackStatus::kTooManyFields, 1 + 5);
  const auto f = p.decode(hpack_indexed(62) + hpack_indexed(63), HpackStatus::kOk);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].name, "y");
  EXPECT_EQ(f[1].name, "x");
}

TEST(HpackErrors, DecodingErrorAfterAStreamErrorWins) {
  Pair p(4096, 40);
  p.decode(hpack_literal(0x40, 0, "a", std::string(20, 'a'), false, false) + hpack_indexed(0),
           HpackStatus::kIndexZero, 24);
}

TEST(HpackErrors, DecodingErrorsAreFinal) {
  Pair p;
  p.decode(hpack_indexed(0), HpackStatus::kIndexZero);
  p.decode(kGet, HpackStatus::kIndexZero);
  EXPECT_EQ(p.g.failure(), HpackStatus::kIndexZero);
  EXPECT_TRUE(is_decoding_error(HpackStatus::kIndexZero));
  EXPECT_FALSE(is_decoding_error(HpackStatus::kHeaderListTooLarge));
}

TEST(HpackErrors, ScratchTooSmallReadsNothing) {
  HpackDecoder d({.max_table_size = 4096, .max_header_list_size = 8192});
  EXPECT_EQ(d.scratch_bytes(), 8192u);
  std::vector<HeaderField> out(4);
  std::vector<char> scratch(8191);
  EXPECT_EQ(d.decode(kGet, out, scratch).status, HpackStatus::kScratchTooSmall);
  scratch.resize(8192);
  EXPECT_EQ(d.decode(kGet, out, scratch).status, HpackStatus::kOk);
}

TEST(HpackErrors, EveryStatusIsDescribed) {
  for (int s = 0; s <= static_cast<int>(HpackStatus::kScratchTooSmall); ++s)
    EXPECT_STRNE(describe(static_cast<HpackStatus>(s)), "unknown");
}

}  // namespace
}  // namespace gatebench::http2
