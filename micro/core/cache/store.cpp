#include "micro/core/cache/store.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

namespace gatebench::cache {
namespace {

constexpr std::uint64_t kReferenced = std::uint64_t{1} << 63;
constexpr std::uint64_t kHashBits = ~kReferenced;
constexpr std::uint16_t kAbsent = 0xFFFF;  // a Vary value length: the request had no such header
constexpr std::size_t kNpos = std::numeric_limits<std::size_t>::max();

// The start of every block, copied in and out with memcpy; host, target, the Vary section and the
// response follow it. Vary section, per name: u16 length, name (lower case), u16 value length or
// kAbsent, value (the request's lines of that name joined with ", ").
struct BlockHeader {
  std::int64_t expires_at;
  std::int64_t age_origin;  // now - Age at insert: the Age to send is now - age_origin
  std::uint32_t size;       // the whole block
  std::uint32_t response_len;
  std::uint32_t vary_len;
  std::uint16_t host_len;
  std::uint16_t target_len;
  std::uint8_t method;
  std::uint8_t vary_count;
};

BlockHeader header_of(const std::byte* block) noexcept {
  BlockHeader h;
  std::memcpy(&h, block, sizeof(h));
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

bool primary_matches(const std::byte* block, const BlockHeader& h, const RequestKey& key) noexcept {
  if (h.method != static_cast<std::uint8_t>(key.method) || h.host_len != key.host.size() ||
      h.target_len != key.target.size())
    return false;
  const char* p = chars(block + sizeof(BlockHeader));
  return equals_lower(key.host, {p, h.host_len}) &&
         std::memcmp(key.target.data(), p + h.host_len, h.target_len) == 0;
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

MemoryStore::MemoryStore(const StoreLimits& limits) : limits_(limits) {
  if (limits.max_bytes == 0) throw std::invalid_argument("cache: max_bytes must be > 0");
  if (limits.max_entries == 0) throw std::invalid_argument("cache: max_entries must be > 0");
  if (limits.max_entry_bytes == 0)
    throw std::invalid_argument("cache: max_entry_bytes must be > 0");
  if (limits.max_entries > (std::size_t{1} << 30))
    throw std::invalid_argument("cache: max_entries must be <= 2^30");
  limits_.max_entry_bytes = std::min({limits.max_entry_bytes, limits.max_bytes,
                                      std::size_t{std::numeric_limits<std::uint32_t>::max()}});
  // At most half full: linear probes stay short and every probe ends at an empty slot.
  slots_.resize(std::max<std::size_t>(8, std::bit_ceil(limits.max_entries * 2)));
  mask_ = slots_.size() - 1;
}

std::size_t MemoryStore::memory_bytes() const noexcept {
  return bytes_ + slots_.size() * sizeof(Slot);
}

std::size_t MemoryStore::find(const RequestKey& key, std::uint64_t hash) const noexcept {
  const std::uint64_t tag = hash & kHashBits;
  for (std::size_t i = hash & mask_; slots_[i].block; i = (i + 1) & mask_) {
    if ((slots_[i].tag & kHashBits) != tag) continue;
    const std::byte* block = slots_[i].block.get();
    if (primary_matches(block, header_of(block), key)) return i;
  }
  return kNpos;
}

LookupResult MemoryStore::lookup(const RequestKey& key, std::uint64_t hash,
                                 std::int64_t now_s) noexcept {
  LookupResult r;
  const std::size_t i = find(key, hash);
  if (i == kNpos) return r;
  const std::byte* block = slots_[i].block.get();
  const BlockHeader h = header_of(block);
  const char* vary = chars(block + sizeof(BlockHeader)) + h.host_len + h.target_len;
  if (h.vary_count != 0 && !vary_matches(vary, h.vary_count, key.headers)) return r;
  r.response = {vary + h.vary_len, h.response_len};
  const std::int64_t age =
      std::clamp<std::int64_t>(now_s - h.age_origin, 0, std::numeric_limits<std::uint32_t>::max());
  r.age_s = static_cast<std::uint32_t>(age);
  if (now_s >= h.expires_at) {
    r.status = LookupStatus::kStale;
  } else {
    r.status = LookupStatus::kHit;
    slots_[i].tag |= kReferenced;
  }
  return r;
}

InsertStatus MemoryStore::insert(const RequestKey& key, std::uint64_t hash,
                                 const Freshness& freshness,
                                 std::span<const std::string_view> vary_lines,
                                 std::string_view response, std::int64_t now_s) {
  if (!freshness.storable()) return InsertStatus::kNotStorable;
  if (key.method == Method::kOther || key.host.size() > kMaxKeyPart ||
      key.target.size() > kMaxKeyPart)
    return InsertStatus::kBadKey;
  std::array<std::string_view, kMaxVaryNames> names;
  const std::optional<std::size_t> name_count = vary_names(vary_lines, names);
  if (!name_count) return InsertStatus::kBadVary;
  std::array<std::optional<std::size_t>, kMaxVaryNames> value_lengths;
  std::size_t vary_len = 0;
  for (std::size_t k = 0; k < *name_count; ++k) {
    if (names[k] == "*" || names[k].size() > kMaxVaryName) return InsertStatus::kBadVary;
    std::array<char, kMaxVaryName> lower;
    copy_lower(names[k], lower);
    value_lengths[k] = combined_length(key.headers, {lower.data(), names[k].size()});
    if (value_lengths[k] && *value_lengths[k] > kMaxVaryValue) return InsertStatus::kBadVary;
    vary_len += 4 + names[k].size() + value_lengths[k].value_or(0);
  }
  const std::size_t size =
      sizeof(BlockHeader) + key.host.size() + key.target.size() + vary_len + response.size();
  if (size > limits_.max_entry_bytes) return InsertStatus::kTooLarge;

  if (const std::size_t old = find(key, hash); old != kNpos) erase_at(old);
  while (count_ >= limits_.max_entries || bytes_ + size > limits_.max_bytes) evict_one();

  auto block = std::make_unique_for_overwrite<std::byte[]>(size);
  const BlockHeader h{.expires_at = now_s + freshness.ttl_s(),
                      .age_origin = now_s - freshness.age_s,
                      .size = static_cast<std::uint32_t>(size),
                      .response_len = static_cast<std::uint32_t>(response.size()),
                      .vary_len = static_cast<std::uint32_t>(vary_len),
                      .host_len = static_cast<std::uint16_t>(key.host.size()),
                      .target_len = static_cast<std::uint16_t>(key.target.size()),
                      .method = static_cast<std::uint8_t>(key.method),
                      .vary_count = static_cast<std::uint8_t>(*name_count)};
  std::memcpy(block.get(), &h, sizeof(h));
  char* p = reinterpret_cast<char*>(block.get() + sizeof(BlockHeader));
  copy_lower(key.host, {p, key.host.size()});
  p += key.host.size();
  std::memcpy(p, key.target.data(), key.target.size());
  p += key.target.size();
  for (std::size_t k = 0; k < *name_count; ++k) {
    p = store16(p, static_cast<std::uint16_t>(names[k].size()));
    copy_lower(names[k], {p, names[k].size()});
    const std::string_view lower(p, names[k].size());
    p += names[k].size();
    if (!value_lengths[k]) {
      p = store16(p, kAbsent);
      continue;
    }
    p = store16(p, static_cast<std::uint16_t>(*value_lengths[k]));
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
  std::memcpy(p, response.data(), response.size());

  std::size_t i = hash & mask_;
  while (slots_[i].block) i = (i + 1) & mask_;
  slots_[i].tag = hash & kHashBits;
  slots_[i].block = std::move(block);
  ++count_;
  bytes_ += size;
  return InsertStatus::kStored;
}

bool MemoryStore::erase(const RequestKey& key) noexcept {
  const std::size_t i = find(key, key_hash(key));
  if (i == kNpos) return false;
  erase_at(i);
  return true;
}

void MemoryStore::erase_at(std::size_t i) noexcept {
  bytes_ -= header_of(slots_[i].block.get()).size;
  --count_;
  slots_[i].block.reset();
  // Backward-shift deletion: move later entries of the probe run into the hole when their home
  // slot is not in (hole, j], so every entry stays reachable from its home without tombstones.
  for (std::size_t j = (i + 1) & mask_; slots_[j].block; j = (j + 1) & mask_) {
    const std::size_t home = slots_[j].tag & mask_;
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    slots_[i] = std::move(slots_[j]);
    i = j;
  }
}

void MemoryStore::evict_one() noexcept {
  for (;;) {
    Slot& s = slots_[hand_];
    if (s.block) {
      if ((s.tag & kReferenced) == 0) {
        erase_at(hand_);  // the hand stays: a later entry may have shifted into this slot
        ++evictions_;
        return;
      }
      s.tag &= ~kReferenced;
    }
    hand_ = (hand_ + 1) & mask_;
  }
}

}  // namespace gatebench::cache
