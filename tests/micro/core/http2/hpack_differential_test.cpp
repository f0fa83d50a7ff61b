// gatecore's HPACK decoder against the naive peer and nghttp2's inflater on generated blocks:
// header lists encoded by nghttp2's deflater (its own indexing and Huffman choices, table size
// changes), and blocks built representation by representation (every kind, random indices,
// size updates, small list and field limits) with random byte edits and cuts. Statuses,
// offsets, fields and the dynamic table must agree after every block.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "micro/core/http2/hpack.hpp"
#include "micro/core/http2/static_table.hpp"
#include "micro/peers/hpack_naive.hpp"
#include "micro/peers/hpack_nghttp2.hpp"
#include "tests/micro/core/http2/hpack_encode.hpp"
#include "tests/random_cases.hpp"

namespace gatebench::http2 {
namespace {

using peers::HpackField;
using namespace gatebench::testing;

struct Decoders {
  Decoders(std::uint32_t table, std::uint32_t list, std::size_t fields)
      : g({.max_table_size = table, .max_header_list_size = list}),
        n(table, list, fields),
        out(fields),
        scratch(g.scratch_bytes()) {}

  // Both decoders on one block: everything must agree. Returns gatecore's status.
  HpackStatus decode(const std::string& block, std::vector<HpackField>* fields = nullptr) {
    const HpackResult r = g.decode(block, out, scratch);
    const peers::NaiveHpackResult nr = n.decode(block);
    EXPECT_EQ(r.status, nr.status) << hex(block);
    EXPECT_EQ(r.offset, nr.offset) << hex(block);
    std::vector<HpackField> f;
    for (std::uint32_t i = 0; i < r.count; ++i)
      f.push_back({std::string(out[i].name), std::string(out[i].value), out[i].never_indexed});
    EXPECT_EQ(f, nr.fields) << hex(block);
    EXPECT_EQ(g.dynamic_count(), n.table().size());
    EXPECT_EQ(g.dynamic_size(), n.table_size());
    for (std::size_t i = 0; i < g.dynamic_count() && i < n.table().size(); ++i) {
      const HeaderField e = g.dynamic_entry(i);
      EXPECT_EQ(e.name, n.table()[i].first);
      EXPECT_EQ(e.value, n.table()[i].second);
    }
    if (fields) *fields = std::move(f);
    return r.status;
  }

