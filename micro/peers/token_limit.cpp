#include "micro/peers/token_limit.hpp"

#include <openssl/sha.h>

#include <cstring>

namespace gatebench::peers {

std::uint32_t sha256_chained_compressions(const std::uint8_t* blocks, std::size_t count) {
  // SHA256_Init/SHA256_Transform are deprecated in OpenSSL 3 but remain the only public way to
  // run a bare compression; the deprecation is silenced for these calls only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  std::uint8_t block[64];
  for (std::size_t i = 0; i < count; ++i) {
    std::memcpy(block, blocks + 64 * i, 64);
    // As in HMAC, the next block depends on the previous state, so compressions cannot overlap.
    block[0] ^= static_cast<std::uint8_t>(ctx.h[0]);
    SHA256_Transform(&ctx, block);
  }
#pragma GCC diagnostic pop
  return ctx.h[0];
}

}  // namespace gatebench::peers
