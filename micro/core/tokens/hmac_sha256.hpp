// HMAC-SHA256 (RFC 2104) with the key's inner and outer states computed once, at construction:
// each MAC then costs only the compressions of the message plus one for the outer hash, which for
// a message of at most 55 bytes is the floor of two compressions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "micro/core/tokens/sha256.hpp"

namespace gatebench::tokens {

// The longest message whose inner hash, after the precomputed key block, fits one block.
inline constexpr std::size_t kHmacShortMessageMax = 55;

class HmacSha256Key {
 public:
  // Any key length (keys longer than a block are hashed first, as RFC 2104 says).
  explicit HmacSha256Key(std::span<const std::uint8_t> key);

  // Any message length; no allocation.
  Sha256Digest mac(std::span<const std::uint8_t> message) const;
  // Precondition: message.size() <= kHmacShortMessageMax. Exactly two compressions.
  Sha256Digest mac_short(std::span<const std::uint8_t> message) const;

  // The same MACs as final state words, for a caller that compares them with
  // digest_matches_tag() instead of serialising the digest.
  Sha256State mac_state(std::span<const std::uint8_t> message) const;
  Sha256State mac_short_state(std::span<const std::uint8_t> message) const;

 private:
  Sha256State outer_state(const Sha256State& inner_done) const;

  Sha256State inner_;
  Sha256State outer_;
};

// Whether the first tag.size() bytes of the digest held in `digest` equal `tag`, in time that
// depends on tag.size() only. Precondition: tag.size() is a multiple of 4, at most 32.
bool digest_matches_tag(const Sha256State& digest, std::span<const std::uint8_t> tag);

// Constant-time equality of two equal-length byte ranges: the time depends on the length only,
// never on where the first difference is.
bool constant_time_equal(const std::uint8_t* a, const std::uint8_t* b, std::size_t size);

}  // namespace gatebench::tokens
