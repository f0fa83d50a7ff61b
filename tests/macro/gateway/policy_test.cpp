// HostPolicy on constructed requests: every decision of the documented order (docs/gateway.md,
// "Features and the order of checks") — IP lists, countries, block/allow/log rules, exploit
// blocking and detect-only, rate limit, access queue, challenge — with the exact local response
// each one composes, from configurations loaded the way the gateway loads them.
#include "macro/gateway/policy.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "micro/core/tokens/token.hpp"

namespace gw = gatebench::gateway;
namespace tokens = gatebench::tokens;
using Action = gatebench::access_log::Action;

namespace {

constexpr std::uint64_t kNowS = 1'800'000'000;       // unix seconds
constexpr std::uint64_t kNowNs = 5'000'000'000'000;  // monotonic
constexpr std::uint64_t kSecondNs = 1'000'000'000;
constexpr std::uint32_t kClient = 0xC0000201;      // 192.0.2.1
const std::string kSecret = std::string(64, 'a');  // 256 bits of 0xaa

// What a decision says, copied out of the scratch buffers it points into.
struct Outcome {
  bool respond = false;
  Action action = Action::none;
  std::string rule_id;
  std::uint16_t status = 0;
  std::string content_type;
  std::string body;
  std::string headers;
};

struct Call {
  std::string target = "/";
  std::string host = "a.test";
  std::uint32_t ip = kClient;
  std::string extra_headers;  // whole lines
  std::uint64_t now_ns = kNowNs;
  std::uint64_t now_s = kNowS;
  bool https = false;
  std::string method = "GET";
};

// The value of cookie `name` set by a Set-Cookie line in `headers`, or "".
std::string set_cookie_value(const std::string& headers, const std::string& name) {
  const std::string key = "Set-Cookie: " + name + "=";
  std::size_t at = headers.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return headers.substr(at, headers.find(';', at) - at);
}

class Policy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("gw-policy-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    scratch_ = std::make_unique<gw::PolicyScratch>();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

  // Loads a configuration whose hosts are `hosts` (JSON objects without names and upstream;
  // host i serves "h<i>.test", host 0 also "a.test") and builds a policy per host.
  void load(std::initializer_list<std::string> hosts) {
    std::string json = R"({"listeners": [{"port": 8080}], "tokens": {"secret_hex": ")" + kSecret +
                       R"("}, "hosts": [)";
    int i = 0;
    for (const std::string& h : hosts) {
      json += i ? ", " : "";
      json += R"({"names": ["h)" + std::to_string(i) + R"(.test")" +
              (i == 0 ? R"(, "a.test")" : "") + R"(], "upstream": "127.0.0.1:9")" +
              (h.empty() ? "" : ", " + h) + "}";
      ++i;
    }
    json += "]}";
    config_ = gw::parse_config(json, (dir_ / "gw.json").string());
    policies_.clear();
    for (const gw::HostConfig& h : config_->hosts) {
      policies_.push_back(std::make_unique<gw::HostPolicy>(h, config_->tokens.get()));
    }
  }

  Outcome eval(const Call& c, std::size_t host = 0) {
    head_ = c.method + " " + c.target + " HTTP/1.1\r\nHost: " + c.host + "\r\n" + c.extra_headers +
            "\r\n";
    EXPECT_EQ(gw::parse_request_head(head_, 8192, req_), gw::HeadStatus::kComplete) << head_;
    gw::PolicyRequest r{
        req_, std::string_view(head_).substr(0, req_.head_len), c.ip, c.https, c.now_ns, c.now_s};
    gw::Decision d = policies_.at(host)->evaluate(r, *scratch_);
    return {d.respond,
            d.action,
            std::string(d.rule_id),
            d.response.status,
            std::string(d.response.content_type),
            std::string(d.response.body),
            std::string(d.response.extra_headers)};
  }

  const tokens::TokenKeyRing& keys() const { return *config_->tokens; }

  std::filesystem::path dir_;
  std::shared_ptr<const gw::Config> config_;
  std::vector<std::unique_ptr<gw::HostPolicy>> policies_;
  std::unique_ptr<gw::PolicyScratch> scratch_;
  std::string head_;
  gw::RequestHead req_;
};

