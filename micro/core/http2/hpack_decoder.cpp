#include <algorithm>
#include <bit>
#include <cstring>

#include "micro/core/http2/hpack.hpp"
#include "micro/core/http2/huffman.hpp"
#include "micro/core/http2/static_table.hpp"

namespace gatebench::http2 {
namespace {

constexpr std::uint32_t kEntryOverhead = 32;  // RFC 7541 4.1 and RFC 9113 6.5.2
constexpr std::uint64_t kNoView = ~std::uint64_t{0};

// An RFC 7541 5.1 integer with an N-bit prefix; p is at its first byte and before `end`.
inline HpackStatus read_integer(const unsigned char*& p, const unsigned char* end,
                                unsigned prefix_bits, std::uint32_t& value) {
  const std::uint32_t max_prefix = (1u << prefix_bits) - 1;
  const std::uint32_t first = *p++ & max_prefix;
  if (first < max_prefix) [[likely]] {
    value = first;
    return HpackStatus::kOk;
  }
  std::uint64_t v = first;
  for (unsigned shift = 0;; shift += 7) {
    if (p == end) return HpackStatus::kTruncated;
    const unsigned b = *p++;
    v += static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (v > 0xffffffffu) return HpackStatus::kIntegerOverflow;
    if ((b & 0x80) == 0) break;
    if (shift == 28) return HpackStatus::kIntegerOverflow;  // a sixth continuation byte
  }
  value = static_cast<std::uint32_t>(v);
  return HpackStatus::kOk;
}

}  // namespace

bool is_decoding_error(HpackStatus s) {
  return s != HpackStatus::kOk && s != HpackStatus::kHeaderListTooLarge &&
         s != HpackStatus::kTooManyFields && s != HpackStatus::kScratchTooSmall;
}

const char* describe(HpackStatus s) {
  switch (s) {
    case HpackStatus::kOk:
      return "ok";
    case HpackStatus::kHeaderListTooLarge:
      return "header list larger than SETTINGS_MAX_HEADER_LIST_SIZE";
    case HpackStatus::kTooManyFields:
      return "more fields than the caller's field array holds";
    case HpackStatus::kTruncated:
      return "representation cut by the end of the header block";
    case HpackStatus::kIntegerOverflow:
      return "integer above 2^32-1 or longer than five continuation bytes";
    case HpackStatus::kIndexZero:
      return "indexed field with index 0";
    case HpackStatus::kIndexOutOfRange:
      return "index past the static and dynamic tables";
    case HpackStatus::kHuffmanEos:
      return "EOS symbol inside a Huffman-coded string";
    case HpackStatus::kHuffmanPadding:
      return "Huffman padding longer than 7 bits, not all ones, or a cut code";
    case HpackStatus::kSizeUpdateTooLarge:
      return "dynamic table size update above SETTINGS_HEADER_TABLE_SIZE";
    case HpackStatus::kSizeUpdateNotAtStart:
      return "dynamic table size update after the first field of the block";
    case HpackStatus::kSizeUpdateMissing:
      return "no dynamic table size update after SETTINGS_HEADER_TABLE_SIZE was lowered";
    case HpackStatus::kScratchTooSmall:
      return "scratch smaller than scratch_bytes()";
  }
  return "unknown";
}

HpackDecoder::HpackDecoder(HpackLimits limits)
    : limits_(limits), limit_(limits.max_table_size), max_size_(limits.max_table_size) {
  // Ring: the live entries (at most the table's size), one skipped tail at the wrap and the
  // entry being written take under three times the table; the fourth leaves evicted bytes
  // in place for a block's views (see insert below).
  const std::uint64_t ring =
      std::bit_ceil(std::max<std::uint64_t>(64, std::uint64_t{4} * limits.max_table_size));
  ring_ = std::make_unique_for_overwrite<char[]>(ring);
  ring_mask_ = ring - 1;
  const std::size_t entries = std::bit_ceil<std::size_t>(limits.max_table_size / 32 + 1);
  entries_ = std::make_unique_for_overwrite<Entry[]>(entries);
  entry_mask_ = entries - 1;
}

std::size_t HpackDecoder::scratch_bytes() const {
  return std::max(limits_.max_header_list_size, limits_.max_table_size);
}

bool HpackDecoder::set_max_table_size(std::uint32_t limit) {
  if (limit > limits_.max_table_size) return false;
  limit_ = limit;
  if (limit < max_size_) update_required_ = true;
  return true;
}

HeaderField HpackDecoder::dynamic_entry(std::size_t i) const {
  const Entry& e = entry(i);
  const char* p = at(e.pos);
  return {{p, e.name_len}, {p + e.name_len, e.value_len}, false};
}

void HpackDecoder::evict_to(std::uint32_t size) {
  while (size_ > size) {
    const Entry& e = entries_[first_ & entry_mask_];
    size_ -= e.name_len + e.value_len + kEntryOverhead;
    ++first_;
    --count_;
  }
}

// The state of one decode call. Fields are emitted to `out` while no stream error has
// happened; after one the block is decoded on ("discarding") only to keep the table in step.
class HpackDecoder::Block {
 public:
  Block(HpackDecoder& d, std::string_view block, std::span<HeaderField> out,
        std::span<char> scratch)
      : d_(d),
        begin_(reinterpret_cast<const unsigned char*>(block.data())),
        p_(begin_),
        end_(begin_ + block.size()),
        out_(out),
        scratch_(scratch) {}

