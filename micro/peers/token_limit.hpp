// The floor of a token verify: the two SHA-256 block compressions any HMAC-SHA256 of a message
// under 56 bytes needs (inner block, then outer block), with nothing else. Computed with
// OpenSSL's SHA256_Transform, independent of gatecore's own kernel, so a slower gatecore kernel
// shows up as a ratio instead of moving the floor with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace gatebench::peers {

// `blocks` consecutive 64-byte blocks, each compressed after the previous one (the data
// dependency of HMAC's outer hash on its inner hash), into the returned first state word.
std::uint32_t sha256_chained_compressions(const std::uint8_t* blocks, std::size_t count);

}  // namespace gatebench::peers