// A local answer: respond set, with this action, rule id, status and content type.
void expect_local(const Outcome& o, Action action, const std::string& id, std::uint16_t status,
                  const std::string& content_type) {
  EXPECT_TRUE(o.respond);
  EXPECT_EQ(o.action, action);
  EXPECT_EQ(o.rule_id, id);
  EXPECT_EQ(o.status, status);
  EXPECT_EQ(o.content_type, content_type);
}

void expect_blocked(const Outcome& o, const std::string& id) {
  expect_local(o, Action::block, id, 403, "text/plain");
  EXPECT_EQ(o.body, "blocked by rule " + id + "\n");
  EXPECT_EQ(o.headers, "X-Gatebench-Rule: " + id + "\r\n");
}

void expect_passed(const Outcome& o, Action action = Action::none, const std::string& id = "") {
  EXPECT_FALSE(o.respond);
  EXPECT_EQ(o.action, action);
  EXPECT_EQ(o.rule_id, id);
}

TEST_F(Policy, HostWithoutFeaturesPassesEverything) {
  load({""});
  expect_passed(eval({.target = "/../../etc/passwd?q=%27%20or%201=1"}));
}

TEST_F(Policy, DenyListsBlockWithTheirIds) {
  write("deny.txt", "10.0.0.0/8\n");
  write("deny2.txt", "192.0.2.0/24\n");
  load({R"("ip_lists": [{"id": "bad-ips", "file": "deny.txt", "action": "deny"},
                        {"id": "worse", "file": "deny2.txt", "action": "deny"}])"});
  expect_blocked(eval({.ip = 0x0A010203}), "bad-ips");
  expect_blocked(eval({.ip = kClient}), "worse");
  expect_passed(eval({.ip = 0xCB007101}));  // 203.0.113.1
}

TEST_F(Policy, AllowListsAdmitOnlyTheirAddresses) {
  write("office.txt", "10.1.0.0/16\n");
  write("vpn.txt", "10.2.0.0/16\n");
  write("deny.txt", "10.1.9.0/24\n");
  load({R"("ip_lists": [{"id": "office", "file": "office.txt", "action": "allow"},
                        {"id": "vpn", "file": "vpn.txt", "action": "allow"},
                        {"id": "bad", "file": "deny.txt", "action": "deny"}])"});
  expect_passed(eval({.ip = 0x0A010001}));
  expect_passed(eval({.ip = 0x0A020001}));
  expect_blocked(eval({.ip = 0x0A030001}), "not-in:office,vpn");
  expect_blocked(eval({.ip = 0x0A010901}), "bad");  // deny is checked before allow
}

TEST_F(Policy, CountryDenyList) {
  write("cc.txt", "1.0.0.0/8 AU\n2.0.0.0/8 FR\n");
  load({R"("countries": {"table": "cc.txt", "deny": ["FR"]})"});
  expect_blocked(eval({.ip = 0x02000001}), "country:FR");
  expect_passed(eval({.ip = 0x01000001}));
  expect_passed(eval({.ip = 0x03000001}));  // no country
}

TEST_F(Policy, CountryAllowListRefusesOthersAndUnknown) {
  write("cc.txt", "1.0.0.0/8 AU\n2.0.0.0/8 FR\n");
  load({R"("countries": {"table": "cc.txt", "allow": ["AU"]})"});
  expect_passed(eval({.ip = 0x01000001}));
  expect_blocked(eval({.ip = 0x02000001}), "country-not-allowed");
  expect_blocked(eval({.ip = 0x03000001}), "country-not-allowed");
}

