// Minting and verifying gatecore's signed tokens (layout in format.hpp, docs/tokens.md):
// admission cookies of an access queue and client-bound pass cookies of a challenge.
//
// verify_* never allocate, and check in this order: syntax (malformed, wrong_kind), key id
// (unknown_key), tag (bad_signature, compared in constant time), expiry (expired), and for a
// pass the client binding (wrong_binding). Fields are trusted only after the tag matched.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "micro/core/tokens/format.hpp"
#include "micro/core/tokens/key_ring.hpp"
#include "micro/core/tokens/status.hpp"

namespace gatebench::tokens {

// A minted token's text, held inline so minting allocates nothing either.
struct TokenText {
  std::array<char, kTokenMaxText> chars;
  std::size_t size;
  std::string_view view() const { return {chars.data(), size}; }
};

struct AdmissionClaims {
  std::uint32_t expiry;
  std::uint32_t queue_id;
  std::uint64_t ticket;
};

// Mint with the ring's current key. Throws std::logic_error when the ring has no current key.
TokenText mint_admission(const TokenKeyRing& ring, std::uint32_t expiry, std::uint32_t queue_id,
                         std::uint64_t ticket);
TokenText mint_pass(const TokenKeyRing& ring, std::uint32_t expiry, std::uint32_t client_ipv4,
                    std::string_view user_agent);

// An admission bound to a client as a pass is: the 8-byte ticket field carries the upper 32 bits
// of the client binding (binding.hpp) above a 32-bit ticket number, so the layout stays that of
// an admission token. Verify answers wrong_binding for another address or User-Agent; on ok,
// claims->ticket is the 32-bit ticket number. 32 bits of binding leave a client holding someone
// else's cookie online guessing at 2^-32 per request (docs/tokens.md).
TokenText mint_bound_admission(const TokenKeyRing& ring, std::uint32_t expiry,
                               std::uint32_t queue_id, std::uint32_t ticket,
                               std::uint32_t client_ipv4, std::string_view user_agent);
VerifyStatus verify_bound_admission(const TokenKeyRing& ring, std::string_view token,
                                    std::uint64_t now, std::uint32_t client_ipv4,
                                    std::string_view user_agent, AdmissionClaims* claims = nullptr);

// `now` in unix seconds. On ok, *claims (when given) receives the verified fields.
VerifyStatus verify_admission(const TokenKeyRing& ring, std::string_view token, std::uint64_t now,
                              AdmissionClaims* claims = nullptr);
VerifyStatus verify_pass(const TokenKeyRing& ring, std::string_view token, std::uint64_t now,
                         std::uint32_t client_ipv4, std::string_view user_agent);

}  // namespace gatebench::tokens
