// libFuzzer target for gatecore's HPACK decoder, differential against the naive peer
// (micro/peers/hpack_naive.hpp, header-only so that the fuzz build needs no peers library).
// Input: one byte of limits (table size, header list size, field count), then blocks, each a
// two-byte header (bit 15: lower or raise SETTINGS_HEADER_TABLE_SIZE first, to the next byte's
// share of the table; bits 0-14: the block's length) and its bytes. After every block the
// status, the failing offset, the fields and the dynamic table must be the same in both.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "micro/core/http2/hpack.hpp"
#include "micro/peers/hpack_naive.hpp"

namespace {

using namespace gatebench;

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  constexpr std::uint32_t kTables[] = {0, 64, 256, 4096};
  constexpr std::uint32_t kLists[] = {64, 512, 4096, 65536};
  constexpr std::size_t kFields[] = {1, 4, 16, 100};
  const std::uint32_t table = kTables[data[0] & 3];
  http2::HpackDecoder g(
      {.max_table_size = table, .max_header_list_size = kLists[data[0] >> 2 & 3]});
  peers::NaiveHpackDecoder n(table, kLists[data[0] >> 2 & 3], kFields[data[0] >> 4 & 3]);
  std::vector<http2::HeaderField> out(kFields[data[0] >> 4 & 3]);
  std::vector<char> scratch(g.scratch_bytes());
  std::size_t pos = 1;
  while (pos + 2 <= size) {
    const unsigned header = data[pos] | data[pos + 1] << 8;
    pos += 2;
    if ((header & 0x8000) && pos < size) {
      const auto limit = static_cast<std::uint32_t>(std::uint64_t{table} * data[pos++] / 255);
      check(g.set_max_table_size(limit) && n.set_max_table_size(limit));
    }
    const std::size_t len = std::min<std::size_t>(header & 0x7fff, size - pos);
    const std::string_view block(reinterpret_cast<const char*>(data + pos), len);
    pos += len;
    const http2::HpackResult r = g.decode(block, out, scratch);
    const peers::NaiveHpackResult nr = n.decode(block);
    check(r.status == nr.status && r.offset == nr.offset && r.count == nr.fields.size());
    for (std::size_t i = 0; i < r.count; ++i) {
      check(out[i].name == nr.fields[i].name && out[i].value == nr.fields[i].value &&
            out[i].never_indexed == nr.fields[i].never_indexed);
    }
    check(g.dynamic_count() == n.table().size() && g.dynamic_size() == n.table_size());
    for (std::size_t i = 0; i < g.dynamic_count(); ++i) {
      const http2::HeaderField e = g.dynamic_entry(i);
      check(e.name == n.table()[i].first && e.value == n.table()[i].second);
    }
    if (http2::is_decoding_error(r.status)) break;
  }
  return 0;
}
