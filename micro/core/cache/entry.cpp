#include "micro/core/cache/entry.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace gatebench::cache {
namespace {

constexpr std::uint16_t kAbsent = 0xFFFF;  // a Vary value length: the request had no such header

// The start of every entry, copied in and out with memcpy; host, target, the Vary section and
// the response follow it. Vary section, per name: u16 length, name (lower case), u16 value length
// or kAbsent, value (the request's lines of that name joined with ", ").
struct EntryHeader {
  std::int64_t expires_at;
  std::int64_t age_origin;  // now - Age at insert: the Age to send is now - age_origin
  std::uint32_t size;       // the whole entry
  std::uint32_t response_len;
  std::uint32_t vary_len;
  std::uint16_t host_len;
  std::uint16_t target_len;
  std::uint8_t method;
  std::uint8_t vary_count;
};

EntryHeader header_of(const std::byte* entry) noexcept {
  EntryHeader h;
  std::memcpy(&h, entry, sizeof(h));
  return h;
}

const char* chars(const std::byte* p) noexcept {
  return reinterpret_cast<const char*>(p);
}

std::uint16_t load16(const char* p) noexcept {
  std::uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

char* store16(char* p, std::uint16_t v) noexcept {
  std::memcpy(p, &v, sizeof(v));
  return p + sizeof(v);
}

// The request's value of one varied header: its lines joined with ", ", or nullopt (absent).
std::optional<std::size_t> combined_length(std::span<const Header> headers,
                                           std::string_view lower_name) noexcept {
  std::optional<std::size_t> n;
  for (const Header& h : headers) {
    if (equals_lower(h.name, lower_name)) n = (n ? *n + 2 : 0) + h.value.size();
  }
  return n;
}

bool combined_equals(std::span<const Header> headers, std::string_view lower_name,
                     std::string_view stored) noexcept {
  std::size_t off = 0;
  bool first = true;
  for (const Header& h : headers) {
    if (!equals_lower(h.name, lower_name)) continue;
    if (!first) {
      if (stored.substr(off, 2) != ", ") return false;
      off += 2;
    }
    if (stored.substr(off, h.value.size()) != h.value) return false;
    off += h.value.size();
    first = false;
  }
  return !first && off == stored.size();
}

bool has_header(std::span<const Header> headers, std::string_view lower_name) noexcept {
  return std::any_of(headers.begin(), headers.end(),
                     [lower_name](const Header& h) { return equals_lower(h.name, lower_name); });
}

bool vary_matches(const char* section, std::size_t count,
                  std::span<const Header> headers) noexcept {
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint16_t name_len = load16(section);
    const std::string_view name(section + 2, name_len);
    section += 2 + name_len;
    const std::uint16_t value_len = load16(section);
    section += 2;
    if (value_len == kAbsent) {
      if (has_header(headers, name)) return false;
    } else {
      if (!combined_equals(headers, name, {section, value_len})) return false;
      section += value_len;
    }
  }
  return true;
}

}  // namespace

std::string_view insert_status_name(InsertStatus s) noexcept {
  switch (s) {
    case InsertStatus::kStored:
      return "stored";
    case InsertStatus::kNotStorable:
      return "not-storable";
    case InsertStatus::kTooLarge:
      return "too-large";
    case InsertStatus::kBadVary:
      return "bad-vary";
    case InsertStatus::kBadKey:
      return "bad-key";
  }
  return "unknown";
}

InsertStatus EntryWriter::plan(const RequestKey& key, const Freshness& freshness,
                               std::span<const std::string_view> vary_lines,
                               std::string_view response, std::size_t max_size) noexcept {
  size_ = 0;
  if (!freshness.storable()) return InsertStatus::kNotStorable;
  if (key.method == Method::kOther || key.host.size() > kMaxKeyPart ||
      key.target.size() > kMaxKeyPart)
    return InsertStatus::kBadKey;
  const std::optional<std::size_t> name_count = vary_names(vary_lines, names_);
  if (!name_count) return InsertStatus::kBadVary;
  std::size_t vary_len = 0;
  for (std::size_t k = 0; k < *name_count; ++k) {
    if (names_[k] == "*" || names_[k].size() > kMaxVaryName) return InsertStatus::kBadVary;
    std::array<char, kMaxVaryName> lower;
    copy_lower(names_[k], lower);
    value_lengths_[k] = combined_length(key.headers, {lower.data(), names_[k].size()});
    if (value_lengths_[k] && *value_lengths_[k] > kMaxVaryValue) return InsertStatus::kBadVary;
    vary_len += 4 + names_[k].size() + value_lengths_[k].value_or(0);
  }
  const std::size_t size =
      sizeof(EntryHeader) + key.host.size() + key.target.size() + vary_len + response.size();
  if (size > max_size || size > std::numeric_limits<std::uint32_t>::max())
    return InsertStatus::kTooLarge;
  key_ = &key;
  freshness_ = freshness;
  response_ = response;
  name_count_ = *name_count;
  vary_len_ = vary_len;
  size_ = size;
  return InsertStatus::kStored;
}

