// HS256 JWT verification: every reason, algorithm confusion, JSON edge cases, rotation, and a
// differential test against the nlohmann + one-shot HMAC peer on generated and mutated tokens.
#include "micro/core/tokens/jwt_hs256.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "fixtures/token_fixtures.hpp"
#include "micro/core/tokens/base64url.hpp"
#include "micro/core/tokens/jwt_json.hpp"
#include "micro/peers/token_jwt_nlohmann.hpp"
#include "tests/micro/allocation_counter.hpp"

namespace gatebench::tokens {
namespace {

namespace fx = fixtures;
constexpr std::int64_t kNow = fx::kTokenNow;
const std::string kHs256 = R"({"alg":"HS256","typ":"JWT"})";
const std::string kClaims = R"({"sub":"alice","exp":1800000100})";

class JwtTest : public ::testing::Test {
 protected:
  JwtTest() : secret(fx::token_secret(1)), other(fx::token_secret(2)) { ring.rotate("k1", secret); }
  VerifyStatus verify(const std::string& token, std::int64_t now = kNow) {
    return verify_jwt_hs256(ring, token, now);
  }
  std::string jwt(std::string_view header, std::string_view claims) {
    return fx::make_jwt(header, claims, secret);
  }
  std::vector<std::uint8_t> secret, other;
  JwtKeyRing ring;
};

TEST_F(JwtTest, RoundTrip) {
  JwtTimes times;
  EXPECT_EQ(verify_jwt_hs256(ring, jwt(kHs256, kClaims), kNow, &times), VerifyStatus::ok);
  EXPECT_EQ(times.exp, 1800000100);
  EXPECT_FALSE(times.nbf);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256","kid":"k1"})", kClaims)), VerifyStatus::ok);
  EXPECT_EQ(verify(jwt(" { \"typ\" : \"JWT\" ,\n \"alg\" : \"HS256\" } ", kClaims)),
            VerifyStatus::ok);
}

TEST_F(JwtTest, SizedFixtureTokensVerify) {
  fx::Rng rng(fx::kDefaultSeed);
  for (std::size_t size : {200, 400, 1000}) {
    const std::string t = fx::make_sized_jwt(size, secret, rng);
    EXPECT_NEAR(static_cast<double>(t.size()), static_cast<double>(size), 8.0);
    EXPECT_EQ(verify(t), VerifyStatus::ok) << t;
  }
}

TEST_F(JwtTest, AlgorithmConfusionIsRefused) {
  const std::string claims = base64url_encode(std::span<const std::uint8_t>(
      reinterpret_cast<const std::uint8_t*>(kClaims.data()), kClaims.size()));
  // The classic "alg":"none" token has an empty signature: not even three valid segments.
  const std::string none_header = base64url_encode(std::span<const std::uint8_t>(
      reinterpret_cast<const std::uint8_t*>(R"({"alg":"none"})"), 15));
  EXPECT_EQ(verify(none_header + "." + claims + "."), VerifyStatus::malformed);
  // With a signature-sized third segment (even a correct HMAC) the algorithm itself is refused.
  EXPECT_EQ(verify(jwt(R"({"alg":"none"})", kClaims)), VerifyStatus::wrong_algorithm);
  EXPECT_EQ(verify(jwt(R"({"alg":"RS256"})", kClaims)), VerifyStatus::wrong_algorithm);
  EXPECT_EQ(verify(jwt(R"({"alg":"ES256"})", kClaims)), VerifyStatus::wrong_algorithm);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS384"})", kClaims)), VerifyStatus::wrong_algorithm);
  EXPECT_EQ(verify(jwt(R"({"alg":"hs256"})", kClaims)), VerifyStatus::wrong_algorithm);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256 "})", kClaims)), VerifyStatus::wrong_algorithm);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS\u0032\u0035\u0036"})", kClaims)),
            VerifyStatus::wrong_algorithm);
  EXPECT_EQ(verify(jwt(R"({"alg":256})", kClaims)), VerifyStatus::wrong_algorithm);
  EXPECT_EQ(verify(jwt(R"({"alg":null})", kClaims)), VerifyStatus::wrong_algorithm);
  EXPECT_EQ(verify(jwt(R"({"typ":"JWT"})", kClaims)), VerifyStatus::malformed);
}

