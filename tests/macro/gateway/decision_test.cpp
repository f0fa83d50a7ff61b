// The pure parts of the decision listener, loop detection and their configuration: describing a
// request from JSON and from auth_request's headers, the verdict and its JSON, hop counting, and
// config errors naming their field.
#include "macro/gateway/decision.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "macro/gateway/config.hpp"
#include "macro/gateway/loop_guard.hpp"
#include "tests/macro/gateway/gateway_testkit.hpp"

namespace gw = gatebench::gateway;

namespace {

std::string described(const std::string& body) {
  std::array<char, 4096> out;
  const gw::Described d = gw::describe_from_json(body, 0x7F000001u, out);
  return d.head_len == 0 ? std::string("error: ") + d.error : std::string(out.data(), d.head_len);
}

TEST(DecisionDescribe, JsonBecomesAHead) {
  EXPECT_EQ(described(R"({"host":"a.test","path":"/x"})"),
            "GET /x HTTP/1.1\r\nHost: a.test\r\n\r\n");
  EXPECT_EQ(described(R"({"method":"POST","host":"a.test","path":"/x","query":"q=1",
                          "headers":{"User-Agent":"a \"b\"","Host":"ignored","X-U":"\u00e9\ud83d\ude00"}})"),
            "POST /x?q=1 HTTP/1.1\r\nHost: a.test\r\nUser-Agent: a \"b\"\r\n"
            "X-U: \xc3\xa9\xf0\x9f\x98\x80\r\n\r\n");
  std::array<char, 64> small;
  const gw::Described d = gw::describe_from_json(
      R"({"host":"a.test","path":"/x","headers":{"X":"0123456789012345678901234567890123456789"}})",
      0, small);
  EXPECT_EQ(d.head_len, 0u);
  std::array<char, 256> out;
  const gw::Described ip = gw::describe_from_json(
      R"({"host":"a","path":"/","client_ip":"10.0.0.9","scheme":"https"})", 0, out);
  EXPECT_EQ(ip.client_ip, 0x0A000009u);
  EXPECT_EQ(gw::describe_from_json(R"({"host":"a","path":"/"})", 0x7F000001u, out).client_ip,
            0x7F000001u);
  EXPECT_TRUE(ip.https);
}

TEST(DecisionDescribe, JsonErrors) {
  for (const char* bad :
       {"", "[]", R"({"path":"/"})", R"({"host":"a"})", R"({"host":"a","path":"/","path":"/b"})",
        R"({"host":1,"path":"/"})", R"({"host":"a","path":"/","scheme":"ftp"})",
        R"({"host":"a","path":"/","client_ip":"::1"})",
        R"({"host":"a","path":"/","headers":["X: y"]})",
        R"({"host":"a","path":"/","headers":{"X":null}})", R"({"host":"a","path":"/\ud800"})",
        R"({"host":"a","path":"/","headers":{"X":"a\r\nB: c"}})",
        R"({"host":"a","path":"/\nx"})"}) {
    EXPECT_EQ(described(bad).substr(0, 7), "error: ") << bad;
  }
}

gw::Described from_original(const std::string& head, std::string& out_text) {
  gw::RequestHead req;
  EXPECT_EQ(gw::parse_request_head(head, 8192, req), gw::HeadStatus::kComplete);
  static std::array<char, 4096> out;
  const gw::Described d = gw::describe_from_original(req, head, 0x7F000001u, out);
  out_text.assign(out.data(), d.head_len);
  return d;
}

