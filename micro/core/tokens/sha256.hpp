// SHA-256 (FIPS 180-4) as block compressions on an explicit state, so callers that keep a
// precomputed state (HMAC with a fixed key) pay only for the blocks of their message.
//
// Two compression kernels: SHA-NI (x86 SHA extensions) and a portable one. sha256_compress()
// picks SHA-NI once at startup when the CPU has it; the kernels are also exported so tests can
// check each against OpenSSL, whatever CPU they run on.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace gatebench::tokens {

inline constexpr std::size_t kSha256BlockSize = 64;
inline constexpr std::size_t kSha256DigestSize = 32;

using Sha256Digest = std::array<std::uint8_t, kSha256DigestSize>;

struct Sha256State {
  std::uint32_t h[8];
};

inline constexpr Sha256State kSha256Initial = {{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}};

// Compresses `blocks` consecutive 64-byte blocks into `state`.
void sha256_compress(Sha256State& state, const std::uint8_t* blocks, std::size_t blocks_count);
void sha256_compress_portable(Sha256State& state, const std::uint8_t* blocks,
                              std::size_t blocks_count);
// Precondition: sha256_has_shani().
void sha256_compress_shani(Sha256State& state, const std::uint8_t* blocks,
                           std::size_t blocks_count);
bool sha256_has_shani();

// One block given as its 16 message words (the big-endian reading of its 64 bytes): callers that
// build a block from state words (HMAC's outer hash) skip the byte round trip.
void sha256_compress_words(Sha256State& state, const std::uint32_t* words);
void sha256_compress_words_portable(Sha256State& state, const std::uint32_t* words);
void sha256_compress_words_shani(Sha256State& state, const std::uint32_t* words);

// Big-endian serialisation of the state words: the digest once the last block is compressed.
Sha256Digest sha256_state_bytes(const Sha256State& state);

// Continues from `state`, which has already absorbed `prefix_bytes` bytes (a multiple of 64),
// over `message`, adds the padding, and returns the digest. No allocation: at most two padding
// blocks live on the stack.
Sha256State sha256_finish_state(Sha256State state, std::uint64_t prefix_bytes,
                                std::span<const std::uint8_t> message);
inline Sha256Digest sha256_finish(const Sha256State& state, std::uint64_t prefix_bytes,
                                  std::span<const std::uint8_t> message) {
  return sha256_state_bytes(sha256_finish_state(state, prefix_bytes, message));
}

inline Sha256Digest sha256(std::span<const std::uint8_t> message) {
  return sha256_finish(kSha256Initial, 0, message);
}

}  // namespace gatebench::tokens
