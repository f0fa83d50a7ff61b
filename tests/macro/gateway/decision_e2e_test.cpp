// End-to-end tests of the decision listener (docs/gateway.md, "Decision endpoint"): its JSON and
// compact (nginx auth_request) forms, their errors, and the same verdict as the proxy path on
// the same generated traffic. Real gateways on loopback: one proxying, one answering each form,
// all with the same configuration, so each has its own rate-limit state fed the same sequence.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "fixtures/rule_sets.hpp"
#include "fixtures/traffic.hpp"
#include "tests/macro/gateway/gateway_testkit.hpp"

using gwtest::fetch;
using gwtest::Response;

namespace {

namespace fx = gatebench::fixtures;

struct Gateway {
  int proxy_port = 0;
  int decision_port = 0;
  std::unique_ptr<gwtest::Process> process;
};

class DecisionE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.file("rules.json", fx::rule_set_json("vpatch100"));
    for (int i = 0; i < 3; ++i) {
      Gateway& g = gateways_[i];
      g.proxy_port = gwtest::free_port();
      g.decision_port = gwtest::free_port();
      const std::string name = "gw" + std::to_string(i);
      dir_.file(
          name + ".json",
          R"({"workers": 1, "listeners": [{"port": )" + std::to_string(g.proxy_port) +
              R"(}, {"port": )" + std::to_string(g.decision_port) +
              R"(, "role": "decision"}], "hosts": [{"names": [")" + std::string(fx::kTrafficHost) +
              R"("], "upstream": "127.0.0.1:)" + std::to_string(upstream_.port()) +
              R"(", "rules": "rules.json", "exploits": "block", "rate_limit": {"rate_per_second": 0.001, "burst": 3}},
                    {"names": ["open.test"], "upstream": "127.0.0.1:)" +
              std::to_string(upstream_.port()) + R"("}]})");
      g.process = std::make_unique<gwtest::Process>(
          std::vector<std::string>{GATEBENCH_GATEWAY_EXE, "--config",
                                   (dir_.path() / (name + ".json")).string()},
          (dir_.path() / (name + ".log")).string());
    }
    for (Gateway& g : gateways_) {
      ASSERT_TRUE(gwtest::wait_port(g.proxy_port)) << g.process->output();
      ASSERT_TRUE(gwtest::wait_port(g.decision_port)) << g.process->output();
    }
  }
  void TearDown() override {
    for (Gateway& g : gateways_) {
      if (g.process) {
        EXPECT_EQ(g.process->stop(), 0) << g.process->output();
      }
    }
  }
  Response decide_json(int gateway, const nlohmann::json& body) {
    const std::string text = body.dump();
    return fetch(gateways_[gateway].decision_port,
                 "POST /v1/decision HTTP/1.1\r\nHost: decision.internal\r\nContent-Type: "
                 "application/json\r\nContent-Length: " +
                     std::to_string(text.size()) + "\r\n\r\n" + text);
  }

  gwtest::TempDir dir_;
  gwtest::Upstream upstream_;
  Gateway gateways_[3];
};