TEST_F(Policy, IpListIsCheckedBeforeCountryAndRules) {
  write("deny.txt", "1.2.3.0/24\n");
  write("cc.txt", "1.0.0.0/8 FR\n");
  write("rules.json", R"({"rules": [{"id": "all", "action": "block"}]})");
  load({R"("ip_lists": [{"id": "list", "file": "deny.txt", "action": "deny"}],
           "countries": {"table": "cc.txt", "deny": ["FR"]}, "rules": "rules.json")"});
  expect_blocked(eval({.ip = 0x01020304}), "list");
  expect_blocked(eval({.ip = 0x01090304}), "country:FR");
  expect_blocked(eval({.ip = 0x09090909}), "all");
}

TEST_F(Policy, RulesSeeTheCountryTheHostWithoutPortAndTheScheme) {
  write("cc.txt", "1.0.0.0/8 AU\n");
  write("rules.json", R"({"rules": [
    {"id": "au-admin", "action": "block", "when": [{"field": "country", "op": "equals", "value": "AU"},
                                                    {"field": "path", "op": "prefix", "value": "/admin"}]},
    {"id": "plain-login", "action": "block", "hosts": ["a.test"],
     "when": [{"field": "scheme", "op": "equals", "value": "http"},
              {"field": "path", "op": "equals", "value": "/login"}]}]})");
  load({R"("countries": {"table": "cc.txt", "deny": ["NZ"]}, "rules": "rules.json")"});
  expect_blocked(eval({.target = "/admin/x", .ip = 0x01000001}), "au-admin");
  expect_passed(eval({.target = "/admin/x", .ip = 0x02000001}));
  expect_blocked(eval({.target = "/login", .host = "A.test:8080"}), "plain-login");
  expect_passed(eval({.target = "/login", .https = true}));
  expect_passed(eval({.target = "/login", .host = "h0.test"}));  // out of the rule's host scope
}

TEST_F(Policy, BlockRuleIdWinsOverAnExploitInTheSameRequest) {
  write("rules.json", R"({"rules": [{"id": "no-x", "action": "block",
    "when": [{"field": "path", "op": "prefix", "value": "/x"}]}]})");
  load({R"("rules": "rules.json", "exploits": "block")"});
  expect_blocked(eval({.target = "/x?id=1%27%20or%201=1"}), "no-x");
}

TEST_F(Policy, ExploitsBlockedInBlockMode) {
  write("rules.json", R"({"rules": []})");
  load({R"("rules": "rules.json", "exploits": "block")"});
  expect_blocked(eval({.target = "/item?id=1%27%20or%201=1"}), "exploit:sqli");
  expect_blocked(eval({.target = "/files/../../etc/passwd"}), "exploit:path_traversal");
  expect_blocked(eval({.target = "/s?q=%3Cscript%3Ealert(1)"}), "exploit:xss");
  expect_passed(eval({.target = "/item?id=12"}));
}

TEST_F(Policy, ExploitsOnlyRecordedInDetectMode) {
  write("rules.json", R"({"exploit": {"mode": "block"}, "rules": []})");
  load({R"("rules": "rules.json", "exploits": "detect")"});  // the host overrides the file
  expect_passed(eval({.target = "/item?id=1%27%20or%201=1"}), Action::detect, "exploit:sqli");
  expect_passed(eval({.target = "/item?id=12"}));
}

TEST_F(Policy, ExploitsNotScannedWhenOff) {
  write("rules.json", R"({"exploit": {"mode": "block"}, "rules": []})");
  load({R"("rules": "rules.json", "exploits": "off")"});
  expect_passed(eval({.target = "/item?id=1%27%20or%201=1"}));
}

TEST_F(Policy, LogRuleRecordsDetect) {
  write("rules.json", R"({"rules": [{"id": "watch", "action": "log",
    "when": [{"field": "header", "name": "X-Debug", "op": "equals", "value": "1"}]}]})");
  load({R"("rules": "rules.json")"});
  expect_passed(eval({.extra_headers = "X-Debug: 1\r\n"}), Action::detect, "watch");
  expect_passed(eval({.extra_headers = "X-Debug: 2\r\n"}));
}

