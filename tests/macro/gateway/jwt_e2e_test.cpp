// End-to-end tests of a host that requires a bearer JWT (docs/gateway.md, "JWT"): ES256 and
// HS256 keys by kid, issuer, audience, expiry and not-before with a leeway, the 401s and their
// WWW-Authenticate, and the claims the rules can read. The real gateway on loopback.
#include <gtest/gtest.h>

#include <ctime>
#include <string>

#include "fixtures/token_fixtures.hpp"
#include "micro/core/tokens/base64url.hpp"
#include "micro/peers/token_es256_openssl.hpp"
#include "tests/macro/gateway/gateway_testkit.hpp"

using gwtest::fetch;
using gwtest::get_request;
using gwtest::Response;

namespace {

namespace fx = gatebench::fixtures;
constexpr const char* kHsSecret =
    "6a77742d6532652d7365637265742d6f662d33322d62797465732d6f6b2d2d21";

std::vector<std::uint8_t> hs_secret() {
  const std::string hex = kHsSecret;
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

class JwtE2E : public ::testing::Test {
 protected:
  JwtE2E()
      : es_(gatebench::peers::Es256SigningKey::from_seed(11)),
        now_(static_cast<std::int64_t>(std::time(nullptr))) {}
  void SetUp() override {
    dir_.file("es1.pem", es_.public_pem());
    dir_.file("rules.json", R"({"rules": [
      {"id": "no-guests", "action": "block", "when": [{"field": "header", "name": "jwt/sub", "op": "equals", "value": "guest"}]},
      {"id": "admin-scope", "action": "block", "when": [{"field": "path", "op": "prefix", "value": "/admin"},
                                                       {"field": "header", "name": "jwt/scope", "op": "contains", "value": "admin", "negate": true}]}]})");
    port_ = gwtest::free_port();
    dir_.file("gw.json", R"({"workers": 1, "listeners": [{"port": )" + std::to_string(port_) +
                             R"(}], "hosts": [{"names": ["api.test"], "upstream": "127.0.0.1:)" +
                             std::to_string(upstream_.port()) +
                             R"(", "rules": "rules.json", "jwt": {"keys": [
        {"kid": "es1", "alg": "ES256", "public_key": "es1.pem"},
        {"kid": "hs1", "alg": "HS256", "secret_hex": ")" +
                             kHsSecret + R"("}],
        "issuer": "https://issuer.test", "audience": "api", "leeway_s": 5}}]})");
    gateway_ = std::make_unique<gwtest::Process>(
        std::vector<std::string>{GATEBENCH_GATEWAY_EXE, "--config",
                                 (dir_.path() / "gw.json").string()},
        (dir_.path() / "gateway.log").string());
    ASSERT_TRUE(gwtest::wait_port(port_)) << gateway_->output();
  }
  void TearDown() override {
    if (gateway_) {
      EXPECT_EQ(gateway_->stop(), 0) << gateway_->output();
    }
  }
  std::string claims(std::int64_t exp_in, const std::string& extra = "",
                     const std::string& aud = "\"api\"",
                     const std::string& iss = "https://issuer.test") {
    return R"({"sub":"alice","iss":")" + iss + R"(","aud":)" + aud + R"(,"exp":)" +
           std::to_string(now_ + exp_in) + extra + "}";
  }
  std::string es(const std::string& claims_json, const std::string& kid = "es1") {
    return es_.sign_jwt(R"({"alg":"ES256","typ":"JWT","kid":")" + kid + "\"}", claims_json);
  }
  Response with(const std::string& token, const std::string& path = "/") {
    return fetch(port_, get_request("api.test", path, "Authorization: Bearer " + token + "\r\n"));
  }
  // The reason of an invalid_token 401.
  static std::string reason(const Response& r) {
    const std::string h = r.header("www-authenticate");
    const std::string key = "error_description=\"";
    const std::size_t at = h.find(key);
    if (r.status != 401 || h.find("Bearer error=\"invalid_token\"") != 0 ||
        at == std::string::npos) {
      return "status " + std::to_string(r.status) + " " + h;
    }
    return h.substr(at + key.size(), h.find('"', at + key.size()) - at - key.size());
  }

  gwtest::TempDir dir_;
  gwtest::Upstream upstream_;
  std::unique_ptr<gwtest::Process> gateway_;
  gatebench::peers::Es256SigningKey es_;
  std::int64_t now_;
  int port_ = 0;
};