TEST_F(JwtTest, HeaderRules) {
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256","crit":["exp"]})", kClaims)), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256","alg":"HS256"})", kClaims)), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256","alg":"none"})", kClaims)), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(R"(["HS256"])", kClaims)), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256"} x)", kClaims)), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256",})", kClaims)), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256")", kClaims)), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt("", kClaims)), VerifyStatus::malformed);
  const std::string big = R"({"alg":"HS256","x":")" + std::string(300, 'a') + "\"}";
  EXPECT_EQ(verify(jwt(big, kClaims)), VerifyStatus::malformed);
  EXPECT_EQ(
      verify(jwt(R"({"alg":"HS256","x":{"y":[1,2.5e3,true,false,null,"\n\u00e9"]}})", kClaims)),
      VerifyStatus::ok);
}

TEST_F(JwtTest, ClaimsRules) {
  EXPECT_EQ(verify(jwt(kHs256, R"({"sub":"alice"})")), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":"1800000100"})")), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":1.8e9})")), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":99999999999999999999})")), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":1800000100,"exp":1800000100})")), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":1800000100,"nbf":"soon"})")), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":1800000100)")), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(kHs256, "not json")), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":1800000100.75})")), VerifyStatus::ok);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":1800000100, "nested":[[[[{}]]]]})")), VerifyStatus::ok);
  std::string deep =
      R"({"exp":1800000100,"d":)" + std::string(20, '[') + std::string(20, ']') + "}";
  EXPECT_EQ(verify(jwt(kHs256, deep)), VerifyStatus::malformed);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":1800000100,"s":"a)"
                               "\x01"
                               R"("})")),
            VerifyStatus::malformed);
}

TEST_F(JwtTest, TimeEdges) {
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":1800000100})"), 1800000099), VerifyStatus::ok);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":1800000100})"), 1800000100), VerifyStatus::expired);
  EXPECT_EQ(verify(jwt(kHs256, R"({"exp":-5})"), 0), VerifyStatus::expired);
  const std::string nbf = jwt(kHs256, R"({"exp":1800000100,"nbf":1800000050})");
  EXPECT_EQ(verify(nbf, 1800000049), VerifyStatus::not_yet_valid);
  EXPECT_EQ(verify(nbf, 1800000050), VerifyStatus::ok);
  JwtTimes times;
  EXPECT_EQ(verify_jwt_hs256(ring, nbf, 1800000060, &times), VerifyStatus::ok);
  EXPECT_EQ(times.nbf, 1800000050);
}

TEST_F(JwtTest, SignatureAndStructure) {
  const std::string good = jwt(kHs256, kClaims);
  EXPECT_EQ(verify(fx::make_jwt(kHs256, kClaims, other)), VerifyStatus::bad_signature);
  EXPECT_EQ(verify(good + "."), VerifyStatus::malformed);
  EXPECT_EQ(verify(good + "A"), VerifyStatus::malformed);
  EXPECT_EQ(verify(good.substr(0, good.size() - 1)), VerifyStatus::malformed);
  EXPECT_EQ(verify(good.substr(0, good.rfind('.'))), VerifyStatus::malformed);
  EXPECT_EQ(verify(""), VerifyStatus::malformed);
  EXPECT_EQ(verify(".."), VerifyStatus::malformed);
  // Bad claims JSON under a valid signature is malformed, but only after the signature matched:
  // a forged token with bad claims is a bad signature.
  EXPECT_EQ(verify(fx::make_jwt(kHs256, "{", other)), VerifyStatus::bad_signature);
}

