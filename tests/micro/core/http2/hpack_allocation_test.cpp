// gatecore's HPACK decoder allocates nothing per block: first blocks (Huffman literals added to
// the table), later blocks (dynamic-table hits), evictions, size updates, ring wraps, stream
// errors and a decoding error. The blocks are encoded before counting starts.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "micro/core/http2/hpack.hpp"
#include "micro/peers/hpack_nghttp2.hpp"
#include "tests/micro/allocation_counter.hpp"
#include "tests/micro/core/http2/hpack_encode.hpp"

namespace gatebench::http2 {
namespace {

using gatebench::testing::g_allocations;

TEST(HpackAllocation, DecodingAllocatesNothing) {
  std::mt19937_64 rng(2);
  peers::NghttpDeflater deflater(256);
  std::vector<std::string> blocks;
  std::size_t expected_fields = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<peers::HpackField> list = {{":method", "GET"},
                                           {":path", "/item/" + std::to_string(rng() % 50)},
                                           {"user-agent", "agent " + std::to_string(rng() % 5)},
                                           {"x-token", std::string(rng() % 120, 'z')}};
    expected_fields += list.size();
    blocks.push_back(deflater.encode(list));
  }
  const std::string too_many = blocks[0] + testing::hpack_indexed(2);
  const std::string bad = testing::hpack_indexed(0);

  HpackDecoder d({.max_table_size = 256, .max_header_list_size = 1024});
  std::vector<HeaderField> out(4);
  std::vector<char> scratch(d.scratch_bytes());
  const std::size_t before = g_allocations.load();
  std::size_t fields = 0;
  for (const std::string& b : blocks) {
    const HpackResult r = d.decode(b, out, scratch);
    ASSERT_EQ(r.status, HpackStatus::kOk);
    fields += r.count;
  }
  const HpackStatus stream = d.decode(too_many, out, scratch).status;
  const HpackStatus failed = d.decode(bad, out, scratch).status;
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_EQ(fields, expected_fields);
  EXPECT_EQ(stream, HpackStatus::kTooManyFields);
  EXPECT_EQ(failed, HpackStatus::kIndexZero);
}

}  // namespace
}  // namespace gatebench::http2