  HpackDecoder g;
  peers::NaiveHpackDecoder n;
  std::vector<HeaderField> out;
  std::vector<char> scratch;
};

std::string random_text(std::mt19937_64& rng, std::size_t max_len) {
  static const std::string kChars =
      "abcdefghijklmnopqrstuvwxyz0123456789-_.;=/ ,:ABCDEFGHXYZ%\"()?!*+<>[]{}~^|\\";
  std::string s(rng() % (max_len + 1), '\0');
  const bool bytes = rng() % 8 == 0;
  for (char& c : s) c = bytes ? static_cast<char>(rng()) : kChars[rng() % kChars.size()];
  return s;
}

std::string random_name(std::mt19937_64& rng) {
  if (rng() % 2) return std::string(kStaticTable[rng() % kStaticEntries].name);
  static const std::vector<std::string> kNames = {
      "x-request-id", "x-forwarded-for", "sec-ch-ua", "sec-fetch-mode", "priority",     "te",
      "x-custom",     "traceparent",     "origin",    "cookie",         "authorization"};
  if (rng() % 4) return kNames[rng() % kNames.size()];
  return random_text(rng, 20);
}

TEST(HpackDifferential, NghttpDeflaterBlocks) {
  std::mt19937_64 rng(22);
  for (int conn = 0; conn < testing::random_cases(300); ++conn) {
    const std::uint32_t sizes[] = {0, 64, 256, 1024, 4096};
    std::uint32_t table = sizes[rng() % 5];
    peers::NghttpDeflater deflater(4096);
    if (table != 4096) deflater.set_max_table_size(table);
    Decoders d(4096, 1 << 20, 256);
    peers::NghttpInflater ng(4096);
    if (table != 4096) {
      ASSERT_TRUE(d.g.set_max_table_size(table));
      ASSERT_TRUE(d.n.set_max_table_size(table));
      ng.set_max_table_size(table);
    }
    std::vector<HpackField> previous;
    for (int block = 0; block < 30; ++block) {
      if (rng() % 10 == 0) {
        table = sizes[rng() % 5];
        deflater.set_max_table_size(table);
        ASSERT_TRUE(d.g.set_max_table_size(table));
        ASSERT_TRUE(d.n.set_max_table_size(table));
        ng.set_max_table_size(table);
      }
      std::vector<HpackField> list;
      const std::size_t n = rng() % 24;
      for (std::size_t i = 0; i < n; ++i) {
        if (!previous.empty() && rng() % 2) {  // repeated fields: dynamic table hits
          list.push_back(previous[rng() % previous.size()]);
          continue;
        }
        list.push_back({random_name(rng), random_text(rng, rng() % 4 ? 40 : 400), rng() % 10 == 0});
      }
      const std::string encoded = deflater.encode(list);
      std::vector<HpackField> got;
      ASSERT_EQ(d.decode(encoded, &got), HpackStatus::kOk) << hex(encoded);
      std::vector<HpackField> want;
      ASSERT_TRUE(ng.decode(encoded, want));
      ASSERT_EQ(got.size(), list.size());
      for (std::size_t i = 0; i < list.size(); ++i) {
        EXPECT_EQ(got[i].name, list[i].name);
        EXPECT_EQ(got[i].value, list[i].value);
        EXPECT_EQ(got[i].name, want[i].name);
        EXPECT_EQ(got[i].value, want[i].value);
        EXPECT_EQ(got[i].never_indexed, want[i].never_indexed);
        if (list[i].never_indexed) {
          EXPECT_TRUE(got[i].never_indexed);
        }
      }
      if (!list.empty()) previous = list;
    }
  }
}

// One random representation for a table of `dynamic` entries (indices sometimes past it).
std::string random_rep(std::mt19937_64& rng, std::size_t dynamic) {
  const std::uint64_t tables = kStaticEntries + dynamic;
  const auto index = [&]() -> std::uint64_t {
    if (rng() % 50 == 0) return tables + 1 + rng() % 3;
    return 1 + rng() % tables;
  };
  switch (rng() % 4) {
    case 0:
      return hpack_indexed(index());
    default: {
      const unsigned kinds[] = {0x40, 0x00, 0x10};
      const unsigned kind = kinds[rng() % 3];
      const std::uint64_t name = rng() % 2 ? index() : 0;
      return hpack_literal(kind, name, random_name(rng), random_text(rng, rng() % 6 ? 30 : 300),
                           rng() % 2, rng() % 2);
    }
  }
}

TEST(HpackDifferential, GeneratedAndEditedBlocks) {
  std::mt19937_64 rng(7541);
  for (int conn = 0; conn < 1500; ++conn) {
    const std::uint32_t table = static_cast<std::uint32_t>(rng() % 3 ? rng() % 600 : 4096);
    const std::uint32_t list = static_cast<std::uint32_t>(rng() % 2 ? 300 + rng() % 2000 : 65536);
    const std::size_t fields = rng() % 2 ? 1 + rng() % 12 : 64;
    auto d = std::make_unique<Decoders>(table, list, fields);
    for (int block = 0; block < 12; ++block) {
      std::string b;
      if (rng() % 6 == 0) {
        const std::uint32_t limit = static_cast<std::uint32_t>(rng() % (table + 1));
        ASSERT_TRUE(d->g.set_max_table_size(limit));
        ASSERT_TRUE(d->n.set_max_table_size(limit));
      }
      if (rng() % 3 == 0) b += hpack_size_update(rng() % (table + 2));
      if (rng() % 8 == 0) b += hpack_size_update(rng() % (table + 2));
      const std::size_t reps = rng() % 16;
      for (std::size_t i = 0; i < reps; ++i) {
        b += random_rep(rng, d->g.dynamic_count());
        if (rng() % 100 == 0) b += hpack_size_update(rng() % (table + 1));  // misplaced
      }
      if (!b.empty() && rng() % 8 == 0) b[rng() % b.size()] = static_cast<char>(rng());
      if (!b.empty() && rng() % 10 == 0) b.resize(rng() % b.size());
      if (is_decoding_error(d->decode(b))) break;  // both decoders are done
    }
  }
}

// A block that views a dynamic entry and then inserts more than the ring holds (4 x 256
// bytes): the view must be copied out before the ring wraps over it.
TEST(HpackDifferential, ViewsSurviveTheRingWrap) {
  Decoders d(256, 65536, 64);
  ASSERT_EQ(d.decode(hpack_literal(0x40, 0, "keep", "this value", false, false)), HpackStatus::kOk);
  std::string b = hpack_indexed(62) + hpack_literal(0x00, 62, "", "same name", false, false);
  for (int i = 0; i < 12; ++i)
    b += hpack_literal(0x40, 0, std::string(1, 'n').append(std::to_string(i)),
                       std::string(150, static_cast<char>('a' + i)), false, i % 2);
  b += hpack_indexed(62);
  std::vector<HpackField> f;
  ASSERT_EQ(d.decode(b, &f), HpackStatus::kOk);
  ASSERT_EQ(f.size(), 15u);
  EXPECT_EQ(f[0].name, "keep");
  EXPECT_EQ(f[0].value, "this value");
  EXPECT_EQ(f[1].name, "keep");
  EXPECT_EQ(f[2].value, std::string(150, 'a'));
  EXPECT_EQ(f[14].name, "n11");
}

}  // namespace
}  // namespace gatebench::http2
