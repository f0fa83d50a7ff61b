// SHA-256 kernels and the precomputed-state HMAC against OpenSSL on generated inputs.
#include "micro/core/tokens/hmac_sha256.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <cstring>
#include <vector>

#include "fixtures/rng.hpp"
#include "micro/core/tokens/sha256.hpp"

namespace gatebench::tokens {
namespace {

using fixtures::Rng;

std::vector<std::uint8_t> random_bytes(Rng& rng, std::size_t size) {
  std::vector<std::uint8_t> out(size);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng.next());
  return out;
}

Sha256Digest openssl_sha256(const std::vector<std::uint8_t>& m) {
  Sha256Digest d;
  SHA256(m.data(), m.size(), d.data());
  return d;
}

Sha256Digest openssl_hmac(const std::vector<std::uint8_t>& key,
                          const std::vector<std::uint8_t>& m) {
  Sha256Digest d;
  unsigned int size = 0;
  // OpenSSL refuses a null key pointer even for an empty key.
  static const std::uint8_t kEmpty[1] = {0};
  HMAC(EVP_sha256(), key.empty() ? kEmpty : key.data(), static_cast<int>(key.size()), m.data(),
       m.size(), d.data(), &size);
  EXPECT_EQ(size, d.size());
  return d;
}

TEST(Sha256, KnownAnswers) {
  const std::string_view abc = "abc";
  const Sha256Digest d = sha256({reinterpret_cast<const std::uint8_t*>(abc.data()), abc.size()});
  const std::uint8_t expected[] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
                                   0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
                                   0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  EXPECT_EQ(0, std::memcmp(d.data(), expected, 32));
}

// Every message length through two block boundaries, then random lengths: each one-shot digest
// must equal OpenSSL's (this exercises whichever kernel sha256_compress picked).
TEST(Sha256, MatchesOpenSslOnGeneratedMessages) {
  Rng rng(fixtures::kDefaultSeed ^ 0x5348);
  for (std::size_t size = 0; size <= 200; ++size) {
    const auto m = random_bytes(rng, size);
    ASSERT_EQ(sha256(m), openssl_sha256(m)) << "length " << size;
  }
  for (int i = 0; i < 3000; ++i) {
    const auto m = random_bytes(rng, rng.below(2000));
    ASSERT_EQ(sha256(m), openssl_sha256(m)) << "length " << m.size();
  }
}

// Both kernels directly, block by block, against the portable one and against OpenSSL's own
// SHA256_Transform, so a CPU without SHA-NI still tests the portable kernel and vice versa.
TEST(Sha256, KernelsAgreeBlockByBlock) {
  Rng rng(fixtures::kDefaultSeed ^ 0x4b45);
  for (int i = 0; i < 20000; ++i) {
    const std::size_t blocks = 1 + rng.below(4);
    const auto data = random_bytes(rng, blocks * kSha256BlockSize);
    Sha256State start;
    for (auto& w : start.h) w = static_cast<std::uint32_t>(rng.next());

    Sha256State portable = start;
    sha256_compress_portable(portable, data.data(), blocks);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    SHA256_CTX ctx;
    SHA256_Init(&ctx);
    std::memcpy(ctx.h, start.h, sizeof start.h);
    for (std::size_t b = 0; b < blocks; ++b) SHA256_Transform(&ctx, data.data() + 64 * b);
#pragma GCC diagnostic pop
    ASSERT_EQ(0, std::memcmp(portable.h, ctx.h, sizeof portable.h)) << "case " << i;

    if (sha256_has_shani()) {
      Sha256State shani = start;
      sha256_compress_shani(shani, data.data(), blocks);
      ASSERT_EQ(0, std::memcmp(portable.h, shani.h, sizeof portable.h)) << "case " << i;
    }
  }
}

TEST(Sha256, WordBlocksEqualTheirByteBlocks) {
  Rng rng(fixtures::kDefaultSeed ^ 0x574f);
  for (int i = 0; i < 5000; ++i) {
    const auto data = random_bytes(rng, kSha256BlockSize);
    std::uint32_t words[16];
    for (int t = 0; t < 16; ++t) {
      words[t] = (std::uint32_t{data[4 * t]} << 24) | (std::uint32_t{data[4 * t + 1]} << 16) |
                 (std::uint32_t{data[4 * t + 2]} << 8) | data[4 * t + 3];
    }
    Sha256State start;
    for (auto& w : start.h) w = static_cast<std::uint32_t>(rng.next());
    Sha256State from_bytes = start, portable = start, dispatched = start;
    sha256_compress_portable(from_bytes, data.data(), 1);
    sha256_compress_words_portable(portable, words);
    sha256_compress_words(dispatched, words);
    ASSERT_EQ(0, std::memcmp(from_bytes.h, portable.h, sizeof portable.h));
    ASSERT_EQ(0, std::memcmp(from_bytes.h, dispatched.h, sizeof portable.h));
    if (sha256_has_shani()) {
      Sha256State shani = start;
      sha256_compress_words_shani(shani, words);
      ASSERT_EQ(0, std::memcmp(from_bytes.h, shani.h, sizeof shani.h));
    }
  }
}

TEST(Sha256, FinishContinuesFromAPrefixState) {
  Rng rng(fixtures::kDefaultSeed ^ 0x4649);
  for (int i = 0; i < 500; ++i) {
    const auto m = random_bytes(rng, 64 * (1 + rng.below(3)) + rng.below(150));
    const std::size_t prefix_blocks = 1 + rng.below(m.size() / 64);
    Sha256State state = kSha256Initial;
    sha256_compress(state, m.data(), prefix_blocks);
    const std::span<const std::uint8_t> rest(m.data() + 64 * prefix_blocks,
                                             m.size() - 64 * prefix_blocks);
    ASSERT_EQ(sha256_finish(state, 64 * prefix_blocks, rest), openssl_sha256(m));
  }
}

TEST(HmacSha256, Rfc4231TestCase2) {
  const std::string_view key = "Jefe";
  const std::string_view data = "what do ya want for nothing?";
  const HmacSha256Key mac({reinterpret_cast<const std::uint8_t*>(key.data()), key.size()});
  const Sha256Digest d = mac.mac({reinterpret_cast<const std::uint8_t*>(data.data()), data.size()});
  const std::uint8_t expected[] = {0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24,
                                   0x26, 0x08, 0x95, 0x75, 0xc7, 0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27,
                                   0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43};
  EXPECT_EQ(0, std::memcmp(d.data(), expected, 32));
}

TEST(HmacSha256, MatchesOpenSslForKeyAndMessageLengths) {
  Rng rng(fixtures::kDefaultSeed ^ 0x484d);
  // Keys below, at and above the block size (longer keys are hashed first).
  for (std::size_t key_size : {0, 1, 16, 32, 63, 64, 65, 100, 200}) {
    const auto key = random_bytes(rng, key_size);
    const HmacSha256Key mac(key);
    for (std::size_t size = 0; size <= 300; ++size) {
      const auto m = random_bytes(rng, size);
      ASSERT_EQ(mac.mac(m), openssl_hmac(key, m)) << "key " << key_size << " message " << size;
      if (size <= kHmacShortMessageMax) {
        ASSERT_EQ(mac.mac_short(m), openssl_hmac(key, m))
            << "key " << key_size << " short " << size;
      }
    }
  }
  for (int i = 0; i < 5000; ++i) {
    const auto key = random_bytes(rng, 32);
    const auto m = random_bytes(rng, rng.below(kHmacShortMessageMax + 1));
    ASSERT_EQ(HmacSha256Key(key).mac_short(m), openssl_hmac(key, m));
  }
}

TEST(DigestMatchesTag, ComparesEveryByteOfThePrefix) {
  Rng rng(fixtures::kDefaultSeed ^ 0x5447);
  const auto key = random_bytes(rng, 32);
  const auto m = random_bytes(rng, 20);
  const HmacSha256Key mac(key);
  const Sha256State state = mac.mac_state(m);
  Sha256Digest digest = mac.mac(m);
  for (std::size_t size : {0, 4, 16, 32}) {
    EXPECT_TRUE(digest_matches_tag(state, {digest.data(), size}));
    for (std::size_t i = 0; i < size; ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        digest[i] ^= static_cast<std::uint8_t>(1u << bit);
        EXPECT_FALSE(digest_matches_tag(state, {digest.data(), size})) << size << ":" << i;
        digest[i] ^= static_cast<std::uint8_t>(1u << bit);
      }
    }
  }
}

TEST(ConstantTimeEqual, ComparesEveryByte) {
  std::uint8_t a[16] = {}, b[16] = {};
  EXPECT_TRUE(constant_time_equal(a, b, 16));
  for (int i = 0; i < 16; ++i) {
    b[i] = 1;
    EXPECT_FALSE(constant_time_equal(a, b, 16)) << i;
    b[i] = 0;
  }
  EXPECT_TRUE(constant_time_equal(a, b, 0));
}

}  // namespace
}  // namespace gatebench::tokens