TEST_F(JwtE2E, ValidTokensPass) {
  Response r = with(es(claims(600)));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "ok\n");
  r = with(
      gatebench::fixtures::make_jwt(R"({"alg":"HS256","kid":"hs1"})", claims(600), hs_secret()));
  EXPECT_EQ(r.status, 200) << r.body;
  // The scheme name is case-insensitive; aud may be an array.
  r = fetch(port_, get_request("api.test", "/",
                               "Authorization: bearer " + es(claims(600, "", R"(["web","api"])")) +
                                   "\r\n"));
  EXPECT_EQ(r.status, 200) << r.body;
  // Within the leeway on both ends.
  EXPECT_EQ(with(es(claims(-3))).status, 200);
  EXPECT_EQ(with(es(claims(600, ",\"nbf\":" + std::to_string(now_ + 3)))).status, 200);
}

TEST_F(JwtE2E, MissingOrOtherSchemeIs401WithoutErrorCode) {
  for (const std::string& extra : {std::string(), std::string("Authorization: Basic YTpi\r\n")}) {
    const Response r = fetch(port_, get_request("api.test", "/", extra));
    EXPECT_EQ(r.status, 401) << extra;
    EXPECT_EQ(r.header("www-authenticate"), "Bearer") << extra;
    EXPECT_EQ(r.body, "bearer token required\n");
  }
  EXPECT_TRUE(upstream_.requests().empty());
}

TEST_F(JwtE2E, InvalidTokensAreRefusedWithTheirReason) {
  const std::string good = es(claims(600));
  // Forged: the claims of another token under this one's signature, and another key's signature.
  const std::string other = es(claims(600, ",\"scope\":\"admin\""));
  EXPECT_EQ(reason(with(other.substr(0, other.rfind('.')) + good.substr(good.rfind('.')))),
            "bad_signature");
  const auto stranger = gatebench::peers::Es256SigningKey::from_seed(12);
  EXPECT_EQ(reason(with(stranger.sign_jwt(R"({"alg":"ES256","kid":"es1"})", claims(600)))),
            "bad_signature");
  EXPECT_EQ(reason(with(es(claims(-10)))), "expired");
  EXPECT_EQ(reason(with(es(claims(600, ",\"nbf\":" + std::to_string(now_ + 60))))),
            "not_yet_valid");
  EXPECT_EQ(reason(with(es(claims(600, "", "\"web\"")))), "wrong_audience");
  EXPECT_EQ(reason(with(es(claims(600, "", "\"api\"", "https://evil.test")))), "wrong_issuer");
  EXPECT_EQ(reason(with(es(claims(600), "es9"))), "unknown_key");
  // alg confusion: HS256 keyed with the ES256 public key's PEM, naming the ES256 key; none.
  const std::string pem = es_.public_pem();
  const std::span<const std::uint8_t> pem_bytes(reinterpret_cast<const std::uint8_t*>(pem.data()),
                                                pem.size());
  EXPECT_EQ(reason(with(fx::make_jwt(R"({"alg":"HS256","kid":"es1"})", claims(600), pem_bytes))),
            "wrong_algorithm");
  const std::string none =
      gatebench::tokens::base64url_encode(std::span<const std::uint8_t>(
          reinterpret_cast<const std::uint8_t*>("{\"alg\":\"none\"}"), 14)) +
      "." + good.substr(good.find('.') + 1, good.rfind('.') - good.find('.') - 1) + ".";
  EXPECT_EQ(reason(with(none)), "wrong_algorithm");
  EXPECT_EQ(reason(with("not-a-jwt")), "malformed");
  // Two Authorization headers are one too many.
  const Response two = fetch(port_, get_request("api.test", "/",
                                                "Authorization: Bearer " + good +
                                                    "\r\nAuthorization: Bearer " + good + "\r\n"));
  EXPECT_EQ(reason(two), "malformed");
  EXPECT_TRUE(upstream_.requests().empty());
  const Response r = with(es(claims(-10)));
  EXPECT_EQ(r.header("x-gatebench-rule"), "");
  EXPECT_EQ(r.body, "invalid bearer token: expired\n");
}

TEST_F(JwtE2E, RulesReadTheVerifiedClaims) {
  EXPECT_EQ(with(es(R"({"sub":"guest","iss":"https://issuer.test","aud":"api","exp":)" +
                    std::to_string(now_ + 600) + "}"))
                .header("x-gatebench-rule"),
            "no-guests");
  EXPECT_EQ(with(es(claims(600)), "/admin/users").header("x-gatebench-rule"), "admin-scope");
  EXPECT_EQ(with(es(claims(600, ",\"scope\":\"read admin\"")), "/admin/users").status, 200);
  // A client cannot send a claim header itself: '/' is not a token character.
  const Response spoof = fetch(port_, get_request("api.test", "/", "jwt/sub: guest\r\n"));
  EXPECT_EQ(spoof.status, 400);
}

}  // namespace