TEST_F(Policy, RateLimitAnswers429AndRecovers) {
  load({R"("rate_limit": {"rate_per_second": 1, "burst": 0})"});
  expect_passed(eval({}));
  Outcome o = eval({.now_ns = kNowNs + 1});
  expect_local(o, Action::ratelimit, "ratelimit", 429, "text/plain");
  EXPECT_EQ(o.body, "rate limit exceeded\n");
  EXPECT_EQ(o.headers, "Retry-After: 1\r\n");
  expect_passed(eval({.ip = kClient + 1, .now_ns = kNowNs + 2}));  // per client address
  expect_passed(eval({.now_ns = kNowNs + kSecondNs}));
}

TEST_F(Policy, RuleFileRateLimitRunsAfterTheRules) {
  // A blocked request is not charged: the limit is applied after the rules.
  write("rules.json", R"({"rate_limit": {"rate": 1}, "rules": [{"id": "no-x", "action": "block",
    "when": [{"field": "path", "op": "prefix", "value": "/x"}]}]})");
  load({R"("rules": "rules.json")"});
  expect_blocked(eval({.target = "/x"}), "no-x");
  expect_blocked(eval({.target = "/x", .now_ns = kNowNs + 1}), "no-x");
  expect_passed(eval({.now_ns = kNowNs + 2}));
  EXPECT_EQ(eval({.now_ns = kNowNs + 3}).status, 429);
}

TEST_F(Policy, AllowRuleSkipsRateLimitQueueAndChallenge) {
  write("rules.json", R"({"rules": [{"id": "health", "action": "allow",
    "when": [{"field": "path", "op": "equals", "value": "/health"}]}]})");
  load({R"("rules": "rules.json", "exploits": "block", "rate_limit": {"rate_per_second": 1},
           "queue": {"capacity": 1}, "challenge": {})"});
  for (std::uint64_t i = 0; i < 3; ++i) {
    expect_passed(eval({.target = "/health", .now_ns = kNowNs + i}), Action::allow, "health");
  }
}

TEST_F(Policy, QueueWaitingRoomForRequestsWithoutAdmission) {
  load({R"("queue": {"capacity": 1, "refresh_s": 7})"});
  Outcome o = eval({.target = "/shop?item=a%20b"});
  expect_local(o, Action::queue, "queue", 503, "text/html; charset=utf-8");
  EXPECT_EQ(o.headers, "Retry-After: 7\r\n");
  EXPECT_EQ(
      o.body,
      "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" "
      "content=\"7;url=/__gatebench/queue/join?return=/shop%3Fitem%3Da%2520b\"><title>Waiting "
      "room</title></head><body><h1>You are in the queue</h1><p>This page tries again every "
      "7 s.</p></body></html>\n");
}