TEST(DecisionDescribe, OriginalRequestFromAuthRequestHeaders) {
  std::string text;
  gw::Described d = from_original(
      "GET /auth HTTP/1.1\r\nHost: decision\r\nX-Original-Method: DELETE\r\n"
      "X-Original-URI: /a/b?c=d\r\nX-Forwarded-Host: shop.test\r\nX-Forwarded-For: 1.1.1.1, "
      "10.0.0.7\r\nX-Forwarded-Proto: https\r\nCookie: a=b\r\nAuthorization: Bearer t\r\n"
      "Connection: keep-alive\r\n\r\n",
      text);
  EXPECT_EQ(text,
            "DELETE /a/b?c=d HTTP/1.1\r\nHost: shop.test\r\nCookie: a=b\r\nAuthorization: Bearer "
            "t\r\n\r\n");
  EXPECT_EQ(d.client_ip, 0x0A000007u);
  EXPECT_TRUE(d.https);
  d = from_original("GET / HTTP/1.1\r\nHost: plain.test\r\nX-Original-URI: /p\r\n\r\n", text);
  EXPECT_EQ(text, "GET /p HTTP/1.1\r\nHost: plain.test\r\n\r\n");
  EXPECT_EQ(d.client_ip, 0x7F000001u);  // the peer without X-Forwarded-For
  d = from_original("GET / HTTP/1.1\r\nHost: p\r\n\r\n", text);
  EXPECT_STREQ(d.error, "X-Original-URI is required");
}

TEST(DecisionVerdict, FromDecisionsAndAsJson) {
  gw::Decision d;
  EXPECT_EQ(gw::verdict_of(d), gw::Verdict::kAllow);
  std::array<char, 512> out;
  EXPECT_EQ(
      gw::decision_json(d, out),
      "{\"verdict\":\"allow\",\"status\":200,\"rule\":null,\"action\":\"-\",\"headers\":[]}\n");
  d.respond = true;
  d.action = gatebench::access_log::Action::block;
  d.rule_id = "jwt:expired";
  d.response.status = 401;
  d.response.extra_headers =
      "WWW-Authenticate: Bearer error=\"invalid_token\", error_description=\"expired\"\r\n";
  EXPECT_EQ(gw::verdict_of(d), gw::Verdict::kDeny);
  EXPECT_EQ(gw::decision_json(d, out),
            "{\"verdict\":\"deny\",\"status\":401,\"rule\":\"jwt:expired\",\"action\":\"block\","
            "\"headers\":[\"WWW-Authenticate: Bearer error=\\\"invalid_token\\\", "
            "error_description=\\\"expired\\\"\"]}\n");
  d.action = gatebench::access_log::Action::ratelimit;
  EXPECT_EQ(gw::verdict_of(d), gw::Verdict::kRateLimited);
  d.action = gatebench::access_log::Action::challenge;
  EXPECT_EQ(gw::verdict_of(d), gw::Verdict::kChallenge);
  d.action = gatebench::access_log::Action::queue;
  EXPECT_EQ(gw::to_string(gw::verdict_of(d)), "challenge");
}

std::optional<std::uint32_t> hops(const std::string& lines) {
  const std::string head = "GET / HTTP/1.1\r\nHost: a\r\n" + lines + "\r\n";
  gw::RequestHead req;
  EXPECT_EQ(gw::parse_request_head(head, 8192, req), gw::HeadStatus::kComplete);
  return gw::count_hops(req, head, "gw-a");
}

TEST(LoopGuard, CountsTheHopHeaderAndViaEntries) {
  EXPECT_EQ(hops("").value_or(999), 0u);
  EXPECT_EQ(hops("X-Gatebench-Hops: 4\r\n").value_or(999), 4u);
  EXPECT_EQ(hops("Via: 1.1 gw-a, 1.0 other, HTTP/2 GW-A (comment, with gw-a)\r\n").value_or(999),
            2u);
  EXPECT_EQ(hops("Via: 1.1 gw-a\r\nX-Gatebench-Hops: 1\r\nvia: 1.1 gw-a\r\n").value_or(999), 2u);
  EXPECT_EQ(hops("Via: 1.1 gw-ab, 1.1 gw\r\n").value_or(999), 0u);
  EXPECT_FALSE(hops("X-Gatebench-Hops: 1000\r\n").has_value());
  EXPECT_FALSE(hops("X-Gatebench-Hops: +1\r\n").has_value());
  EXPECT_FALSE(hops("X-Gatebench-Hops: \r\n").has_value());
  std::array<char, 64> out;
  EXPECT_EQ(gw::hop_lines(3, "gw-a", out), "X-Gatebench-Hops: 3\r\nVia: 1.1 gw-a\r\n");
  std::array<char, 8> small;
  EXPECT_EQ(gw::hop_lines(3, "gw-a", small), "");
}