TEST_F(DecisionE2E, JsonFormAnswersTheVerdict) {
  Response r = decide_json(0, {{"method", "GET"}, {"host", "open.test"}, {"path", "/"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
  nlohmann::json v = nlohmann::json::parse(r.body);
  EXPECT_EQ(v["verdict"], "allow");
  EXPECT_EQ(v["status"], 200);
  EXPECT_TRUE(v["rule"].is_null());
  r = decide_json(0, {{"host", "nowhere.test"}, {"path", "/"}});
  v = nlohmann::json::parse(r.body);
  EXPECT_EQ(v["verdict"], "deny");
  EXPECT_EQ(v["status"], 421);
  EXPECT_EQ(v["rule"], "unknown-host");
  // An exploit in the described query; a header value with escapes in the JSON.
  r = decide_json(0, {{"host", fx::kTrafficHost},
                      {"path", "/search"},
                      {"query", "q=1'%20UNION%20SELECT%20password%20FROM%20users--"},
                      {"client_ip", "10.1.2.3"},
                      {"headers", {{"User-Agent", "a \"quoted\" agent\\"}}}});
  v = nlohmann::json::parse(r.body);
  EXPECT_EQ(v["verdict"], "deny") << r.body;
  EXPECT_EQ(v["status"], 403);
  EXPECT_EQ(v["headers"][0], "X-Gatebench-Rule: " + v["rule"].get<std::string>());
  // One client past its burst is rate-limited (burst 3 beyond the first, almost no refill).
  for (int i = 0; i < 6; ++i) {
    r = decide_json(1, {{"host", fx::kTrafficHost}, {"path", "/"}, {"client_ip", "10.9.9.9"}});
  }
  v = nlohmann::json::parse(r.body);
  EXPECT_EQ(v["verdict"], "rate-limited") << r.body;
  EXPECT_EQ(v["status"], 429);
  EXPECT_EQ(v["headers"][0], "Retry-After: 1");
}

TEST_F(DecisionE2E, JsonFormErrors) {
  const int port = gateways_[0].decision_port;
  const auto post = [&](const std::string& body) {
    return fetch(port, "POST /v1/decision HTTP/1.1\r\nHost: d\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n\r\n" + body);
  };
  EXPECT_EQ(post("{").status, 400);
  EXPECT_EQ(post(R"({"path":"/"})").status, 400);  // no host
  EXPECT_EQ(post(R"({"host":"a","path":"/","client_ip":"1.2.3"})").status, 400);
  EXPECT_EQ(post(R"({"host":"a","path":"/","headers":{"X":1}})").status, 400);
  EXPECT_EQ(post(R"({"host":"a","path":"/x y"})").status, 400);  // not a valid request line
  EXPECT_EQ(post(R"({"host":"a","path":"/","headers":{"X":"a\r\nB: c"}})").status, 400);
  EXPECT_EQ(fetch(port, "GET /v1/decision HTTP/1.1\r\nHost: d\r\n\r\n").status, 405);
  // Keep-alive after a JSON decision: the body is consumed, the next request parses.
  gwtest::Conn c(gwtest::connect_to(port));
  const std::string body = R"({"host":"open.test","path":"/"})";
  const std::string req =
      "POST /v1/decision HTTP/1.1\r\nHost: d\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n" + body;
  ASSERT_TRUE(c.send(req + req));
  EXPECT_EQ(c.read_response().status, 200);
  EXPECT_EQ(c.read_response().status, 200);
}

TEST_F(DecisionE2E, CompactFormForAuthRequest) {
  const int port = gateways_[0].decision_port;
  Response r = fetch(port,
                     "GET /auth HTTP/1.1\r\nHost: decision.internal\r\nX-Original-URI: /ok\r\n"
                     "X-Forwarded-Host: open.test\r\nX-Forwarded-For: 10.0.0.1\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("x-gatebench-verdict"), "allow");
  r = fetch(port,
            "GET /auth HTTP/1.1\r\nHost: decision.internal\r\nX-Original-Method: GET\r\n"
            "X-Original-URI: /search?q=1'%20UNION%20SELECT%20password%20FROM%20users--\r\n"
            "X-Forwarded-Host: " +
                std::string(fx::kTrafficHost) + "\r\nX-Forwarded-For: 10.0.0.2\r\n\r\n");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.header("x-gatebench-verdict"), "deny");
  EXPECT_EQ(r.header("x-gatebench-status"), "403");
  EXPECT_FALSE(r.header("x-gatebench-rule").empty());
  EXPECT_EQ(r.headers["x-gatebench-rule"].size(), 1u);
  // No X-Original-URI: the description is incomplete.
  EXPECT_EQ(fetch(port, "GET /auth HTTP/1.1\r\nHost: open.test\r\n\r\n").status, 400);
  EXPECT_EQ(fetch(port,
                  "GET /auth HTTP/1.1\r\nHost: d\r\nX-Original-URI: /\r\n"
                  "X-Forwarded-For: not-an-ip\r\n\r\n")
                .status,
            400);
}

// The three paths on the same 400 generated requests (70 % GET / 25 % POST / 5 % attacks, heads
// only: a described request carries no body), each client address mapped into 127/8 so the
// proxy path sees it as the peer address. Every request's status and rule must agree.
TEST_F(DecisionE2E, SameVerdictAsTheProxyPathOnGeneratedTraffic) {
  const fx::Traffic traffic = fx::generate_traffic("mix", 400, fx::kDefaultSeed + 25);
  std::map<int, int> statuses;
  for (std::size_t i = 0; i < traffic.size(); ++i) {
    const fx::OwnedRequest& q = traffic.request(i);
    const std::uint32_t a = q.client_ip;
    const std::string ip = "127." + std::to_string(1 + ((a >> 16) & 255) % 250) + "." +
                           std::to_string((a >> 8) & 255) + "." +
                           std::to_string(1 + (a & 255) % 250);
    const std::string target = q.path + (q.query.empty() ? "" : "?" + q.query);
    std::string head = q.method + " " + target + " HTTP/1.1\r\n";
    std::string compact =
        "GET /auth HTTP/1.1\r\nHost: decision.internal\r\nX-Original-Method: " + q.method +
        "\r\nX-Original-URI: " + target + "\r\nX-Forwarded-Host: " + q.host +
        "\r\nX-Forwarded-For: " + ip + "\r\n";
    nlohmann::json headers = nlohmann::json::object();
    for (const auto& [name, value] : q.headers) {
      if (name == "Content-Length") continue;
      head += name + ": " + value + "\r\n";
      if (name == "Host") continue;
      compact += name + ": " + value + "\r\n";
      headers[name] = value;
    }
    gwtest::Conn to_proxy(gwtest::connect_to(gateways_[0].proxy_port, ip.c_str()));
    ASSERT_TRUE(to_proxy.valid() && to_proxy.send(head + "\r\n")) << ip;
    const Response proxied = to_proxy.read_response(q.method == "HEAD");
    const Response json = decide_json(1, {{"method", q.method},
                                          {"host", q.host},
                                          {"path", q.path},
                                          {"query", q.query},
                                          {"client_ip", ip},
                                          {"headers", headers}});
    const Response comp = fetch(gateways_[2].decision_port, compact + "\r\n");
    ASSERT_TRUE(proxied.ok && json.ok && comp.ok)
        << i << ": " << proxied.ok << json.ok << comp.ok << " from " << ip << " " << head;
    int json_status = json.status;
    std::string json_rule;
    if (json.status == 200) {
      const nlohmann::json v = nlohmann::json::parse(json.body);
      json_status = v["status"];
      if (v["rule"].is_string()) json_rule = v["rule"];
    }
    const std::string comp_status = comp.header("x-gatebench-status");
    EXPECT_EQ(proxied.status, json_status) << i << " " << head;
    EXPECT_EQ(std::to_string(proxied.status),
              comp_status.empty() ? std::to_string(comp.status) : comp_status)
        << i << " " << head;
    if (proxied.has("x-gatebench-rule")) {
      EXPECT_EQ(proxied.header("x-gatebench-rule"), json_rule) << i;
      EXPECT_EQ(proxied.header("x-gatebench-rule"), comp.header("x-gatebench-rule")) << i;
    }
    ++statuses[proxied.status];
  }
  // The traffic reached every verdict the configuration can give.
  EXPECT_GT(statuses[200], 0);
  EXPECT_GT(statuses[403], 0);
  EXPECT_GT(statuses[429], 0);
}

}  // namespace