TEST_F(Policy, QueueJoinAdmitsUntilFullAndTheCookiePasses) {
  load({R"("queue": {"capacity": 1, "admission_ttl_s": 300, "refresh_s": 5})"});
  Outcome join = eval({.target = std::string(gw::kQueueJoinPath)});
  expect_local(join, Action::queue, "queue", 200, "application/json");
  EXPECT_EQ(join.body, "{\"admitted\":true,\"ticket\":1,\"expires_in\":300}\n");
  const std::string cookie = set_cookie_value(join.headers, "gb_queue");
  ASSERT_FALSE(cookie.empty()) << join.headers;
  EXPECT_EQ(join.headers,
            "Set-Cookie: gb_queue=" + cookie + "; Path=/; Max-Age=300; HttpOnly; SameSite=Lax\r\n");
  tokens::AdmissionClaims claims{};
  EXPECT_EQ(tokens::verify_bound_admission(keys(), cookie, kNowS, kClient, "", &claims),
            tokens::VerifyStatus::ok);
  EXPECT_EQ(claims.ticket, 1u);

  const std::string with_cookie = "Cookie: a=1; gb_queue=" + cookie + "\r\n";
  expect_passed(eval({.target = "/shop", .extra_headers = with_cookie}));
  Outcome again = eval({.target = std::string(gw::kQueueJoinPath), .extra_headers = with_cookie});
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.body, "{\"admitted\":true,\"ticket\":1}\n");
  EXPECT_EQ(again.headers, "");

  Outcome full = eval({.target = std::string(gw::kQueueJoinPath), .ip = kClient + 1});
  EXPECT_EQ(full.action, Action::queue);
  EXPECT_EQ(full.status, 503);
  EXPECT_EQ(full.content_type, "application/json");
  EXPECT_EQ(full.body, "{\"admitted\":false,\"retry_after\":5,\"capacity\":1}\n");
  EXPECT_EQ(full.headers, "Retry-After: 5\r\n");

  // Expired: waiting room again, and the admission no longer counts.
  Outcome late = eval({.target = "/shop", .extra_headers = with_cookie, .now_s = kNowS + 301});
  EXPECT_EQ(late.status, 503);
  EXPECT_EQ(late.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(eval({.target = std::string(gw::kQueueJoinPath), .now_s = kNowS + 301}).status, 200);
}

// Issue 41, item 7: one address cannot take the whole queue by joining without its cookie.
TEST_F(Policy, QueueTicketsPerClientAddressAreBounded) {
  load({R"("queue": {"capacity": 100, "admission_ttl_s": 60})"});
  const std::string join(gw::kQueueJoinPath);
  for (int i = 0; i < 8; ++i) ASSERT_EQ(eval({.target = join}).status, 200) << i;
  const Outcome over = eval({.target = join});
  expect_local(over, Action::queue, "queue", 429, "application/json");
  EXPECT_EQ(over.body, "{\"admitted\":false,\"retry_after\":5,\"tickets_per_client\":8}\n");
  EXPECT_EQ(over.headers, "Retry-After: 5\r\n");
  // Another address gets a seat; the refused join took none.
  EXPECT_EQ(eval({.target = join, .ip = kClient + 1}).status, 200);
  Outcome status = eval({.target = std::string(gw::kQueueStatusPath)});
  EXPECT_NE(status.body.find("\"admitted\":9,"), std::string::npos) << status.body;
  // The first address joins again once its tickets have expired.
  EXPECT_EQ(eval({.target = join, .now_s = kNowS + 60}).status, 200);
}

TEST_F(Policy, QueueJoinWithReturnRedirectsToTheLocalPath) {
  load({R"("queue": {"capacity": 5})"});
  Outcome o = eval({.target = std::string(gw::kQueueJoinPath) + "?return=%2Fshop%3Fa%3D1"});
  EXPECT_EQ(o.status, 303);
  EXPECT_EQ(o.content_type, "text/plain");
  EXPECT_EQ(o.body, "admitted\n");
  const std::string cookie = set_cookie_value(o.headers, "gb_queue");
  EXPECT_EQ(o.headers,
            "Set-Cookie: gb_queue=" + cookie +
                "; Path=/; Max-Age=300; HttpOnly; SameSite=Lax\r\nLocation: /shop?a=1\r\n");
  Outcome evil = eval({.target = std::string(gw::kQueueJoinPath) + "?return=//evil.test/"});
  EXPECT_NE(evil.headers.find("\r\nLocation: /\r\n"), std::string::npos) << evil.headers;
}

