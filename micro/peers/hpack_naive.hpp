// The HPACK decoder a script would write: the dynamic table a std::deque of string pairs,
// Huffman decoded bit by bit with a std::map of Appendix B's codes, every field copied into
// std::strings. The same contract and the same statuses as gatecore's decoder
// (micro/core/http2/hpack.hpp, docs/http2.md), so it is the oracle of the differential tests
// and the fuzz target, and the naive peer of the hpack benchmarks. Header-only, because the
// fuzz build compiles it in without the peers library.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "micro/core/http2/hpack.hpp"
#include "micro/core/http2/static_table.hpp"

namespace gatebench::peers {

struct HpackField {
  std::string name;
  std::string value;
  bool never_indexed = false;
  bool operator==(const HpackField&) const = default;
};

// RFC 7541 Appendix B as printed: (code as hex aligned to the LSB, length in bits).
inline constexpr std::array<std::pair<std::uint32_t, std::uint8_t>, 257> kAppendixB = {{
    {0x1ff8, 13},     {0x7fffd8, 23},   {0xfffffe2, 28},  {0xfffffe3, 28},  {0xfffffe4, 28},
    {0xfffffe5, 28},  {0xfffffe6, 28},  {0xfffffe7, 28},  {0xfffffe8, 28},  {0xffffea, 24},
    {0x3ffffffc, 30}, {0xfffffe9, 28},  {0xfffffea, 28},  {0x3ffffffd, 30}, {0xfffffeb, 28},
    {0xfffffec, 28},  {0xfffffed, 28},  {0xfffffee, 28},  {0xfffffef, 28},  {0xffffff0, 28},
    {0xffffff1, 28},  {0xffffff2, 28},  {0x3ffffffe, 30}, {0xffffff3, 28},  {0xffffff4, 28},
    {0xffffff5, 28},  {0xffffff6, 28},  {0xffffff7, 28},  {0xffffff8, 28},  {0xffffff9, 28},
    {0xffffffa, 28},  {0xffffffb, 28},  {0x14, 6},        {0x3f8, 10},      {0x3f9, 10},
    {0xffa, 12},      {0x1ff9, 13},     {0x15, 6},        {0xf8, 8},        {0x7fa, 11},
    {0x3fa, 10},      {0x3fb, 10},      {0xf9, 8},        {0x7fb, 11},      {0xfa, 8},
    {0x16, 6},        {0x17, 6},        {0x18, 6},        {0x0, 5},         {0x1, 5},
    {0x2, 5},         {0x19, 6},        {0x1a, 6},        {0x1b, 6},        {0x1c, 6},
    {0x1d, 6},        {0x1e, 6},        {0x1f, 6},        {0x5c, 7},        {0xfb, 8},
    {0x7ffc, 15},     {0x20, 6},        {0xffb, 12},      {0x3fc, 10},      {0x1ffa, 13},
    {0x21, 6},        {0x5d, 7},        {0x5e, 7},        {0x5f, 7},        {0x60, 7},
    {0x61, 7},        {0x62, 7},        {0x63, 7},        {0x64, 7},        {0x65, 7},
    {0x66, 7},        {0x67, 7},        {0x68, 7},        {0x69, 7},        {0x6a, 7},
    {0x6b, 7},        {0x6c, 7},        {0x6d, 7},        {0x6e, 7},        {0x6f, 7},
    {0x70, 7},        {0x71, 7},        {0x72, 7},        {0xfc, 8},        {0x73, 7},
    {0xfd, 8},        {0x1ffb, 13},     {0x7fff0, 19},    {0x1ffc, 13},     {0x3ffc, 14},
    {0x22, 6},        {0x7ffd, 15},     {0x3, 5},         {0x23, 6},        {0x4, 5},
    {0x24, 6},        {0x5, 5},         {0x25, 6},        {0x26, 6},        {0x27, 6},
    {0x6, 5},         {0x74, 7},        {0x75, 7},        {0x28, 6},        {0x29, 6},
    {0x2a, 6},        {0x7, 5},         {0x2b, 6},        {0x76, 7},        {0x2c, 6},
    {0x8, 5},         {0x9, 5},         {0x2d, 6},        {0x77, 7},        {0x78, 7},
    {0x79, 7},        {0x7a, 7},        {0x7b, 7},        {0x7ffe, 15},     {0x7fc, 11},
    {0x3ffd, 14},     {0x1ffd, 13},     {0xffffffc, 28},  {0xfffe6, 20},    {0x3fffd2, 22},
    {0xfffe7, 20},    {0xfffe8, 20},    {0x3fffd3, 22},   {0x3fffd4, 22},   {0x3fffd5, 22},
    {0x7fffd9, 23},   {0x3fffd6, 22},   {0x7fffda, 23},   {0x7fffdb, 23},   {0x7fffdc, 23},
    {0x7fffdd, 23},   {0x7fffde, 23},   {0xffffeb, 24},   {0x7fffdf, 23},   {0xffffec, 24},
    {0xffffed, 24},   {0x3fffd7, 22},   {0x7fffe0, 23},   {0xffffee, 24},   {0x7fffe1, 23},
    {0x7fffe2, 23},   {0x7fffe3, 23},   {0x7fffe4, 23},   {0x1fffdc, 21},   {0x3fffd8, 22},
    {0x7fffe5, 23},   {0x3fffd9, 22},   {0x7fffe6, 23},   {0x7fffe7, 23},   {0xffffef, 24},
    {0x3fffda, 22},   {0x1fffdd, 21},   {0xfffe9, 20},    {0x3fffdb, 22},   {0x3fffdc, 22},
    {0x7fffe8, 23},   {0x7fffe9, 23},   {0x1fffde, 21},   {0x7fffea, 23},   {0x3fffdd, 22},
    {0x3fffde, 22},   {0xfffff0, 24},   {0x1fffdf, 21},   {0x3fffdf, 22},   {0x7fffeb, 23},
    {0x7fffec, 23},   {0x1fffe0, 21},   {0x1fffe1, 21},   {0x3fffe0, 22},   {0x1fffe2, 21},
    {0x7fffed, 23},   {0x3fffe1, 22},   {0x7fffee, 23},   {0x7fffef, 23},   {0xfffea, 20},
    {0x3fffe2, 22},   {0x3fffe3, 22},   {0x3fffe4, 22},   {0x7ffff0, 23},   {0x3fffe5, 22},
    {0x3fffe6, 22},   {0x7ffff1, 23},   {0x3ffffe0, 26},  {0x3ffffe1, 26},  {0xfffeb, 20},
    {0x7fff1, 19},    {0x3fffe7, 22},   {0x7ffff2, 23},   {0x3fffe8, 22},   {0x1ffffec, 25},
    {0x3ffffe2, 26},  {0x3ffffe3, 26},  {0x3ffffe4, 26},  {0x7ffffde, 27},  {0x7ffffdf, 27},
    {0x3ffffe5, 26},  {0xfffff1, 24},   {0x1ffffed, 25},  {0x7fff2, 19},    {0x1fffe3, 21},
    {0x3ffffe6, 26},  {0x7ffffe0, 27},  {0x7ffffe1, 27},  {0x3ffffe7, 26},  {0x7ffffe2, 27},
    {0xfffff2, 24},   {0x1fffe4, 21},   {0x1fffe5, 21},   {0x3ffffe8, 26},  {0x3ffffe9, 26},
    {0xffffffd, 28},  {0x7ffffe3, 27},  {0x7ffffe4, 27},  {0x7ffffe5, 27},  {0xfffec, 20},
    {0xfffff3, 24},   {0xfffed, 20},    {0x1fffe6, 21},   {0x3fffe9, 22},   {0x1fffe7, 21},
    {0x1fffe8, 21},   {0x7ffff3, 23},   {0x3fffea, 22},   {0x3fffeb, 22},   {0x1ffffee, 25},
    {0x1ffffef, 25},  {0xfffff4, 24},   {0xfffff5, 24},   {0x3ffffea, 26},  {0x7ffff4, 23},
    {0x3ffffeb, 26},  {0x7ffffe6, 27},  {0x3ffffec, 26},  {0x3ffffed, 26},  {0x7ffffe7, 27},
    {0x7ffffe8, 27},  {0x7ffffe9, 27},  {0x7ffffea, 27},  {0x7ffffeb, 27},  {0xffffffe, 28},
    {0x7ffffec, 27},  {0x7ffffed, 27},  {0x7ffffee, 27},  {0x7ffffef, 27},  {0x7fffff0, 27},
    {0x3ffffee, 26},  {0x3fffffff, 30},
}};

struct NaiveHpackResult {
  http2::HpackStatus status = http2::HpackStatus::kOk;
  std::vector<HpackField> fields;  // empty unless kOk
  std::size_t offset = 0;          // where the failing representation starts
};

class NaiveHpackDecoder {
 public:
  NaiveHpackDecoder(std::uint32_t max_table_size, std::uint32_t max_header_list_size,
                    std::size_t max_fields)
      : limit_(max_table_size),
        settings_max_(max_table_size),
        max_size_(max_table_size),
        max_list_(max_header_list_size),
        max_fields_(max_fields) {}

