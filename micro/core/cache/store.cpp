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
constexpr std::size_t kNpos = std::numeric_limits<std::size_t>::max();

}  // namespace

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
    if (entry_primary_matches(slots_[i].block.get(), key)) return i;
  }
  return kNpos;
}

LookupResult MemoryStore::lookup(const RequestKey& key, std::uint64_t hash,
                                 std::int64_t now_s) noexcept {
  const std::size_t i = find(key, hash);
  if (i == kNpos) return {};
  const LookupResult r = entry_lookup(slots_[i].block.get(), key, now_s);
  if (r.status == LookupStatus::kHit) slots_[i].tag |= kReferenced;
  return r;
}

InsertStatus MemoryStore::insert(const RequestKey& key, std::uint64_t hash,
                                 const Freshness& freshness,
                                 std::span<const std::string_view> vary_lines,
                                 std::string_view response, std::int64_t now_s) {
  EntryWriter writer;
  const InsertStatus st =
      writer.plan(key, freshness, vary_lines, response, limits_.max_entry_bytes);
  if (st != InsertStatus::kStored) return st;
  const std::size_t size = writer.size();
  if (const std::size_t old = find(key, hash); old != kNpos) erase_at(old);
  while (count_ >= limits_.max_entries || bytes_ + size > limits_.max_bytes) evict_one();

  auto block = std::make_unique_for_overwrite<std::byte[]>(size);
  writer.write(block.get(), now_s);
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
  bytes_ -= entry_size(slots_[i].block.get());
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
