// HPACK header-block decoding (RFC 7541) for an HTTP/2 server: one decoder per connection.
//
//   HpackDecoder d({.max_table_size = 4096, .max_header_list_size = 16384});
//   std::array<HeaderField, 128> fields;
//   std::vector<char> scratch(d.scratch_bytes());          // once per connection
//   HpackResult r = d.decode(block, fields, scratch);      // one whole header block
//   if (r.status == HpackStatus::kOk) use(std::span(fields).first(r.count));
//
// Contract:
// - `block` is a complete header block (HEADERS and its CONTINUATION frames' fragments joined).
// - On kOk, out[0, count) are the fields in order. A name or value views the block itself (a
//   literal without Huffman coding), the static table, `scratch` (Huffman-decoded strings) or
//   the decoder's dynamic table; all of them stay valid together until the next call to decode
//   or set_max_table_size, as long as the block and the scratch stay in place.
// - Stream errors (kHeaderListTooLarge: the RFC 9113 SETTINGS_MAX_HEADER_LIST_SIZE of the
//   limits, counting each field as name + value + 32 bytes; kTooManyFields: more fields than
//   `out` holds) still decode the whole block, so the dynamic table stays in step with the
//   peer's encoder and the connection can go on (a server answers 431 or resets the stream).
//   No field is returned.
// - Every other status is a decoding error (RFC 9113 COMPRESSION_ERROR, the connection must
//   close): the decoder then refuses every later block with the same status.
// - Dynamic table size updates are accepted only before the first field of a block, never
//   above the limit; after set_max_table_size lowers the limit under the table's size, the next
//   block must start with one (as nghttp2 requires).
// - Integers are at most 2^32 - 1 and take at most five continuation bytes.
// - No allocation after construction; nothing is checked about names and values themselves
//   (case, pseudo-header order, forbidden fields): that is HTTP/2 message validation, above.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace gatebench::http2 {

enum class HpackStatus : std::uint8_t {
  kOk,
  kHeaderListTooLarge,  // stream errors: the table is in step
  kTooManyFields,
  kTruncated,  // decoding errors from here on: a representation runs past the block's end
  kIntegerOverflow,
  kIndexZero,
  kIndexOutOfRange,
  kHuffmanEos,
  kHuffmanPadding,
  kSizeUpdateTooLarge,
  kSizeUpdateNotAtStart,
  kSizeUpdateMissing,
  kScratchTooSmall,  // the caller's scratch is under scratch_bytes(): nothing was read
};

// True for the statuses after which the connection cannot go on.
bool is_decoding_error(HpackStatus s);

// A static description naming the rule ("index past the static and dynamic tables", ...).
const char* describe(HpackStatus s);

struct HeaderField {
  std::string_view name;
  std::string_view value;
  bool never_indexed = false;  // RFC 7541 6.2.3: a proxy re-encodes it never indexed too
};

struct HpackLimits {
  std::uint32_t max_table_size = 4096;         // the SETTINGS_HEADER_TABLE_SIZE we advertise
  std::uint32_t max_header_list_size = 65536;  // the SETTINGS_MAX_HEADER_LIST_SIZE we advertise
};

struct HpackResult {
  HpackStatus status = HpackStatus::kOk;
  std::uint32_t count = 0;   // fields in `out` (0 unless kOk)
  std::uint32_t offset = 0;  // where the representation that failed starts in the block
};

class HpackDecoder {
 public:
  // Allocates the dynamic table for limits.max_table_size, the most set_max_table_size allows.
  explicit HpackDecoder(HpackLimits limits = {});

  HpackResult decode(std::string_view block, std::span<HeaderField> out, std::span<char> scratch);

  // The scratch every block needs: max(max_header_list_size, max_table_size) bytes.
  std::size_t scratch_bytes() const;

  // Our SETTINGS_HEADER_TABLE_SIZE changed and the peer acknowledged it. False (nothing
  // changed) above the limit the decoder was built with.
  bool set_max_table_size(std::uint32_t limit);

  // The dynamic table, for tests and diagnostics: entry 0 is the newest (index 62).
  std::size_t dynamic_count() const { return count_; }
  std::size_t dynamic_size() const { return size_; }    // RFC 7541 4.1: name + value + 32 each
  std::uint32_t max_size() const { return max_size_; }  // set by the last size update
  HeaderField dynamic_entry(std::size_t i) const;
  HpackStatus failure() const { return failed_; }

 private:
  struct Entry {
    std::uint64_t pos;  // of the name in the ring's running byte count; value follows it
    std::uint32_t name_len;
    std::uint32_t value_len;
  };
  class Block;
  friend class Block;

  const Entry& entry(std::size_t i) const {
    return entries_[(first_ + count_ - 1 - i) & entry_mask_];
  }
  const char* at(std::uint64_t pos) const { return ring_.get() + (pos & ring_mask_); }
  bool in_ring(const char* p) const { return p >= ring_.get() && p < ring_.get() + ring_mask_ + 1; }
  void evict_to(std::uint32_t size);

  HpackLimits limits_;
  std::uint32_t limit_;     // the current SETTINGS_HEADER_TABLE_SIZE
  std::uint32_t max_size_;  // the table's maximum size, set by size updates (<= limit_)
  bool update_required_ = false;
  HpackStatus failed_ = HpackStatus::kOk;

  // The entries' bytes, in a ring four times the largest table: an evicted entry's bytes stay
  // in place until the ring wraps over them, so fields of this block may keep viewing them
  // (the decoder copies them to the scratch first in the rare block that inserts that much).
  std::unique_ptr<char[]> ring_;
  std::uint64_t ring_mask_;
  std::uint64_t head_ = 0;  // running count of ring bytes written (and skipped at the wrap)
  std::unique_ptr<Entry[]> entries_;
  std::size_t entry_mask_;
  std::size_t first_ = 0;  // the oldest entry
  std::size_t count_ = 0;
  std::size_t size_ = 0;
};

}  // namespace gatebench::http2
