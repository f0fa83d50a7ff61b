// RFC 7541 Appendix C: every example block (C.2 to C.6, with and without Huffman coding)
// decoded by gatecore's decoder, the naive peer and nghttp2's inflater, with the header list
// and, for gatecore and the naive peer, the dynamic table (entries and size) after each block.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "micro/core/http2/hpack.hpp"
#include "micro/peers/hpack_naive.hpp"
#include "micro/peers/hpack_nghttp2.hpp"
#include "tests/micro/core/http2/hpack_encode.hpp"

namespace gatebench::http2 {
namespace {

using peers::HpackField;
using Table = std::vector<std::pair<std::string, std::string>>;

struct Step {
  const char* hex;
  std::vector<HpackField> fields;
  Table table;  // newest first
  std::size_t table_size;
};

std::vector<HpackField> fields_of(std::span<const HeaderField> f) {
  std::vector<HpackField> out;
  for (const HeaderField& h : f)
    out.push_back({std::string(h.name), std::string(h.value), h.never_indexed});
  return out;
}

Table table_of(const HpackDecoder& d) {
  Table t;
  for (std::size_t i = 0; i < d.dynamic_count(); ++i) {
    const HeaderField e = d.dynamic_entry(i);
    t.emplace_back(std::string(e.name), std::string(e.value));
  }
  return t;
}

// Decodes the steps in order on one connection of each decoder.
void check(std::uint32_t table_size, const std::vector<Step>& steps) {
  HpackDecoder g({.max_table_size = table_size, .max_header_list_size = 65536});
  peers::NaiveHpackDecoder n(table_size, 65536, 64);
  peers::NghttpInflater ng(table_size);
  std::vector<HeaderField> out(64);
  std::vector<char> scratch(g.scratch_bytes());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE("block " + std::to_string(i + 1));
    const Step& s = steps[i];
    const std::string block = testing::from_hex(s.hex);
    const HpackResult r = g.decode(block, out, scratch);
    ASSERT_EQ(r.status, HpackStatus::kOk) << describe(r.status);
    EXPECT_EQ(fields_of(std::span(out).first(r.count)), s.fields);
    EXPECT_EQ(table_of(g), s.table);
    EXPECT_EQ(g.dynamic_size(), s.table_size);

    const peers::NaiveHpackResult nr = n.decode(block);
    ASSERT_EQ(nr.status, HpackStatus::kOk);
    EXPECT_EQ(nr.fields, s.fields);
    EXPECT_EQ(Table(n.table().begin(), n.table().end()), s.table);
    EXPECT_EQ(n.table_size(), s.table_size);

    // nghttp2 wants the encoder to confirm a table under 4,096 with a size update first.
    std::vector<HpackField> ngf;
    const std::string confirm =
        i == 0 && table_size != 4096 ? testing::hpack_size_update(table_size) : "";
    ASSERT_TRUE(ng.decode(confirm + block, ngf));
    EXPECT_EQ(ngf, s.fields);
  }
}

TEST(HpackRfc, C2IndependentRepresentations) {
  check(4096, {{"400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
                {{"custom-key", "custom-header"}},
                {{"custom-key", "custom-header"}},
                55}});
  check(4096, {{"040c 2f73 616d 706c 652f 7061 7468", {{":path", "/sample/path"}}, {}, 0}});
  check(4096,
        {{"1008 7061 7373 776f 7264 0673 6563 7265 74", {{"password", "secret", true}}, {}, 0}});
  check(4096, {{"82", {{":method", "GET"}}, {}, 0}});
}

const std::vector<HpackField> kRequest1 = {
    {":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {":authority", "www.example.com"}};
const std::vector<HpackField> kRequest2 = {{":method", "GET"},
                                           {":scheme", "http"},
                                           {":path", "/"},
                                           {":authority", "www.example.com"},
                                           {"cache-control", "no-cache"}};
const std::vector<HpackField> kRequest3 = {{":method", "GET"},
                                           {":scheme", "https"},
                                           {":path", "/index.html"},
                                           {":authority", "www.example.com"},
                                           {"custom-key", "custom-value"}};
const Table kRequestTable1 = {{":authority", "www.example.com"}};
const Table kRequestTable2 = {{"cache-control", "no-cache"}, {":authority", "www.example.com"}};
const Table kRequestTable3 = {{"custom-key", "custom-value"},
                              {"cache-control", "no-cache"},
                              {":authority", "www.example.com"}};

TEST(HpackRfc, C3RequestsWithoutHuffman) {
  check(4096, {{"8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d", kRequest1, kRequestTable1, 57},
               {"8286 84be 5808 6e6f 2d63 6163 6865", kRequest2, kRequestTable2, 110},
               {"8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
                kRequest3, kRequestTable3, 164}});
}

TEST(HpackRfc, C4RequestsWithHuffman) {
  check(4096, {{"8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", kRequest1, kRequestTable1, 57},
               {"8286 84be 5886 a8eb 1064 9cbf", kRequest2, kRequestTable2, 110},
               {"8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf", kRequest3,
                kRequestTable3, 164}});
}

const std::vector<HpackField> kResponse1 = {{":status", "302"},
                                            {"cache-control", "private"},
                                            {"date", "Mon, 21 Oct 2013 20:13:21 GMT"},
                                            {"location", "https://www.example.com"}};
const std::vector<HpackField> kResponse2 = {{":status", "307"},
                                            {"cache-control", "private"},
                                            {"date", "Mon, 21 Oct 2013 20:13:21 GMT"},
                                            {"location", "https://www.example.com"}};
const std::vector<HpackField> kResponse3 = {
    {":status", "200"},
    {"cache-control", "private"},
    {"date", "Mon, 21 Oct 2013 20:13:22 GMT"},
    {"location", "https://www.example.com"},
    {"content-encoding", "gzip"},
    {"set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"}};
const Table kResponseTable1 = {{"location", "https://www.example.com"},
                               {"date", "Mon, 21 Oct 2013 20:13:21 GMT"},
                               {"cache-control", "private"},
                               {":status", "302"}};
const Table kResponseTable2 = {{":status", "307"},
                               {"location", "https://www.example.com"},
                               {"date", "Mon, 21 Oct 2013 20:13:21 GMT"},
                               {"cache-control", "private"}};
const Table kResponseTable3 = {
    {"set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"},
    {"content-encoding", "gzip"},
    {"date", "Mon, 21 Oct 2013 20:13:22 GMT"}};

TEST(HpackRfc, C5ResponsesWithoutHuffman) {
  check(256, {{"4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133"
               "2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70"
               "6c65 2e63 6f6d",
               kResponse1, kResponseTable1, 222},
              {"4803 3330 37c1 c0bf", kResponse2, kResponseTable2, 222},
              {"88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d"
               "54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049"
               "5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e"
               "3d31",
               kResponse3, kResponseTable3, 215}});
}

TEST(HpackRfc, C6ResponsesWithHuffman) {
  check(256, {{"4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6"
               "2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
               kResponse1, kResponseTable1, 222},
              {"4883 640e ffc1 c0bf", kResponse2, kResponseTable2, 222},
              {"88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab"
               "77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f"
               "9587 3160 65c0 03ed 4ee5 b106 3d50 07",
               kResponse3, kResponseTable3, 215}});
}

// The test encoder (Appendix B's printed codes) reproduces the appendix's Huffman strings, so
// the blocks it builds in the other hpack tests are what a conforming encoder writes.
TEST(HpackRfc, TestEncoderMatchesTheAppendix) {
  EXPECT_EQ(testing::huffman_encode("www.example.com"),
            testing::from_hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff"));
  EXPECT_EQ(testing::huffman_encode("no-cache"), testing::from_hex("a8eb 1064 9cbf"));
  EXPECT_EQ(testing::huffman_encode("custom-value"), testing::from_hex("25a8 49e9 5bb8 e8b4 bf"));
  EXPECT_EQ(testing::huffman_encode("foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"),
            testing::from_hex("94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27"
                              "0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07"));
  EXPECT_EQ(testing::hpack_int(5, 0, 1337), std::string("\x1f\x9a\x0a"));
}

}  // namespace
}  // namespace gatebench::http2