TEST_F(Policy, QueueStatusReportsCapacityAndTheClient) {
  load({R"("queue": {"capacity": 3, "admission_ttl_s": 60, "refresh_s": 2})"});
  Outcome s = eval({.target = std::string(gw::kQueueStatusPath)});
  expect_local(s, Action::queue, "queue", 200, "application/json");
  EXPECT_EQ(s.body,
            "{\"capacity\":3,\"admitted\":0,\"refresh_s\":2,\"admission_ttl_s\":60,"
            "\"you\":\"waiting\"}\n");
  const std::string cookie =
      set_cookie_value(eval({.target = std::string(gw::kQueueJoinPath)}).headers, "gb_queue");
  s = eval({.target = std::string(gw::kQueueStatusPath),
            .extra_headers = "Cookie: gb_queue=" + cookie + "\r\n"});
  EXPECT_EQ(s.body,
            "{\"capacity\":3,\"admitted\":1,\"refresh_s\":2,\"admission_ttl_s\":60,"
            "\"you\":\"admitted\"}\n");
}

TEST_F(Policy, QueueCookieOfAnotherHostDoesNotAdmit) {
  load({R"("queue": {"capacity": 5})", R"("queue": {"capacity": 5})"});
  const std::string cookie = set_cookie_value(
      eval({.target = std::string(gw::kQueueJoinPath), .host = "h1.test"}, 1).headers, "gb_queue");
  ASSERT_FALSE(cookie.empty());
  const std::string header = "Cookie: gb_queue=" + cookie + "\r\n";
  expect_passed(eval({.target = "/", .host = "h1.test", .extra_headers = header}, 1));
  EXPECT_EQ(eval({.target = "/", .extra_headers = header}, 0).status, 503);
  EXPECT_EQ(eval({.target = "/", .extra_headers = "Cookie: gb_queue=forged\r\n"}, 0).status, 503);
}

TEST_F(Policy, ChallengePageVerifyAndPass) {
  load({R"("challenge": {"scope": "all", "pass_ttl_s": 600})"});
  const std::string ua = "User-Agent: browser/1\r\n";
  Outcome page = eval({.target = "/a?x=1", .extra_headers = ua});
  expect_local(page, Action::challenge, "challenge", 403, "text/html; charset=utf-8");
  EXPECT_EQ(
      page.body,
      "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" "
      "content=\"0;url=/__gatebench/challenge/verify?return=/a%3Fx%3D1\"><title>Checking your "
      "browser</title></head><body><p>Checking your browser&hellip;</p></body></html>\n");
  const std::string nonce = set_cookie_value(page.headers, "gb_challenge");
  ASSERT_FALSE(nonce.empty());
  EXPECT_EQ(page.headers, "Set-Cookie: gb_challenge=" + nonce +
                              "; Path=/; Max-Age=60; HttpOnly; SameSite=Lax\r\n");

  Outcome verify = eval({.target = std::string(gw::kChallengeVerifyPath) + "?return=%2Fa%3Fx%3D1",
                         .extra_headers = ua + "Cookie: gb_challenge=" + nonce + "\r\n"});
  expect_local(verify, Action::allow, "challenge", 303, "text/plain");
  EXPECT_EQ(verify.body, "challenge passed\n");
  const std::string pass = set_cookie_value(verify.headers, "gb_pass");
  ASSERT_FALSE(pass.empty());
  EXPECT_EQ(verify.headers, "Set-Cookie: gb_pass=" + pass +
                                "; Path=/; Max-Age=600; HttpOnly; SameSite=Lax\r\n"
                                "Set-Cookie: gb_challenge=; Path=/; Max-Age=0\r\n"
                                "Location: /a?x=1\r\n");
  EXPECT_EQ(tokens::verify_pass(keys(), pass, kNowS, kClient, "browser/1"),
            tokens::VerifyStatus::ok);

  const std::string with_pass = ua + "Cookie: gb_pass=" + pass + "\r\n";
  expect_passed(eval({.target = "/a", .extra_headers = with_pass}));
  // The pass is bound to the address and the User-Agent, and expires.
  EXPECT_EQ(eval({.target = "/a", .ip = kClient + 1, .extra_headers = with_pass}).status, 403);
  EXPECT_EQ(eval({.target = "/a",
                  .extra_headers = "User-Agent: other\r\nCookie: gb_pass=" + pass + "\r\n"})
                .status,
            403);
  EXPECT_EQ(eval({.target = "/a", .extra_headers = with_pass, .now_s = kNowS + 601}).status, 403);
}

