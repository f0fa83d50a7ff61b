// gatecore's signed tokens: round trips, every rejection reason, tampering at every position,
// expiry edges, key rotation.
#include "micro/core/tokens/token.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "fixtures/rng.hpp"
#include "micro/core/tokens/binding.hpp"
#include "tests/micro/allocation_counter.hpp"

namespace gatebench::tokens {
namespace {

std::vector<std::uint8_t> secret(std::uint8_t fill) {
  return std::vector<std::uint8_t>(32, fill);
}

constexpr std::uint32_t kExpiry = 1'900'000'000;
constexpr std::uint32_t kIp = 0xC0000201;  // 192.0.2.1
constexpr std::string_view kUa =
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 "
    "Safari/537.36";

class TokenTest : public ::testing::Test {
 protected:
  TokenTest() { ring.rotate(7, secret(0x11)); }
  TokenKeyRing ring;
};

TEST_F(TokenTest, AdmissionRoundTrip) {
  const TokenText t = mint_admission(ring, kExpiry, 42, 0x0123456789abcdefULL);
  EXPECT_EQ(t.size, token_text_size(TokenKind::admission));
  AdmissionClaims claims{};
  EXPECT_EQ(verify_admission(ring, t.view(), kExpiry - 1, &claims), VerifyStatus::ok);
  EXPECT_EQ(claims.queue_id, 42u);
  EXPECT_EQ(claims.ticket, 0x0123456789abcdefULL);
  EXPECT_EQ(claims.expiry, kExpiry);
}

TEST_F(TokenTest, PassRoundTrip) {
  const TokenText t = mint_pass(ring, kExpiry, kIp, kUa);
  EXPECT_EQ(t.size, token_text_size(TokenKind::pass));
  EXPECT_EQ(verify_pass(ring, t.view(), 1, kIp, kUa), VerifyStatus::ok);
}

TEST_F(TokenTest, SignedPartsFitOneBlockAfterTheKeyBlock) {
  EXPECT_LE(kAdmissionSignedSize, kHmacShortMessageMax);
  EXPECT_LE(kPassSignedSize, kHmacShortMessageMax);
}

TEST_F(TokenTest, GeneratedRoundTrips) {
  fixtures::Rng rng(fixtures::kDefaultSeed ^ 0x746f);
  for (int i = 0; i < 2000; ++i) {
    const auto expiry = static_cast<std::uint32_t>(rng.between(1, 0xffffffff));
    const auto queue = static_cast<std::uint32_t>(rng.next());
    const std::uint64_t ticket = rng.next();
    const TokenText a = mint_admission(ring, expiry, queue, ticket);
    AdmissionClaims claims{};
    ASSERT_EQ(verify_admission(ring, a.view(), expiry - 1, &claims), VerifyStatus::ok);
    ASSERT_EQ(claims.queue_id, queue);
    ASSERT_EQ(claims.ticket, ticket);
    std::string ua(rng.below(300), 'x');
    for (auto& c : ua) c = static_cast<char>(rng.between(0x20, 0x7e));
    const auto ip = static_cast<std::uint32_t>(rng.next());
    const TokenText p = mint_pass(ring, expiry, ip, ua);
    ASSERT_EQ(verify_pass(ring, p.view(), expiry - 1, ip, ua), VerifyStatus::ok);
  }
}

TEST_F(TokenTest, ExpiryEdges) {
  const TokenText a = mint_admission(ring, kExpiry, 1, 2);
  EXPECT_EQ(verify_admission(ring, a.view(), kExpiry - 1), VerifyStatus::ok);
  EXPECT_EQ(verify_admission(ring, a.view(), kExpiry), VerifyStatus::expired);
  EXPECT_EQ(verify_admission(ring, a.view(), kExpiry + 1), VerifyStatus::expired);
  EXPECT_EQ(verify_admission(ring, a.view(), 0), VerifyStatus::ok);
  // A 64-bit now beyond the 32-bit expiry field is expired, not wrapped around.
  EXPECT_EQ(verify_admission(ring, a.view(), (std::uint64_t{1} << 32) + 5), VerifyStatus::expired);
  const TokenText p = mint_pass(ring, kExpiry, kIp, kUa);
  EXPECT_EQ(verify_pass(ring, p.view(), kExpiry - 1, kIp, kUa), VerifyStatus::ok);
  EXPECT_EQ(verify_pass(ring, p.view(), kExpiry, kIp, kUa), VerifyStatus::expired);
  const TokenText zero = mint_admission(ring, 0, 1, 2);
  EXPECT_EQ(verify_admission(ring, zero.view(), 0), VerifyStatus::expired);
}

TEST_F(TokenTest, WrongBinding) {
  const TokenText p = mint_pass(ring, kExpiry, kIp, kUa);
  EXPECT_EQ(verify_pass(ring, p.view(), 1, kIp + 1, kUa), VerifyStatus::wrong_binding);
  EXPECT_EQ(verify_pass(ring, p.view(), 1, kIp ^ 0x80000000, kUa), VerifyStatus::wrong_binding);
  std::string ua(kUa);
  ua.back() = 'X';
  EXPECT_EQ(verify_pass(ring, p.view(), 1, kIp, ua), VerifyStatus::wrong_binding);
  EXPECT_EQ(verify_pass(ring, p.view(), 1, kIp, kUa.substr(1)), VerifyStatus::wrong_binding);
  EXPECT_EQ(verify_pass(ring, p.view(), 1, kIp, ""), VerifyStatus::wrong_binding);
  // Expiry is reported before the binding: an expired token says nothing about its client.
  EXPECT_EQ(verify_pass(ring, p.view(), kExpiry, kIp + 1, kUa), VerifyStatus::expired);
}

TEST_F(TokenTest, WrongKind) {
  const TokenText a = mint_admission(ring, kExpiry, 1, 2);
  const TokenText p = mint_pass(ring, kExpiry, kIp, kUa);
  EXPECT_EQ(verify_pass(ring, a.view(), 1, kIp, kUa), VerifyStatus::wrong_kind);
  EXPECT_EQ(verify_admission(ring, p.view(), 1), VerifyStatus::wrong_kind);
}

TEST_F(TokenTest, Malformed) {
  const TokenText a = mint_admission(ring, kExpiry, 1, 2);
  const std::string text(a.view());
  EXPECT_EQ(verify_admission(ring, "", 1), VerifyStatus::malformed);
  EXPECT_EQ(verify_admission(ring, text.substr(1), 1), VerifyStatus::malformed);
  EXPECT_EQ(verify_admission(ring, text + "A", 1), VerifyStatus::malformed);
  EXPECT_EQ(verify_admission(ring, text.substr(0, 46) + "=", 1), VerifyStatus::malformed);
  EXPECT_EQ(verify_admission(ring, std::string(47, '*'), 1), VerifyStatus::malformed);

  // Correctly signed, but another version, or a kind byte that disagrees with the length.
  std::array<std::uint8_t, kTokenMaxBytes> bytes;
  for (const auto& [version, kind] :
       {std::pair<std::uint8_t, std::uint8_t>{2, 1}, {0, 1}, {1, 2}, {1, 0}}) {
    encode_admission_signed(7, kExpiry, 1, 2, bytes);
    bytes[0] = version;
    bytes[1] = kind;
    const Sha256Digest tag = ring.current()->mac.mac_short({bytes.data(), kAdmissionSignedSize});
    std::copy_n(tag.begin(), kTokenTagSize, bytes.begin() + kAdmissionSignedSize);
    const std::string forged = base64url_encode(bytes);
    EXPECT_EQ(verify_admission(ring, forged, 1), VerifyStatus::malformed)
        << int{version} << "/" << int{kind};
  }
}

TEST_F(TokenTest, BadSignatureFromAnotherSecretWithTheSameId) {
  TokenKeyRing other;
  other.rotate(7, secret(0x22));
  EXPECT_EQ(verify_admission(ring, mint_admission(other, kExpiry, 1, 2).view(), 1),
            VerifyStatus::bad_signature);
  EXPECT_EQ(verify_pass(ring, mint_pass(other, kExpiry, kIp, kUa).view(), 1, kIp, kUa),
            VerifyStatus::bad_signature);
}

TEST_F(TokenTest, UnknownKey) {
  TokenKeyRing other;
  other.rotate(9, secret(0x11));
  EXPECT_EQ(verify_admission(ring, mint_admission(other, kExpiry, 1, 2).view(), 1),
            VerifyStatus::unknown_key);
}

// Every single-character change, to every other character of the alphabet and to a few outside
// it, at every position, of both kinds: none may verify.
TEST_F(TokenTest, AnySingleCharacterChangeFails) {
  const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/. \x80";
  const std::string a(mint_admission(ring, kExpiry, 3, 4).view());
  const std::string p(mint_pass(ring, kExpiry, kIp, kUa).view());
  for (std::size_t pos = 0; pos < a.size(); ++pos) {
    for (char c : alphabet) {
      if (c == a[pos]) continue;
      std::string t = a;
      t[pos] = c;
      ASSERT_NE(verify_admission(ring, t, 1), VerifyStatus::ok) << t;
    }
  }
  for (std::size_t pos = 0; pos < p.size(); ++pos) {
    for (char c : alphabet) {
      if (c == p[pos]) continue;
      std::string t = p;
      t[pos] = c;
      ASSERT_NE(verify_pass(ring, t, 1, kIp, kUa), VerifyStatus::ok) << t;
    }
  }
}

// The same at the byte level: flipping any bit of the decoded token and re-encoding it must fail
// (this reaches bytes whose character changes would be caught by the decoder first).
TEST_F(TokenTest, AnyBitFlipOfTheBytesFails) {
  const std::string a(mint_admission(ring, kExpiry, 3, 4).view());
  std::array<std::uint8_t, kTokenMaxBytes> bytes;
  const auto size = base64url_decode(a, bytes);
  ASSERT_TRUE(size);
  for (std::size_t i = 0; i < *size; ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      auto copy = bytes;
      copy[i] ^= static_cast<std::uint8_t>(1u << bit);
      const std::string t = base64url_encode({copy.data(), *size});
      ASSERT_NE(verify_admission(ring, t, 1), VerifyStatus::ok) << i << ":" << bit;
    }
  }
}

TEST(TokenKeyRingTest, RotationKeepsThePreviousKeyAndDropsTheOneBefore) {
  TokenKeyRing ring;
  ring.rotate(1, secret(1));
  const TokenText t1 = mint_admission(ring, kExpiry, 1, 1);
  ring.rotate(2, secret(2));
  const TokenText t2 = mint_admission(ring, kExpiry, 2, 2);
  EXPECT_EQ(ring.current()->id, 2);
  EXPECT_EQ(verify_admission(ring, t1.view(), 1), VerifyStatus::ok);
  EXPECT_EQ(verify_admission(ring, t2.view(), 1), VerifyStatus::ok);
  ring.rotate(3, secret(3));
  EXPECT_EQ(verify_admission(ring, t1.view(), 1), VerifyStatus::unknown_key);
  EXPECT_EQ(verify_admission(ring, t2.view(), 1), VerifyStatus::ok);
  EXPECT_TRUE(ring.remove(2));
  EXPECT_FALSE(ring.remove(2));
  EXPECT_EQ(verify_admission(ring, t2.view(), 1), VerifyStatus::unknown_key);
  // Pass tokens follow their key too (the binding key is per key).
  const TokenText p3 = mint_pass(ring, kExpiry, kIp, kUa);
  ring.rotate(4, secret(4));
  EXPECT_EQ(verify_pass(ring, p3.view(), 1, kIp, kUa), VerifyStatus::ok);
}

TEST(TokenKeyRingTest, RejectsShortSecretsAndReusedIds) {
  TokenKeyRing ring;
  EXPECT_THROW(ring.rotate(1, std::vector<std::uint8_t>(31, 1)), std::invalid_argument);
  ring.rotate(1, secret(1));
  EXPECT_THROW(ring.rotate(1, secret(2)), std::invalid_argument);
  ring.rotate(2, secret(2));
  EXPECT_THROW(ring.rotate(1, secret(3)), std::invalid_argument);
}

TEST(TokenKeyRingTest, MintWithoutCurrentKeyThrows) {
  TokenKeyRing ring;
  EXPECT_THROW(mint_admission(ring, kExpiry, 1, 1), std::logic_error);
  EXPECT_EQ(verify_admission(ring, std::string(47, 'A'), 1), VerifyStatus::malformed);
}

// SipHash-2-4 reference vectors (key 00..0f; messages 00..len-1) from the SipHash paper.
TEST(TokenBinding, SipHashReferenceVectors) {
  const SipKey key{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};
  std::vector<std::uint8_t> m;
  EXPECT_EQ(siphash24(key, m), 0x726fdb47dd0e0e31ULL);
  for (std::uint8_t i = 0; i < 15; ++i) m.push_back(i);
  EXPECT_EQ(siphash24(key, m), 0xa129ca6149be45e5ULL);
}

TEST(TokenBinding, ClientBindingHashesAddressThenUserAgent) {
  fixtures::Rng rng(fixtures::kDefaultSeed ^ 0x6269);
  for (int i = 0; i < 5000; ++i) {
    const SipKey key{rng.next(), rng.next()};
    const auto ip = static_cast<std::uint32_t>(rng.next());
    std::string ua(rng.below(i < 100 ? 12 : 300), '\0');
    for (auto& c : ua) c = static_cast<char>(rng.next());
    std::vector<std::uint8_t> joined = {
        static_cast<std::uint8_t>(ip >> 24), static_cast<std::uint8_t>(ip >> 16),
        static_cast<std::uint8_t>(ip >> 8), static_cast<std::uint8_t>(ip)};
    joined.insert(joined.end(), ua.begin(), ua.end());
    ASSERT_EQ(client_binding(key, ip, ua), siphash24(key, joined)) << ua.size();
  }
}

TEST(TokenStatusNames, AreDistinct) {
  EXPECT_EQ(to_string(VerifyStatus::ok), "ok");
  EXPECT_EQ(to_string(VerifyStatus::wrong_binding), "wrong_binding");
  EXPECT_NE(to_string(VerifyStatus::expired), to_string(VerifyStatus::not_yet_valid));
}

TEST_F(TokenTest, VerifyAllocatesNothing) {
  const TokenText a = mint_admission(ring, kExpiry, 1, 2);
  const TokenText p = mint_pass(ring, kExpiry, kIp, kUa);
  const std::string forged = std::string(a.view()).replace(5, 1, a.view()[5] == 'A' ? "B" : "A");
  const std::size_t before = gatebench::testing::g_allocations.load();
  AdmissionClaims claims{};
  VerifyStatus s[] = {verify_admission(ring, a.view(), 1, &claims),
                      verify_pass(ring, p.view(), 1, kIp, kUa),
                      verify_pass(ring, p.view(), 1, kIp + 1, kUa),
                      verify_admission(ring, forged, 1), verify_admission(ring, "x", 1)};
  const std::size_t after = gatebench::testing::g_allocations.load();
  EXPECT_EQ(after, before);
  EXPECT_EQ(s[0], VerifyStatus::ok);
  EXPECT_EQ(s[1], VerifyStatus::ok);
  EXPECT_NE(s[3], VerifyStatus::ok);
}

TEST_F(TokenTest, BoundAdmissionAdmitsOnlyItsClient) {
  const TokenText t = mint_bound_admission(ring, kExpiry, 42, 0x89abcdefu, kIp, kUa);
  AdmissionClaims claims{};
  ASSERT_EQ(verify_bound_admission(ring, t.view(), kExpiry - 1, kIp, kUa, &claims),
            VerifyStatus::ok);
  EXPECT_EQ(claims.queue_id, 42u);
  EXPECT_EQ(claims.ticket, 0x89abcdefu);
  EXPECT_EQ(claims.expiry, kExpiry);
  EXPECT_EQ(verify_bound_admission(ring, t.view(), 1, kIp + 1, kUa), VerifyStatus::wrong_binding);
  EXPECT_EQ(verify_bound_admission(ring, t.view(), 1, kIp, "curl/8"), VerifyStatus::wrong_binding);
  EXPECT_EQ(verify_bound_admission(ring, t.view(), kExpiry, kIp, kUa), VerifyStatus::expired);
  // An unbound admission is not a bound one (its ticket field holds no binding).
  const TokenText plain = mint_admission(ring, kExpiry, 42, 7);
  EXPECT_EQ(verify_bound_admission(ring, plain.view(), 1, kIp, kUa), VerifyStatus::wrong_binding);
}

TEST_F(TokenTest, KeyCarriedIntoAnotherRingVerifiesItsTokens) {
  const TokenText old = mint_pass(ring, kExpiry, kIp, kUa);
  TokenKeyRing next;
  next.rotate(*ring.current());
  next.rotate(8, secret(0x22));
  EXPECT_EQ(verify_pass(next, old.view(), 1, kIp, kUa), VerifyStatus::ok);
  EXPECT_EQ(next.previous()->id, 7);
  EXPECT_TRUE(next.previous()->same_secret(*ring.current()));
  EXPECT_FALSE(next.current()->same_secret(*ring.current()));
  EXPECT_THROW(next.rotate(*ring.current()), std::invalid_argument);
}

}  // namespace
}  // namespace gatebench::tokens
