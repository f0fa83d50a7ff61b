// One stored response as bytes: a fixed header (expiry, age origin, lengths), the key (method,
// lower-cased host, target), the Vary section (each varied header's name and the request's value
// when stored) and the response. The memory store keeps one such block per entry; a remote store
// (the gateway's Redis store) keeps the same bytes as a value, so both answer a request by the
// same matching rules.
//
// Contract: no I/O; nothing allocates (the caller provides the bytes). entry_lookup and
// entry_primary_matches read an entry this file wrote; entry_valid checks bytes from outside the
// process (a value read back from Redis) before either is used on them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "micro/core/cache/freshness.hpp"
#include "micro/core/cache/key.hpp"

namespace gatebench::cache {

inline constexpr std::size_t kMaxVaryNames = 8;
inline constexpr std::size_t kMaxKeyPart = 65535;  // host or target bytes
inline constexpr std::size_t kMaxVaryName = 64;
inline constexpr std::size_t kMaxVaryValue = 65534;  // one varied header's combined value

enum class LookupStatus : std::uint8_t { kMiss, kHit, kStale };

struct LookupResult {
  LookupStatus status = LookupStatus::kMiss;
  std::string_view response;  // kHit and kStale: the stored bytes
  std::uint32_t age_s = 0;    // kHit and kStale: the Age to send (age at store + time stored)
};

enum class InsertStatus : std::uint8_t {
  kStored,
  kNotStorable,  // the Freshness given says not storable
  kTooLarge,     // over max_entry_bytes or max_bytes
  kBadVary,      // Vary: not a token list, "*", over kMaxVaryNames names, a name over
                 // kMaxVaryName bytes or a request value over kMaxVaryValue
  kBadKey,       // method not GET/HEAD, or host or target over kMaxKeyPart bytes
};

// "stored", "not-storable", "too-large", "bad-vary", "bad-key".
std::string_view insert_status_name(InsertStatus s) noexcept;

// Sizes and then writes the entry of one response. `key` and the views must stay valid between
// plan() and write().
class EntryWriter {
 public:
  // kStored when the entry can be written (size() bytes), else why not; kTooLarge over max_size.
  InsertStatus plan(const RequestKey& key, const Freshness& freshness,
                    std::span<const std::string_view> vary_lines, std::string_view response,
                    std::size_t max_size) noexcept;
  std::size_t size() const noexcept { return size_; }
  // Exactly size() bytes into out, after plan() returned kStored.
  void write(std::byte* out, std::int64_t now_s) const noexcept;

 private:
  const RequestKey* key_ = nullptr;
  Freshness freshness_;
  std::string_view response_;
  std::array<std::string_view, kMaxVaryNames> names_{};
  std::array<std::optional<std::size_t>, kMaxVaryNames> value_lengths_{};
  std::size_t name_count_ = 0;
  std::size_t vary_len_ = 0;
  std::size_t size_ = 0;
};

// The entry's whole size, from its header.
std::uint32_t entry_size(const std::byte* entry) noexcept;

// Whether the entry was stored for this method, host (ASCII case-insensitive) and target.
bool entry_primary_matches(const std::byte* entry, const RequestKey& key) noexcept;

// For an entry whose primary key matched: kMiss when the request's values of the varied headers
// differ from the stored ones (missing differs from empty), else kHit (now < expiry) or kStale,
// with the response and the Age to send.
LookupResult entry_lookup(const std::byte* entry, const RequestKey& key,
                          std::int64_t now_s) noexcept;

// True when `bytes` is exactly one entry: its header's lengths add up to its size, its method is
// GET or HEAD, and its Vary section is well formed.
bool entry_valid(std::span<const std::byte> bytes) noexcept;

}  // namespace gatebench::cache