void expect_challenge_failed(const Outcome& o) {
  expect_local(o, Action::block, "challenge-failed", 403, "text/plain");
  EXPECT_EQ(o.body, "challenge failed: no valid challenge cookie\n");
  EXPECT_EQ(o.headers, "");
}

TEST_F(Policy, QueueCookieAdmitsOnlyTheClientItWasMintedFor) {
  load({R"("queue": {"capacity": 5})"});
  const std::string ua = "User-Agent: browser/1\r\n";
  const std::string cookie = set_cookie_value(
      eval({.target = std::string(gw::kQueueJoinPath), .extra_headers = ua}).headers, "gb_queue");
  ASSERT_FALSE(cookie.empty());
  const std::string with_cookie = ua + "Cookie: gb_queue=" + cookie + "\r\n";
  expect_passed(eval({.target = "/", .extra_headers = with_cookie}));
  EXPECT_EQ(eval({.target = "/", .ip = kClient + 1, .extra_headers = with_cookie}).status, 503);
  EXPECT_EQ(eval({.target = "/",
                  .extra_headers = "User-Agent: other\r\nCookie: gb_queue=" + cookie + "\r\n"})
                .status,
            503);
  // The status endpoint says the same to the other address.
  EXPECT_NE(eval({.target = std::string(gw::kQueueStatusPath),
                  .ip = kClient + 1,
                  .extra_headers = with_cookie})
                .body.find("\"you\":\"waiting\""),
            std::string::npos);
}

TEST_F(Policy, ChallengeNoncePassesOnce) {
  load({R"("challenge": {})"});
  const std::string nonce = set_cookie_value(eval({.target = "/a"}).headers, "gb_challenge");
  ASSERT_FALSE(nonce.empty());
  const std::string verify = std::string(gw::kChallengeVerifyPath) + "?return=%2Fa";
  const std::string cookie = "Cookie: gb_challenge=" + nonce + "\r\n";
  EXPECT_EQ(eval({.target = verify, .extra_headers = cookie}).status, 303);
  // A replay, from this client or any other, is refused; a new page gives a new nonce.
  expect_challenge_failed(eval({.target = verify, .extra_headers = cookie}));
  expect_challenge_failed(eval({.target = verify, .ip = kClient + 1, .extra_headers = cookie}));
  const std::string fresh = set_cookie_value(eval({.target = "/a"}).headers, "gb_challenge");
  EXPECT_NE(fresh, nonce);
  EXPECT_EQ(
      eval({.target = verify, .extra_headers = "Cookie: gb_challenge=" + fresh + "\r\n"}).status,
      303);
}

TEST_F(Policy, ChallengeVerifyWithoutAValidNonceFails) {
  load({R"("challenge": {}, "queue": {"capacity": 5})"});
  const std::string path = std::string(gw::kChallengeVerifyPath);
  // Admitted by the queue so that only the challenge answers.
  const std::string queue =
      set_cookie_value(eval({.target = std::string(gw::kQueueJoinPath)}).headers, "gb_queue");
  ASSERT_FALSE(queue.empty());
  const std::string q = "gb_queue=" + queue;
  expect_challenge_failed(eval({.target = path, .extra_headers = "Cookie: " + q + "\r\n"}));
  expect_challenge_failed(
      eval({.target = path, .extra_headers = "Cookie: " + q + "; gb_challenge=forged\r\n"}));
  // An admission token of the queue is signed by the same key but is not a challenge nonce.
  expect_challenge_failed(
      eval({.target = path, .extra_headers = "Cookie: " + q + "; gb_challenge=" + queue + "\r\n"}));
  // An expired nonce.
  const std::string nonce =
      set_cookie_value(eval({.extra_headers = "Cookie: " + q + "\r\n"}).headers, "gb_challenge");
  ASSERT_FALSE(nonce.empty());
  expect_challenge_failed(
      eval({.target = path,
            .extra_headers = "Cookie: " + q + "; gb_challenge=" + nonce + "\r\n",
            .now_s = kNowS + 61}));
  EXPECT_EQ(
      eval({.target = path, .extra_headers = "Cookie: " + q + "; gb_challenge=" + nonce + "\r\n"})
          .status,
      303);
}