TEST_F(JwtTest, AnySingleCharacterChangeFails) {
  const std::string good = jwt(R"({"alg":"HS256","kid":"k1"})", kClaims);
  const std::string replacements = "Aa0-_.=+/ ";
  for (std::size_t pos = 0; pos < good.size(); ++pos) {
    for (char c : replacements) {
      if (c == good[pos]) continue;
      std::string t = good;
      t[pos] = c;
      ASSERT_NE(verify(t), VerifyStatus::ok) << pos << " " << t;
    }
  }
}

TEST_F(JwtTest, KeyRotationAndKid) {
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256","kid":"k9"})", kClaims)), VerifyStatus::unknown_key);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256","kid":7})", kClaims)), VerifyStatus::unknown_key);
  EXPECT_EQ(verify(jwt(R"({"alg":"HS256","kid":"k\u0031"})", kClaims)), VerifyStatus::unknown_key);
  const std::string old_kid = jwt(R"({"alg":"HS256","kid":"k1"})", kClaims);
  const std::string old_nokid = jwt(kHs256, kClaims);
  ring.rotate("k2", other);
  EXPECT_EQ(verify(old_kid), VerifyStatus::ok);
  EXPECT_EQ(verify(old_nokid), VerifyStatus::bad_signature);  // no kid: the current key
  EXPECT_EQ(verify(fx::make_jwt(kHs256, kClaims, other)), VerifyStatus::ok);
  ring.rotate("k3", fx::token_secret(3));
  EXPECT_EQ(verify(old_kid), VerifyStatus::unknown_key);
  EXPECT_TRUE(ring.remove("k2"));
  EXPECT_EQ(verify(fx::make_jwt(R"({"alg":"HS256","kid":"k2"})", kClaims, other)),
            VerifyStatus::unknown_key);
  EXPECT_THROW(ring.rotate("k3", secret), std::invalid_argument);
  EXPECT_THROW(ring.rotate("k4", std::vector<std::uint8_t>(31, 1)), std::invalid_argument);
  EXPECT_THROW(ring.rotate("a\"b", secret), std::invalid_argument);
  JwtKeyRing empty;
  EXPECT_EQ(verify_jwt_hs256(empty, old_nokid, kNow), VerifyStatus::unknown_key);
}

// Generated tokens (valid ones, and others with a wrong alg, kid, key, time or structure) plus
// random single edits of them: gatecore and the nlohmann peer must give the same reason.
TEST_F(JwtTest, AgreesWithTheNlohmannPeer) {
  ring.rotate("k2", other);
  peers::NlohmannJwtVerifier peer;
  peer.add_key("k1", secret);
  peer.add_key("k2", other);
  fx::Rng rng(fx::kDefaultSeed ^ 0x6a77);
  const char* algs[] = {"HS256", "HS256", "HS256", "none", "RS256", "HS512"};
  const char* kids[] = {"", "k1", "k2", "k3"};
  int outcomes[16] = {};
  for (int i = 0; i < 20000; ++i) {
    std::string header = std::string(R"({"alg":")") + algs[rng.below(6)] + "\"";
    const char* kid = kids[rng.below(4)];
    if (*kid) header += std::string(R"(,"kid":")") + kid + "\"";
    if (rng.chance(1, 10)) header += R"(,"typ":"JWT")";
    header += "}";
    std::string claims = "{";
    if (!rng.chance(1, 20))
      claims += "\"exp\":" + std::to_string(kNow - 50 + static_cast<std::int64_t>(rng.below(200)));
    if (rng.chance(1, 4))
      claims += std::string(claims.size() > 1 ? "," : "") +
                "\"nbf\":" + std::to_string(kNow - 50 + static_cast<std::int64_t>(rng.below(100)));
    if (rng.chance(1, 3))
      claims += std::string(claims.size() > 1 ? "," : "") + R"("sub":"user-)" +
                std::to_string(rng.below(1000)) + "\"";
    claims += "}";
    const auto& key = rng.chance(1, 2) ? secret : (rng.chance(1, 2) ? other : fx::token_secret(9));
    std::string t = fx::make_jwt(header, claims, key);
    if (rng.chance(1, 3)) {
      const std::size_t pos = rng.below(t.size());
      t[pos] = "Aab9-_.="[rng.below(8)];
    }
    const std::int64_t now = kNow + static_cast<std::int64_t>(rng.below(100)) - 20;
    const VerifyStatus ours = verify_jwt_hs256(ring, t, now);
    ASSERT_EQ(ours, peer.verify(t, now)) << t;
    ++outcomes[static_cast<int>(ours)];
  }
  // The generator must reach every reason, or the comparison proves little.
  for (VerifyStatus s : {VerifyStatus::ok, VerifyStatus::malformed, VerifyStatus::wrong_algorithm,
                         VerifyStatus::unknown_key, VerifyStatus::bad_signature,
                         VerifyStatus::expired, VerifyStatus::not_yet_valid}) {
    EXPECT_GT(outcomes[static_cast<int>(s)], 50) << to_string(s);
  }
}