std::string decision_error_of(const std::string& json, const std::string& origin) {
  try {
    gw::parse_config(json, origin);
  } catch (const gw::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(AuthConfig, ErrorsNameTheirField) {
  gwtest::TempDir dir;
  const std::string origin = (dir.path() / "gw.json").string();
  dir.file("notakey.pem", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n");
  const auto host = [](const std::string& features) {
    return R"({"listeners": [{"port": 8080}], "hosts": [{"names": ["a"], "upstream": "127.0.0.1:81")" +
           features + "}]}";
  };
  EXPECT_EQ(decision_error_of(host(R"(, "jwt": {"keys": []})"), origin),
            origin + ": /hosts/0/jwt/keys: expected at least one key");
  EXPECT_EQ(decision_error_of(host(R"(, "jwt": {"keys": [{"kid": "a", "alg": "RS256"}]})"), origin),
            origin + ": /hosts/0/jwt/keys/0/alg: expected \"HS256\" or \"ES256\"");
  EXPECT_NE(
      decision_error_of(
          host(R"(, "jwt": {"keys": [{"kid": "a", "alg": "HS256", "secret_hex": "00"}]})"), origin)
          .find("/hosts/0/jwt/keys/0/secret_hex: expected at least 64 hex digits"),
      std::string::npos);
  EXPECT_NE(
      decision_error_of(
          host(R"(, "jwt": {"keys": [{"kid": "a", "alg": "ES256", "public_key": "notakey.pem"}]})"),
          origin)
          .find("/hosts/0/jwt/keys/0/public_key: "),
      std::string::npos);
  EXPECT_NE(
      decision_error_of(
          host(R"(, "jwt": {"keys": [{"kid": "a", "alg": "ES256", "public_key": "missing.pem"}]})"),
          origin)
          .find("cannot read"),
      std::string::npos);
  const std::string hex(64, 'a');
  EXPECT_NE(decision_error_of(
                host(R"(, "jwt": {"keys": [{"kid": "a", "alg": "HS256", "secret_hex": ")" + hex +
                     R"("}, {"kid": "a", "alg": "HS256", "secret_hex": ")" + hex + R"("}]})"),
                origin)
                .find("/hosts/0/jwt/keys/1/kid: jwt key 'a': kid already in the set"),
            std::string::npos);
  EXPECT_EQ(
      decision_error_of(host(R"(, "jwt": {"keys": [{"kid": "a", "alg": "HS256", "secret_hex": ")" +
                             hex + R"("}], "leeway_s": 7200})"),
                        origin)
          .find("/hosts/0/jwt/leeway_s"),
      origin.size() + 2);
  EXPECT_NE(decision_error_of(host(R"(, "loop": {"max_hops": 0})"), origin)
                .find("/hosts/0/loop/max_hops"),
            std::string::npos);
  EXPECT_EQ(decision_error_of(host(R"(, "loop": {"via": "a b"})"), origin),
            origin + ": /hosts/0/loop/via: expected letters, digits, '-', '.' or '_'");
  EXPECT_EQ(
      decision_error_of(
          R"({"listeners": [{"port": 8080, "role": "auth"}], "hosts": [{"names": ["a"], "upstream": "127.0.0.1:81"}]})",
          origin),
      origin + ": /listeners/0/role: expected \"proxy\" or \"decision\"");
  auto cfg = gw::parse_config(
      host(R"(, "loop": {}, "jwt": {"keys": [{"kid": "a", "alg": "HS256", "secret_hex": ")" + hex +
           R"("}]})"),
      origin);
  ASSERT_TRUE(cfg->hosts[0].features->loop);
  EXPECT_EQ(cfg->hosts[0].features->loop->max_hops, 8u);
  EXPECT_EQ(cfg->hosts[0].features->loop->via_name, "gatebench-gateway");
  ASSERT_TRUE(cfg->hosts[0].features->jwt);
  EXPECT_EQ(cfg->hosts[0].features->jwt->keys->keys().size(), 1u);
}

}  // namespace