void EntryWriter::write(std::byte* out, std::int64_t now_s) const noexcept {
  const RequestKey& key = *key_;
  const EntryHeader h{.expires_at = now_s + freshness_.ttl_s(),
                      .age_origin = now_s - freshness_.age_s,
                      .size = static_cast<std::uint32_t>(size_),
                      .response_len = static_cast<std::uint32_t>(response_.size()),
                      .vary_len = static_cast<std::uint32_t>(vary_len_),
                      .host_len = static_cast<std::uint16_t>(key.host.size()),
                      .target_len = static_cast<std::uint16_t>(key.target.size()),
                      .method = static_cast<std::uint8_t>(key.method),
                      .vary_count = static_cast<std::uint8_t>(name_count_)};
  std::memcpy(out, &h, sizeof(h));
  char* p = reinterpret_cast<char*>(out + sizeof(EntryHeader));
  copy_lower(key.host, {p, key.host.size()});
  p += key.host.size();
  if (!key.target.empty()) std::memcpy(p, key.target.data(), key.target.size());
  p += key.target.size();
  for (std::size_t k = 0; k < name_count_; ++k) {
    p = store16(p, static_cast<std::uint16_t>(names_[k].size()));
    copy_lower(names_[k], {p, names_[k].size()});
    const std::string_view lower(p, names_[k].size());
    p += names_[k].size();
    if (!value_lengths_[k]) {
      p = store16(p, kAbsent);
      continue;
    }
    p = store16(p, static_cast<std::uint16_t>(*value_lengths_[k]));
    bool first = true;
    for (const Header& hd : key.headers) {
      if (!equals_lower(hd.name, lower)) continue;
      if (!first) {
        std::memcpy(p, ", ", 2);
        p += 2;
      }
      std::memcpy(p, hd.value.data(), hd.value.size());
      p += hd.value.size();
      first = false;
    }
  }
  if (!response_.empty()) std::memcpy(p, response_.data(), response_.size());
}

std::uint32_t entry_size(const std::byte* entry) noexcept {
  return header_of(entry).size;
}

bool entry_primary_matches(const std::byte* entry, const RequestKey& key) noexcept {
  const EntryHeader h = header_of(entry);
  if (h.method != static_cast<std::uint8_t>(key.method) || h.host_len != key.host.size() ||
      h.target_len != key.target.size())
    return false;
  const char* p = chars(entry + sizeof(EntryHeader));
  return equals_lower(key.host, {p, h.host_len}) &&
         std::memcmp(key.target.data(), p + h.host_len, h.target_len) == 0;
}

LookupResult entry_lookup(const std::byte* entry, const RequestKey& key,
                          std::int64_t now_s) noexcept {
  LookupResult r;
  const EntryHeader h = header_of(entry);
  const char* vary = chars(entry + sizeof(EntryHeader)) + h.host_len + h.target_len;
  if (h.vary_count != 0 && !vary_matches(vary, h.vary_count, key.headers)) return r;
  r.response = {vary + h.vary_len, h.response_len};
  // A Redis value's age origin is any 64-bit number: the difference saturates (a far-past origin
  // is the oldest age) instead of overflowing.
  std::int64_t elapsed = 0;
  if (__builtin_sub_overflow(now_s, h.age_origin, &elapsed)) {
    elapsed = h.age_origin < 0 ? std::numeric_limits<std::int64_t>::max() : 0;
  }
  const std::int64_t age =
      std::clamp<std::int64_t>(elapsed, 0, std::numeric_limits<std::uint32_t>::max());
  r.age_s = static_cast<std::uint32_t>(age);
  r.status = now_s >= h.expires_at ? LookupStatus::kStale : LookupStatus::kHit;
  return r;
}

bool entry_valid(std::span<const std::byte> bytes) noexcept {
  if (bytes.size() < sizeof(EntryHeader)) return false;
  const EntryHeader h = header_of(bytes.data());
  if (h.size != bytes.size() || h.method > static_cast<std::uint8_t>(Method::kHead) ||
      h.vary_count > kMaxVaryNames)
    return false;
  const std::uint64_t parts =
      std::uint64_t{sizeof(EntryHeader)} + h.host_len + h.target_len + h.vary_len + h.response_len;
  if (parts != h.size) return false;
  const char* p = chars(bytes.data() + sizeof(EntryHeader)) + h.host_len + h.target_len;
  std::size_t left = h.vary_len;
  for (std::size_t k = 0; k < h.vary_count; ++k) {
    if (left < 2) return false;
    const std::uint16_t name_len = load16(p);
    if (name_len > kMaxVaryName || left < 4u + name_len) return false;
    p += 2 + name_len;
    const std::uint16_t value_len = load16(p);
    p += 2;
    left -= 4u + name_len;
    if (value_len == kAbsent) continue;
    if (left < value_len) return false;
    p += value_len;
    left -= value_len;
  }
  return left == 0;
}

}  // namespace gatebench::cache
