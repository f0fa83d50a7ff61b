// nghttp2's HPACK coder (Debian libnghttp2-dev 1.52): the inflater
// (nghttp2_hd_inflate_hd2, one field per call, its views valid until the next call) is the
// peer of the hpack benchmarks and an oracle of the differential tests; the deflater encodes
// their header lists, choosing indexing and Huffman coding as nghttp2's servers and clients do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "micro/peers/hpack_naive.hpp"

struct nghttp2_hd_inflater;
struct nghttp2_hd_deflater;

namespace gatebench::peers {

class NghttpInflater {
 public:
  explicit NghttpInflater(std::size_t max_table_size = 4096);
  ~NghttpInflater();
  NghttpInflater(const NghttpInflater&) = delete;
  NghttpInflater& operator=(const NghttpInflater&) = delete;

  // Our SETTINGS_HEADER_TABLE_SIZE, acknowledged.
  void set_max_table_size(std::size_t limit);

  // One block's fields and their name + value bytes, as a server's header callback sees them;
  // false when nghttp2 rejects the block.
  bool count(std::string_view block, std::size_t& fields, std::size_t& bytes);
  bool decode(std::string_view block, std::vector<HpackField>& out);

 private:
  nghttp2_hd_inflater* inflater_ = nullptr;
};

class NghttpDeflater {
 public:
  explicit NghttpDeflater(std::size_t max_table_size = 4096);
  ~NghttpDeflater();
  NghttpDeflater(const NghttpDeflater&) = delete;
  NghttpDeflater& operator=(const NghttpDeflater&) = delete;

  // The peer's SETTINGS_HEADER_TABLE_SIZE: the next block starts with a size update.
  void set_max_table_size(std::size_t limit);

  // One header block; never_indexed fields are sent never indexed.
  std::string encode(std::span<const HpackField> fields);

 private:
  nghttp2_hd_deflater* deflater_ = nullptr;
};

}  // namespace gatebench::peers
