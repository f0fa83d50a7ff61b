// The client binding of a pass token: SipHash-2-4 of (client IPv4 address, User-Agent) under a
// secret per-key binding key.
//
// Why SipHash and not a truncated SHA-256: the binding is recomputed on every verify, over a
// User-Agent of typically 100-150 bytes, which SHA-256 needs 2-3 compressions for (as much again
// as the HMAC itself). The binding needs only to be unpredictable to a client who holds someone
// else's pass token: SipHash is a PRF under a 128-bit secret key, so without the key a client
// cannot choose a User-Agent that matches a stolen token's binding except by online guessing
// (2^-64 per request). An unkeyed fast hash would not do: a second preimage would be easy.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace gatebench::tokens {

struct SipKey {
  std::uint64_t k0 = 0;
  std::uint64_t k1 = 0;
};

// Plain SipHash-2-4 of a contiguous message (the reference the test vectors are written for).
std::uint64_t siphash24(const SipKey& key, std::span<const std::uint8_t> message);

// SipHash-2-4 of the 4 address bytes in network order followed by the User-Agent bytes,
// without copying them together. `ipv4` is in host order (192.0.2.1 == 0xC0000201).
std::uint64_t client_binding(const SipKey& key, std::uint32_t ipv4, std::string_view user_agent);

}  // namespace gatebench::tokens