  bool set_max_table_size(std::uint32_t limit) {
    if (limit > settings_max_) return false;
    limit_ = limit;
    if (limit < max_size_) update_required_ = true;
    return true;
  }

  // Newest first, as the dynamic table's indices 62, 63, ...
  const std::deque<std::pair<std::string, std::string>>& table() const { return table_; }
  std::size_t table_size() const {
    std::size_t s = 0;
    for (const auto& [n, v] : table_) s += n.size() + v.size() + 32;
    return s;
  }

  NaiveHpackResult decode(std::string_view block) {
    using http2::HpackStatus;
    NaiveHpackResult r;
    if (failed_ != HpackStatus::kOk) {
      r.status = failed_;
      return r;
    }
    std::size_t pos = 0;
    bool at_start = true;
    HpackStatus stream = HpackStatus::kOk;
    std::size_t stream_at = 0;
    std::size_t list = 0;
    std::vector<HpackField> fields;
    auto fail = [&](HpackStatus s, std::size_t at) {
      failed_ = s;
      r.status = s;
      r.offset = at;
      return r;
    };
    while (pos < block.size()) {
      const std::size_t start = pos;
      const auto b = static_cast<unsigned char>(block[pos]);
      HpackField f;
      bool index = false;
      if ((b & 0xe0) == 0x20) {
        if (!at_start) return fail(HpackStatus::kSizeUpdateNotAtStart, start);
        std::uint64_t size;
        if (auto s = integer(block, pos, 5, size); s != HpackStatus::kOk) return fail(s, start);
        if (size > limit_) return fail(HpackStatus::kSizeUpdateTooLarge, start);
        max_size_ = static_cast<std::uint32_t>(size);
        while (table_size() > max_size_) table_.pop_back();
        update_required_ = false;
        continue;
      }
      if (update_required_) return fail(HpackStatus::kSizeUpdateMissing, start);
      at_start = false;
      if (b & 0x80) {
        std::uint64_t i;
        if (auto s = integer(block, pos, 7, i); s != HpackStatus::kOk) return fail(s, start);
        if (i == 0) return fail(HpackStatus::kIndexZero, start);
        if (!entry(i, f.name, f.value)) return fail(HpackStatus::kIndexOutOfRange, start);
      } else {
        index = (b & 0x40) != 0;
        f.never_indexed = !index && (b & 0x10) != 0;
        std::uint64_t i;
        if (auto s = integer(block, pos, index ? 6 : 4, i); s != HpackStatus::kOk)
          return fail(s, start);
        if (i == 0) {
          if (auto s = string(block, pos, f.name); s != HpackStatus::kOk) return fail(s, start);
        } else {
          std::string ignored;
          if (!entry(i, f.name, ignored)) return fail(HpackStatus::kIndexOutOfRange, start);
        }
        if (auto s = string(block, pos, f.value); s != HpackStatus::kOk) return fail(s, start);
      }
      const std::size_t size = f.name.size() + f.value.size() + 32;
      if (stream == HpackStatus::kOk) {
        if (list + size > max_list_) {
          stream = HpackStatus::kHeaderListTooLarge;
          stream_at = start;
        } else if (fields.size() == max_fields_) {
          stream = HpackStatus::kTooManyFields;
          stream_at = start;
        }
      }
      if (index) {
        while (!table_.empty() && table_size() + size > max_size_) table_.pop_back();
        if (size <= max_size_) table_.emplace_front(f.name, f.value);
      }
      if (stream == HpackStatus::kOk) {
        list += size;
        fields.push_back(std::move(f));
      }
    }
    if (update_required_) return fail(HpackStatus::kSizeUpdateMissing, pos);
    if (stream != HpackStatus::kOk) {
      r.status = stream;
      r.offset = stream_at;
      return r;
    }
    r.fields = std::move(fields);
    return r;
  }