TEST_F(Policy, ChallengeScopeRulesOnlyForChallengeRules) {
  write("rules.json", R"({"rules": [{"id": "bots", "action": "challenge",
    "when": [{"field": "user_agent", "op": "contains", "value": "bot"}]}]})");
  load({R"("rules": "rules.json", "challenge": {"scope": "rules"})"});
  expect_passed(eval({.extra_headers = "User-Agent: browser\r\n"}));
  Outcome o = eval({.extra_headers = "User-Agent: somebot\r\n"});
  expect_local(o, Action::challenge, "bots", 403, "text/html; charset=utf-8");
  // The verify endpoint works whatever the scope.
  expect_challenge_failed(eval({.target = std::string(gw::kChallengeVerifyPath)}));
}

TEST(FindCookie, NamesValuesAndSeparators) {
  EXPECT_EQ(gw::find_cookie("a=1; gb_pass=xyz; b=2", "gb_pass"), "xyz");
  EXPECT_EQ(gw::find_cookie("gb_pass=xyz", "gb_pass"), "xyz");
  EXPECT_EQ(gw::find_cookie(";;  gb_pass=xyz  ;", "gb_pass"), "xyz");
  EXPECT_EQ(gw::find_cookie("gb_pass2=no; gb_pas=no; xgb_pass=no", "gb_pass"), "");
  EXPECT_EQ(gw::find_cookie("gb_pass=first; gb_pass=second", "gb_pass"), "first");
  EXPECT_EQ(gw::find_cookie("gb_pass=", "gb_pass"), "");
  EXPECT_EQ(gw::find_cookie("gb_pass", "gb_pass"), "");
  EXPECT_EQ(gw::find_cookie("", "gb_pass"), "");
}

TEST(SafeReturnPath, OnlyLocalPathsWithoutControlBytes) {
  std::array<char, 64> out{};
  EXPECT_EQ(gw::safe_return_path("return=%2Fa%2Fb%3Fc%3D1", out), "/a/b?c=1");
  EXPECT_EQ(gw::safe_return_path("x=1&return=/shop&y=2", out), "/shop");
  EXPECT_EQ(gw::safe_return_path("x=1", out), "/");
  EXPECT_EQ(gw::safe_return_path("", out), "/");
  EXPECT_EQ(gw::safe_return_path("return=", out), "/");
  EXPECT_EQ(gw::safe_return_path("return=shop", out), "/");
  EXPECT_EQ(gw::safe_return_path("return=//evil.test/", out), "/");
  EXPECT_EQ(gw::safe_return_path("return=%2F%2Fevil.test", out), "/");
  EXPECT_EQ(gw::safe_return_path("return=/a%0D%0ASet-Cookie:x", out), "/");
  EXPECT_EQ(gw::safe_return_path("return=/a%20b", out), "/");
  EXPECT_EQ(gw::safe_return_path("return=/a%5Cb", out), "/");
  EXPECT_EQ(gw::safe_return_path("return=/a%7f", out), "/");
  EXPECT_EQ(gw::safe_return_path("return=/a%2", out), "/");
  EXPECT_EQ(gw::safe_return_path("return=/a%zz", out), "/");
  std::array<char, 4> small{};
  EXPECT_EQ(gw::safe_return_path("return=/abc", small), "/abc");
  EXPECT_EQ(gw::safe_return_path("return=/abcd", small), "/");
}

}  // namespace