TEST(JwtJson, ScansOnlyValidObjects) {
  JwtJsonField f[] = {{"a", JwtJsonField::Type::integer}, {"b", JwtJsonField::Type::string}};
  EXPECT_TRUE(scan_json_object(R"({"a":-12.5,"b":"x\"y","c":[{}]})", f));
  JwtJsonField u[] = {{"b", JwtJsonField::Type::string}};
  EXPECT_TRUE(scan_json_object("{\"b\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}", u));
  EXPECT_EQ(f[0].integer, -12);
  EXPECT_EQ(f[1].string_raw, R"(x\"y)");
  EXPECT_TRUE(f[1].string_has_escape);
  for (std::string_view bad :
       {"", "{", "}", "{\"b\":\"\xff\"}", "{\"b\":\"\xc0\xaf\"}", "{\"b\":\"\xed\xa0\x80\"}",
        "{\"b\":\"\xe2\x82\"}", "{\"a\":}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":-}", "{\"a\":tru}",
        "{\"b\":\"\\x\"}", "{\"b\":\"\\u12g4\"}", "{} {}", "{\"a\" 1}", "{,}", "[1]",
        "{\"z\":[1,]}"}) {
    JwtJsonField g[] = {{"a", JwtJsonField::Type::integer}, {"b", JwtJsonField::Type::string}};
    EXPECT_FALSE(scan_json_object(bad, g)) << bad;
  }
  JwtJsonField n[] = {{"a", JwtJsonField::Type::integer}};
  EXPECT_TRUE(scan_json_object(R"({"a":-9223372036854775808})", n));
  EXPECT_TRUE(n[0].type_ok);
  EXPECT_EQ(n[0].integer, INT64_MIN);
  JwtJsonField m[] = {{"a", JwtJsonField::Type::integer}};
  EXPECT_TRUE(scan_json_object(R"({"a":9223372036854775808})", m));
  EXPECT_FALSE(m[0].type_ok);
}

TEST_F(JwtTest, VerifyAllocatesNothing) {
  fx::Rng rng(fx::kDefaultSeed);
  const std::string good = fx::make_sized_jwt(400, secret, rng);
  const std::string bad_alg = jwt(R"({"alg":"none"})", kClaims);
  const std::string forged = fx::make_jwt(kHs256, kClaims, other);
  JwtTimes times;
  const std::size_t before = gatebench::testing::g_allocations.load();
  VerifyStatus s[] = {verify_jwt_hs256(ring, good, kNow, &times),
                      verify_jwt_hs256(ring, bad_alg, kNow), verify_jwt_hs256(ring, forged, kNow)};
  const std::size_t after = gatebench::testing::g_allocations.load();
  EXPECT_EQ(after, before);
  EXPECT_EQ(s[0], VerifyStatus::ok);
  EXPECT_EQ(s[1], VerifyStatus::wrong_algorithm);
  EXPECT_EQ(s[2], VerifyStatus::bad_signature);
}

}  // namespace
}  // namespace gatebench::tokens
