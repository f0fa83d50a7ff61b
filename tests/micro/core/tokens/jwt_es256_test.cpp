// gatecore's JwtVerifier (HS256 and ES256 keys by kid, issuer, audience, times with a leeway):
// every reason, algorithm confusion both ways, the DER encoding of ES256 signatures, and a
// differential test against the nlohmann + OpenSSL peer on generated and mutated tokens.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "fixtures/rng.hpp"
#include "fixtures/token_fixtures.hpp"
#include "micro/core/tokens/base64url.hpp"
#include "micro/core/tokens/jwt_verify.hpp"
#include "micro/peers/token_es256_openssl.hpp"
#include "tests/micro/allocation_counter.hpp"

namespace gatebench::tokens {
namespace {

namespace fx = fixtures;
constexpr std::int64_t kNow = fx::kTokenNow;
const std::string kEsHeader = R"({"alg":"ES256","typ":"JWT","kid":"es1"})";
const std::string kHsHeader = R"({"alg":"HS256","typ":"JWT","kid":"hs1"})";
const std::string kClaims =
    R"({"sub":"alice","iss":"https://issuer.test","aud":"api","scope":"read write","exp":1800000100,"nbf":1799999900})";

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

class JwtVerifyTest : public ::testing::Test {
 protected:
  JwtVerifyTest()
      : es(peers::Es256SigningKey::from_seed(1)),
        es_other(peers::Es256SigningKey::from_seed(2)),
        secret(fx::token_secret(1)) {
    auto set = std::make_shared<JwtKeySet>();
    set->add_es256("es1", Es256PublicKey::from_pem(es.public_pem()));
    set->add_hs256("hs1", secret);
    keys = set;
    verifier = std::make_unique<JwtVerifier>(keys);
    required.issuer = "https://issuer.test";
    required.audience = "api";
  }
  VerifyStatus verify(const std::string& token, std::int64_t now = kNow) {
    return verifier->verify(token, now, required, &claims);
  }
  peers::Es256SigningKey es, es_other;
  std::vector<std::uint8_t> secret;
  std::shared_ptr<const JwtKeySet> keys;
  std::unique_ptr<JwtVerifier> verifier;
  JwtRequirements required;
  JwtClaims claims;
};

TEST_F(JwtVerifyTest, ValidTokensOfBothAlgorithmsPass) {
  ASSERT_EQ(verify(es.sign_jwt(kEsHeader, kClaims)), VerifyStatus::ok);
  EXPECT_EQ(claims.sub, "alice");
  EXPECT_EQ(claims.iss, "https://issuer.test");
  EXPECT_EQ(claims.scope, "read write");
  EXPECT_EQ(claims.kid, "es1");
  EXPECT_EQ(claims.exp, 1800000100);
  ASSERT_EQ(verify(fx::make_jwt(kHsHeader, kClaims, secret)), VerifyStatus::ok);
  EXPECT_EQ(claims.kid, "hs1");
  // aud as an array naming the audience among others.
  EXPECT_EQ(
      verify(es.sign_jwt(kEsHeader,
                         R"({"aud":["web","api"],"iss":"https://issuer.test","exp":1800000100})")),
      VerifyStatus::ok);
}

TEST_F(JwtVerifyTest, ForgedTokensFail) {
  const std::string good = es.sign_jwt(kEsHeader, kClaims);
  // Signed by another key under the same kid.
  EXPECT_EQ(verify(es_other.sign_jwt(kEsHeader, kClaims)), VerifyStatus::bad_signature);
  // The claims of one token with the signature of another.
  const std::string other = es.sign_jwt(
      kEsHeader, R"({"sub":"mallory","iss":"https://issuer.test","aud":"api","exp":1800000100})");
  EXPECT_EQ(verify(other.substr(0, other.rfind('.')) + good.substr(good.rfind('.'))),
            VerifyStatus::bad_signature);
  // Every character of the signature changed in turn (keeping it canonical base64url).
  const std::size_t sig = good.rfind('.') + 1;
  for (std::size_t i = sig; i + 1 < good.size(); ++i) {
    std::string t = good;
    t[i] = t[i] == 'A' ? 'B' : 'A';
    EXPECT_EQ(verify(t), VerifyStatus::bad_signature) << i;
  }
  // R or S zero, and all-ones (beyond the group order).
  std::array<std::uint8_t, 64> raw{};
  const std::string input = good.substr(0, good.rfind('.'));
  EXPECT_EQ(verify(input + "." + base64url_encode(raw)), VerifyStatus::bad_signature);
  raw.fill(0xff);
  EXPECT_EQ(verify(input + "." + base64url_encode(raw)), VerifyStatus::bad_signature);
  // An HS256 token under the wrong secret.
  EXPECT_EQ(verify(fx::make_jwt(kHsHeader, kClaims, fx::token_secret(9))),
            VerifyStatus::bad_signature);
}

TEST_F(JwtVerifyTest, TimesWithLeeway) {
  const std::string t = es.sign_jwt(kEsHeader, kClaims);
  EXPECT_EQ(verify(t, 1800000099), VerifyStatus::ok);
  EXPECT_EQ(verify(t, 1800000100), VerifyStatus::expired);
  EXPECT_EQ(verify(t, 1799999900), VerifyStatus::ok);
  EXPECT_EQ(verify(t, 1799999899), VerifyStatus::not_yet_valid);
  required.leeway_s = 30;
  EXPECT_EQ(verify(t, 1800000129), VerifyStatus::ok);
  EXPECT_EQ(verify(t, 1800000130), VerifyStatus::expired);
  EXPECT_EQ(verify(t, 1799999870), VerifyStatus::ok);
  EXPECT_EQ(verify(t, 1799999869), VerifyStatus::not_yet_valid);
  // Extreme claims do not overflow.
  EXPECT_EQ(
      verify(es.sign_jwt(
          kEsHeader, R"({"iss":"https://issuer.test","aud":"api","exp":-9223372036854775808})")),
      VerifyStatus::expired);
  EXPECT_EQ(
      verify(es.sign_jwt(
          kEsHeader,
          R"({"iss":"https://issuer.test","aud":"api","exp":9223372036854775807,"nbf":9223372036854775807})")),
      VerifyStatus::not_yet_valid);
}

TEST_F(JwtVerifyTest, IssuerAndAudience) {
  const auto claims_with = [](std::string_view extra) {
    return std::string(R"({"exp":1800000100)") + std::string(extra) + "}";
  };
  EXPECT_EQ(verify(es.sign_jwt(kEsHeader, claims_with(R"(,"aud":"api")"))),
            VerifyStatus::wrong_issuer);
  EXPECT_EQ(
      verify(es.sign_jwt(kEsHeader, claims_with(R"(,"iss":"https://evil.test","aud":"api")"))),
      VerifyStatus::wrong_issuer);
  EXPECT_EQ(
      verify(es.sign_jwt(kEsHeader, claims_with(R"(,"iss":"https:\/\/issuer.test","aud":"api")"))),
      VerifyStatus::wrong_issuer);
  EXPECT_EQ(verify(es.sign_jwt(kEsHeader, claims_with(R"(,"iss":"https://issuer.test")"))),
            VerifyStatus::wrong_audience);
  EXPECT_EQ(
      verify(es.sign_jwt(kEsHeader, claims_with(R"(,"iss":"https://issuer.test","aud":"apis")"))),
      VerifyStatus::wrong_audience);
  EXPECT_EQ(verify(es.sign_jwt(
                kEsHeader, claims_with(R"(,"iss":"https://issuer.test","aud":["web",1,null])"))),
            VerifyStatus::wrong_audience);
  EXPECT_EQ(verify(es.sign_jwt(kEsHeader,
                               claims_with(R"(,"iss":"https://issuer.test","aud":{"api":1})"))),
            VerifyStatus::wrong_audience);
  required = {};
  EXPECT_EQ(verify(es.sign_jwt(kEsHeader, claims_with(""))), VerifyStatus::ok);
}

TEST_F(JwtVerifyTest, KeysAreChosenByKid) {
  EXPECT_EQ(verify(es.sign_jwt(R"({"alg":"ES256","kid":"es2"})", kClaims)),
            VerifyStatus::unknown_key);
  EXPECT_EQ(verify(es.sign_jwt(R"({"alg":"ES256","kid":7})", kClaims)), VerifyStatus::unknown_key);
  EXPECT_EQ(verify(es.sign_jwt(R"({"alg":"ES256","kid":"es\u0031"})", kClaims)),
            VerifyStatus::unknown_key);
  // Without kid: only a set of one key has an obvious choice.
  EXPECT_EQ(verify(es.sign_jwt(R"({"alg":"ES256"})", kClaims)), VerifyStatus::unknown_key);
  auto one = std::make_shared<JwtKeySet>();
  one->add_es256("only", Es256PublicKey::from_pem(es.public_pem()));
  JwtVerifier single(one);
  EXPECT_EQ(single.verify(es.sign_jwt(R"({"alg":"ES256"})", kClaims), kNow, required),
            VerifyStatus::ok);
}

TEST_F(JwtVerifyTest, AlgorithmConfusionIsRefused) {
  // HS256 signed with the ES256 public key's PEM as the HMAC secret, naming the ES256 key.
  const std::string pem = es.public_pem();
  EXPECT_EQ(verify(fx::make_jwt(R"({"alg":"HS256","kid":"es1"})", kClaims, bytes_of(pem))),
            VerifyStatus::wrong_algorithm);
  // ES256 naming the HS256 key.
  EXPECT_EQ(verify(es.sign_jwt(R"({"alg":"ES256","kid":"hs1"})", kClaims)),
            VerifyStatus::wrong_algorithm);
  // none, with and without a signature; other spellings and algorithms.
  const std::string input = base64url_encode(bytes_of(R"({"alg":"none","kid":"es1"})")) + "." +
                            base64url_encode(bytes_of(kClaims));
  EXPECT_EQ(verify(input + "."), VerifyStatus::wrong_algorithm);
  EXPECT_EQ(verify(input + ".AAAA"), VerifyStatus::wrong_algorithm);
  for (const char* alg : {"es256", "ES384", "RS256", "PS256", "EdDSA", "E\\u0053256"}) {
    const std::string h = std::string(R"({"alg":")") + alg + R"(","kid":"es1"})";
    EXPECT_EQ(verify(es.sign_jwt(h, kClaims)), VerifyStatus::wrong_algorithm) << alg;
  }
  EXPECT_EQ(verify(es.sign_jwt(R"({"alg":null,"kid":"es1"})", kClaims)),
            VerifyStatus::wrong_algorithm);
}

TEST_F(JwtVerifyTest, MalformedTokens) {
  const std::string good = es.sign_jwt(kEsHeader, kClaims);
  EXPECT_EQ(verify(""), VerifyStatus::malformed);
  EXPECT_EQ(verify("a.b"), VerifyStatus::malformed);
  EXPECT_EQ(verify(good + ".x"), VerifyStatus::malformed);
  EXPECT_EQ(verify(good.substr(0, good.size() - 4)), VerifyStatus::malformed);  // 61 bytes
  EXPECT_EQ(verify(es.sign_jwt(R"({"alg":"ES256","kid":"es1","crit":["x"]})", kClaims)),
            VerifyStatus::malformed);
  EXPECT_EQ(verify(es.sign_jwt(kEsHeader, R"({"sub":"a","exp":1,"exp":2})")),
            VerifyStatus::malformed);
  EXPECT_EQ(verify(es.sign_jwt(kEsHeader, R"({"sub":"a"})")), VerifyStatus::malformed);
  EXPECT_EQ(verify(es.sign_jwt(kEsHeader, R"({"exp":"1800000100"})")), VerifyStatus::malformed);
  // An HS256 signature of ES256's length.
  const std::string hs = fx::make_jwt(kHsHeader, kClaims, secret);
  EXPECT_EQ(verify(hs.substr(0, hs.rfind('.')) + good.substr(good.rfind('.'))),
            VerifyStatus::malformed);
}

TEST_F(JwtVerifyTest, GatecoreAllocatesNothingPerCall) {
  const std::string e = es.sign_jwt(kEsHeader, kClaims);
  const std::string h = fx::make_jwt(kHsHeader, kClaims, secret);
  ASSERT_EQ(verify(e), VerifyStatus::ok);
  const std::size_t before = gatebench::testing::g_allocations.load();
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(verify(e), VerifyStatus::ok);
    ASSERT_EQ(verify(h), VerifyStatus::ok);
  }
  // operator new only: OpenSSL's own malloc inside EVP_PKEY_verify is not counted.
  EXPECT_EQ(gatebench::testing::g_allocations.load(), before);
}

TEST(Es256Der, EncodesIntegersMinimally) {
  std::array<std::uint8_t, kEs256DerMaxSize> der;
  std::array<std::uint8_t, 64> raw{};
  raw[31] = 1;
  raw[32] = 0x80;  // S with the high bit set: a 0x00 is prepended
  ASSERT_EQ(es256_signature_der(raw, der), 2u + 3u + 35u);
  EXPECT_EQ(der[0], 0x30);
  EXPECT_EQ(der[1], 38);
  EXPECT_EQ(der[2], 0x02);
  EXPECT_EQ(der[3], 1);
  EXPECT_EQ(der[4], 1);
  EXPECT_EQ(der[5], 0x02);
  EXPECT_EQ(der[6], 33);
  EXPECT_EQ(der[7], 0x00);
  EXPECT_EQ(der[8], 0x80);
  raw.fill(0);
  ASSERT_EQ(es256_signature_der(raw, der), 8u);  // INTEGER 0 twice
  raw.fill(0xff);
  EXPECT_EQ(es256_signature_der(raw, der), kEs256DerMaxSize);
  EXPECT_EQ(es256_signature_der(std::span<const std::uint8_t>(raw.data(), 63), der), 0u);
}

TEST(Es256Key, RefusesOtherKeys) {
  EXPECT_THROW(Es256PublicKey::from_pem("not a key"), std::invalid_argument);
  EXPECT_THROW(Es256PublicKey::from_pem(fx::make_jwt("{}", "{}", fx::token_secret(1))),
               std::invalid_argument);
  JwtKeySet set;
  EXPECT_THROW(set.add_hs256("short", std::vector<std::uint8_t>(31, 1)), std::invalid_argument);
  set.add_hs256("k", fx::token_secret(1));
  EXPECT_THROW(set.add_hs256("k", fx::token_secret(2)), std::invalid_argument);
  EXPECT_THROW(set.add_hs256("", fx::token_secret(2)), std::invalid_argument);
  EXPECT_THROW(set.add_hs256("a\"b", fx::token_secret(2)), std::invalid_argument);
}

// Tokens of both algorithms, then mutated (a character replaced, segments swapped, times moved),
// verified by gatecore and the peer: the same status every time.
TEST_F(JwtVerifyTest, AgreesWithTheOpenSslPeer) {
  peers::OpenSslJwtVerifier peer;
  peer.add_es256("es1", es.public_pem());
  peer.add_hs256("hs1", secret);
  fx::Rng rng(fx::kDefaultSeed);
  const char* auds[] = {R"("api")", R"("web")", R"(["web","api"])", R"([])"};
  const char* isses[] = {R"("https://issuer.test")", R"("https://other.test")"};
  const char* headers[] = {R"({"alg":"ES256","kid":"es1"})",
                           R"({"alg":"HS256","kid":"hs1"})",
                           R"({"alg":"ES256","kid":"hs1"})",
                           R"({"alg":"HS256","kid":"es1"})",
                           R"({"alg":"ES256","kid":"zz"})",
                           R"({"alg":"none","kid":"es1"})",
                           R"({"alg":"ES256"})"};
  std::array<int, 16> seen{};
  for (int i = 0; i < 1500; ++i) {
    const std::int64_t exp = kNow - 50 + static_cast<std::int64_t>(rng.below(200));
    std::string c = "{\"sub\":\"u" + std::to_string(i) + "\",\"exp\":" + std::to_string(exp);
    if (rng.chance(1, 3))
      c += ",\"nbf\":" + std::to_string(kNow - 30 + static_cast<std::int64_t>(rng.below(60)));
    if (rng.chance(7, 8)) c += std::string(",\"iss\":") + isses[rng.below(2)];
    if (rng.chance(7, 8)) c += std::string(",\"aud\":") + auds[rng.below(4)];
    c += "}";
    const char* h = headers[rng.below(std::size(headers))];
    std::string t = std::string(h).find("HS256") != std::string::npos
                        ? fx::make_jwt(h, c, rng.chance(1, 8) ? fx::token_secret(5) : secret)
                        : (rng.chance(1, 8) ? es_other : es).sign_jwt(h, c);
    switch (rng.below(4)) {
      case 0: {
        const std::size_t at = rng.below(t.size());
        t[at] = "Ab_-.x"[rng.below(6)];
        break;
      }
      case 1:
        t.erase(rng.below(t.size()), 1);
        break;
      default:
        break;
    }
    required.leeway_s = static_cast<std::int64_t>(rng.below(3)) * 20;
    const VerifyStatus ours = verifier->verify(t, kNow, required);
    EXPECT_EQ(ours, peer.verify(t, kNow, required)) << t;
    ++seen[static_cast<std::size_t>(ours)];
  }
  for (VerifyStatus s :
       {VerifyStatus::ok, VerifyStatus::malformed, VerifyStatus::wrong_algorithm,
        VerifyStatus::unknown_key, VerifyStatus::bad_signature, VerifyStatus::expired,
        VerifyStatus::not_yet_valid, VerifyStatus::wrong_issuer, VerifyStatus::wrong_audience}) {
    EXPECT_GT(seen[static_cast<std::size_t>(s)], 0) << to_string(s);
  }
}

}  // namespace
}  // namespace gatebench::tokens