  // Appendix B decoding one bit at a time; the status as gatecore reports it.
  static http2::HpackStatus huffman(std::string_view in, std::string& out) {
    static const std::map<std::pair<unsigned, std::uint32_t>, unsigned> codes = [] {
      std::map<std::pair<unsigned, std::uint32_t>, unsigned> m;
      for (unsigned s = 0; s < kAppendixB.size(); ++s)
        m[{kAppendixB[s].second, kAppendixB[s].first}] = s;
      return m;
    }();
    unsigned len = 0;
    std::uint32_t code = 0;
    for (const char c : in) {
      for (int bit = 7; bit >= 0; --bit) {
        code = code << 1 | ((static_cast<unsigned char>(c) >> bit) & 1u);
        ++len;
        const auto it = codes.find({len, code});
        if (it == codes.end()) continue;
        if (it->second == 256) return http2::HpackStatus::kHuffmanEos;
        out.push_back(static_cast<char>(it->second));
        len = 0;
        code = 0;
      }
    }
    if (len > 7 || code != (1u << len) - 1) return http2::HpackStatus::kHuffmanPadding;
    return http2::HpackStatus::kOk;
  }

 private:
  static http2::HpackStatus integer(std::string_view b, std::size_t& pos, unsigned prefix,
                                    std::uint64_t& v) {
    const std::uint64_t max = (1u << prefix) - 1;
    v = static_cast<unsigned char>(b[pos++]) & max;
    if (v < max) return http2::HpackStatus::kOk;
    for (int k = 0;; ++k) {
      if (pos == b.size()) return http2::HpackStatus::kTruncated;
      const auto c = static_cast<unsigned char>(b[pos++]);
      v += static_cast<std::uint64_t>(c & 0x7f) << (7 * k);
      if (v > 0xffffffffu) return http2::HpackStatus::kIntegerOverflow;
      if (!(c & 0x80)) return http2::HpackStatus::kOk;
      if (k == 4) return http2::HpackStatus::kIntegerOverflow;
    }
  }