  HpackResult run();

 private:
  // What a string read gave: a view (or, discarding, `too_long` set when the decoded string
  // did not fit the scratch, so the field cannot be a table entry either); kRestarted: the
  // list limit was crossed and the representation starts again, discarding; kError: error_.
  enum class Str : std::uint8_t { kOk, kRestarted, kError };

  Str read_string(std::string_view& s, bool& too_long);
  bool admit(std::uint64_t size);
  HpackStatus literal(unsigned prefix_bits, bool index, bool never);
  HpackStatus indexed();
  HpackStatus size_update(bool at_start);
  bool lookup(std::uint32_t index, HeaderField& f, std::uint64_t& pos) const;
  void insert(std::string_view name, std::string_view value);
  void keep_views_before(std::uint64_t end);
  void start_discarding(HpackStatus why);
  HpackResult fail(HpackStatus s, const unsigned char* at) {
    d_.failed_ = s;
    return {s, 0, static_cast<std::uint32_t>(at - begin_)};
  }

  HpackDecoder& d_;
  const unsigned char* const begin_;
  const unsigned char* p_;
  const unsigned char* const end_;
  std::span<HeaderField> out_;
  std::span<char> scratch_;
  std::size_t count_ = 0;
  std::size_t used_ = 0;              // scratch bytes
  std::uint64_t list_ = 0;            // header list size so far
  std::uint64_t min_view_ = kNoView;  // lowest ring position a field of this block views
  HpackStatus stream_ = HpackStatus::kOk;
  HpackStatus error_ = HpackStatus::kOk;  // of the last Str::kError
  const unsigned char* rep_ = nullptr;    // the current representation's first byte
  std::uint32_t stream_offset_ = 0;
};

void HpackDecoder::Block::start_discarding(HpackStatus why) {
  stream_ = why;
  stream_offset_ = static_cast<std::uint32_t>(rep_ - begin_);
  count_ = 0;
  used_ = 0;
  min_view_ = kNoView;
  p_ = rep_;  // read the representation again, discarding
}

// Whether a field of `size` may join the list; when not, the block goes on discarding.
bool HpackDecoder::Block::admit(std::uint64_t size) {
  if (list_ + size > d_.limits_.max_header_list_size) {
    start_discarding(HpackStatus::kHeaderListTooLarge);
    return false;
  }
  if (count_ == out_.size()) {
    start_discarding(HpackStatus::kTooManyFields);
    return false;
  }
  return true;
}

bool HpackDecoder::Block::lookup(std::uint32_t index, HeaderField& f, std::uint64_t& pos) const {
  if (index <= kStaticEntries) {
    const StaticEntry& s = kStaticTable[index - 1];
    f.name = s.name;
    f.value = s.value;
    pos = kNoView;
    return true;
  }
  const std::size_t i = index - kStaticEntries - 1;
  if (i >= d_.count_) return false;
  const Entry& e = d_.entry(i);
  const char* p = d_.at(e.pos);
  f.name = {p, e.name_len};
  f.value = {p + e.name_len, e.value_len};
  pos = e.pos;
  return true;
}

HpackDecoder::Block::Str HpackDecoder::Block::read_string(std::string_view& s, bool& too_long) {
  if (p_ == end_) {
    error_ = HpackStatus::kTruncated;
    return Str::kError;
  }
  const bool huffman = (*p_ & 0x80) != 0;
  std::uint32_t len;
  if (const HpackStatus st = read_integer(p_, end_, 7, len); st != HpackStatus::kOk) {
    error_ = st;
    return Str::kError;
  }
  if (len > static_cast<std::size_t>(end_ - p_)) {
    error_ = HpackStatus::kTruncated;
    return Str::kError;
  }
  const std::string_view coded(reinterpret_cast<const char*>(p_), len);
  p_ += len;
  if (!huffman) {
    s = coded;
    return Str::kOk;
  }
  char* const dst = scratch_.data() + used_;
  const HuffmanResult r = huffman_decode(coded, dst, scratch_.size() - used_);
  switch (r.status) {
    case HuffmanStatus::kOk:
      s = {dst, r.size};
      used_ += r.size;
      return Str::kOk;
    case HuffmanStatus::kOutputFull: {
      // The scratch holds only strings of this block's fields, and is at least the header
      // list limit: not fitting means the list is too large.
      if (stream_ == HpackStatus::kOk) {
        start_discarding(HpackStatus::kHeaderListTooLarge);
        return Str::kRestarted;
      }
      const HuffmanStatus v = huffman_validate(coded);
      if (v == HuffmanStatus::kOk) {
        too_long = true;
        return Str::kOk;
      }
      error_ = v == HuffmanStatus::kEos ? HpackStatus::kHuffmanEos : HpackStatus::kHuffmanPadding;
      return Str::kError;
    }
    case HuffmanStatus::kEos:
      error_ = HpackStatus::kHuffmanEos;
      return Str::kError;
    case HuffmanStatus::kBadPadding:
      break;
  }
  error_ = HpackStatus::kHuffmanPadding;
  return Str::kError;
}

HpackStatus HpackDecoder::Block::literal(unsigned prefix_bits, bool index, bool never) {
  HeaderField f;
  f.never_indexed = never;
  std::uint32_t name_index;
  if (const HpackStatus st = read_integer(p_, end_, prefix_bits, name_index);
      st != HpackStatus::kOk)
    return st;
  std::uint64_t name_pos = kNoView;
  bool too_long = false;
  if (name_index == 0) {
    if (const Str r = read_string(f.name, too_long); r != Str::kOk)
      return r == Str::kError ? error_ : HpackStatus::kOk;
  } else {
    HeaderField e;
    if (!lookup(name_index, e, name_pos)) return HpackStatus::kIndexOutOfRange;
    f.name = e.name;
  }
  if (const Str r = read_string(f.value, too_long); r != Str::kOk)
    return r == Str::kError ? error_ : HpackStatus::kOk;
  const std::uint64_t size = f.name.size() + f.value.size() + kEntryOverhead;
  if (stream_ == HpackStatus::kOk && !admit(size)) return HpackStatus::kOk;
  if (index) {
    // A string too long for the scratch is longer than any table: the entry empties it.
    if (too_long) {
      d_.evict_to(0);
    } else {
      insert(f.name, f.value);
    }
  }
  if (stream_ != HpackStatus::kOk) {
    used_ = 0;  // discarding: nothing of this field is kept
    return HpackStatus::kOk;
  }
  out_[count_++] = f;
  list_ += size;
  min_view_ = std::min(min_view_, name_pos);
  return HpackStatus::kOk;
}

HpackStatus HpackDecoder::Block::indexed() {
  std::uint32_t index;
  if (const HpackStatus st = read_integer(p_, end_, 7, index); st != HpackStatus::kOk) return st;
  if (index == 0) return HpackStatus::kIndexZero;
  HeaderField f;
  std::uint64_t pos;
  if (!lookup(index, f, pos)) return HpackStatus::kIndexOutOfRange;
  if (stream_ != HpackStatus::kOk) return HpackStatus::kOk;
  const std::uint64_t size = f.name.size() + f.value.size() + kEntryOverhead;
  if (!admit(size)) return HpackStatus::kOk;
  out_[count_++] = f;
  list_ += size;
  min_view_ = std::min(min_view_, pos);
  return HpackStatus::kOk;
}

HpackStatus HpackDecoder::Block::size_update(bool at_start) {
  if (!at_start) return HpackStatus::kSizeUpdateNotAtStart;
  std::uint32_t size;
  if (const HpackStatus st = read_integer(p_, end_, 5, size); st != HpackStatus::kOk) return st;
  if (size > d_.limit_) return HpackStatus::kSizeUpdateTooLarge;
  d_.max_size_ = size;
  d_.evict_to(size);
  d_.update_required_ = false;
  return HpackStatus::kOk;
}

// RFC 7541 4.4: evict from the oldest until the entry fits, then add it. Its name may be an
// entry just evicted: eviction only moves the accounting, so those bytes are still in place,
// and the ring is large enough that the new entry never lands on them.
void HpackDecoder::Block::insert(std::string_view name, std::string_view value) {
  const std::uint64_t len = name.size() + value.size();
  const std::uint64_t size = len + kEntryOverhead;
  if (size > d_.max_size_) {
    d_.evict_to(0);
    return;
  }
  d_.evict_to(static_cast<std::uint32_t>(d_.max_size_ - size));
  const std::uint64_t ring = d_.ring_mask_ + 1;
  std::uint64_t pos = d_.head_;
  if ((pos & d_.ring_mask_) + len > ring) pos += ring - (pos & d_.ring_mask_);  // keep it whole
  keep_views_before(pos + len);
  char* const dst = d_.ring_.get() + (pos & d_.ring_mask_);
  std::memmove(dst, name.data(), name.size());
  std::memcpy(dst + name.size(), value.data(), value.size());
  d_.entries_[(d_.first_ + d_.count_) & d_.entry_mask_] = {
      pos, static_cast<std::uint32_t>(name.size()), static_cast<std::uint32_t>(value.size())};
  ++d_.count_;
  d_.size_ += size;
  d_.head_ = pos + len;
}

// Writing ring bytes up to running position `end` overwrites those of positions below
// end - ring. When a field of this block views one of them, every field's ring views are
// copied to the scratch first; that room is there, because the scratch is at least the header
// list limit and holds each emitted string at most once.
void HpackDecoder::Block::keep_views_before(std::uint64_t end) {
  if (min_view_ == kNoView || end <= min_view_ + d_.ring_mask_ + 1) return;
  auto keep = [this](std::string_view& s) {
    if (!d_.in_ring(s.data())) return;
    char* const dst = scratch_.data() + used_;
    std::memcpy(dst, s.data(), s.size());
    s = {dst, s.size()};
    used_ += s.size();
  };
  for (std::size_t i = 0; i < count_; ++i) {
    keep(out_[i].name);
    keep(out_[i].value);
  }
  min_view_ = kNoView;
}

HpackResult HpackDecoder::Block::run() {
  bool at_start = true;
  while (p_ < end_) {
    rep_ = p_;
    const unsigned b = *p_;
    HpackStatus st;
    if ((b & 0xe0) == 0x20) {
      st = size_update(at_start);
    } else if (d_.update_required_) {
      st = HpackStatus::kSizeUpdateMissing;
    } else {
      at_start = false;
      if (b & 0x80) {
        st = indexed();
      } else if (b & 0x40) {
        st = literal(6, true, false);
      } else {
        st = literal(4, false, (b & 0x10) != 0);
      }
    }
    if (st != HpackStatus::kOk) [[unlikely]]
      return fail(st, rep_);
  }
  if (d_.update_required_) return fail(HpackStatus::kSizeUpdateMissing, p_);
  if (stream_ != HpackStatus::kOk) return {stream_, 0, stream_offset_};
  return {HpackStatus::kOk, static_cast<std::uint32_t>(count_), 0};
}

HpackResult HpackDecoder::decode(std::string_view block, std::span<HeaderField> out,
                                 std::span<char> scratch) {
  if (failed_ != HpackStatus::kOk) return {failed_, 0, 0};
  if (scratch.size() < scratch_bytes()) return {HpackStatus::kScratchTooSmall, 0, 0};
  return Block(*this, block, out, scratch).run();
}

}  // namespace gatebench::http2