  static http2::HpackStatus string(std::string_view b, std::size_t& pos, std::string& out) {
    if (pos == b.size()) return http2::HpackStatus::kTruncated;
    const bool h = (static_cast<unsigned char>(b[pos]) & 0x80) != 0;
    std::uint64_t len;
    if (auto s = integer(b, pos, 7, len); s != http2::HpackStatus::kOk) return s;
    if (len > b.size() - pos) return http2::HpackStatus::kTruncated;
    const std::string_view raw = b.substr(pos, len);
    pos += len;
    if (!h) {
      out = std::string(raw);
      return http2::HpackStatus::kOk;
    }
    return huffman(raw, out);
  }

  bool entry(std::uint64_t i, std::string& name, std::string& value) const {
    if (i <= http2::kStaticEntries) {
      name = std::string(http2::kStaticTable[i - 1].name);
      value = std::string(http2::kStaticTable[i - 1].value);
      return true;
    }
    if (i - http2::kStaticEntries - 1 >= table_.size()) return false;
    const auto& e = table_[i - http2::kStaticEntries - 1];
    name = e.first;
    value = e.second;
    return true;
  }

  std::uint32_t limit_;
  std::uint32_t settings_max_;
  std::uint32_t max_size_;
  std::uint32_t max_list_;
  std::size_t max_fields_;
  bool update_required_ = false;
  http2::HpackStatus failed_ = http2::HpackStatus::kOk;
  std::deque<std::pair<std::string, std::string>> table_;
};

}  // namespace gatebench::peers
