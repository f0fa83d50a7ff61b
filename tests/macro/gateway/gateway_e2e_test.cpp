// End-to-end tests of gatebench-gateway (and gatebench-control): the real executables on
// loopback, a scripted upstream in this process, raw HTTP from the test. Every process is
// stopped by the fixture; each test takes well under a few seconds.
#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <nlohmann/json.hpp>

#include "macro/common/child_process.hpp"
#include "tests/macro/gateway/gateway_fixture.hpp"
#include "tests/macro/gateway/gateway_testkit.hpp"

using gwtest::Conn;
using gwtest::fetch;
using gwtest::get_request;
using gwtest::Response;

namespace {

constexpr const char* kSecret = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

class GatewayE2E : public gwtest::GatewayFixture {
 protected:
  // Starts the gateway with `hosts` (a JSON array body) and optional extra top-level fields.
  void start(const std::string& hosts, const std::string& extra = "", bool wait = true,
             std::vector<std::string> env = {}) {
    port_ = gwtest::free_port();
    config_path_ = dir_.path() / "gw.json";
    write_config(hosts, extra);
    gateway_ = std::make_unique<gwtest::Process>(
        std::vector<std::string>{GATEBENCH_GATEWAY_EXE, "--config", config_path_.string()},
        (dir_.path() / "gateway.log").string(), std::move(env));
    if (wait) {
      ASSERT_TRUE(gwtest::wait_port(port_)) << gateway_->output();
    }
  }
  void write_config(const std::string& hosts, const std::string& extra) {
    dir_.file("gw.json", R"({"workers": 2, "listeners": [{"port": )" + std::to_string(port_) +
                             R"(}], "tokens": {"secret_hex": ")" + kSecret + "\"}" + extra +
                             R"(, "limits": {"max_header_bytes": 4096}, "hosts": [)" + hosts +
                             "]}");
  }
  Response get(const std::string& host_name, const std::string& path, const std::string& extra = "",
               const char* source = nullptr) {
    return fetch(port_, get_request(host_name, path, extra), source);
  }
  std::filesystem::path config_path_;
};

TEST_F(GatewayE2E, ProxiesAndRewritesHopByHopAndForwardedHeaders) {
  start(host(R"("*")"));
  Conn c(gwtest::connect_to(port_));
  ASSERT_TRUE(c.send(get_request("a.test", "/hop",
                                 "Connection: keep-alive, X-Drop\r\nX-Drop: 1\r\nKeep-Alive: 5\r\n"
                                 "TE: trailers\r\nX-Forwarded-For: 203.0.113.9\r\n"
                                 "X-Forwarded-Proto: gopher\r\nX-Keep: yes\r\n")));
  Response r = c.read_response();
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
  EXPECT_FALSE(r.has("x-hop"));
  EXPECT_FALSE(r.has("keep-alive"));
  EXPECT_EQ(r.header("x-end"), "kept");
  EXPECT_EQ(r.header("x-frame-options"), "ALLOWALL");  // security headers off on this host
  // A second request on the same client connection reuses the pooled upstream connection.
  ASSERT_TRUE(c.send(get_request("a.test", "/second")));
  EXPECT_EQ(c.read_response().status, 200);
  auto seen = upstream_.requests();
  ASSERT_EQ(seen.size(), 2u);
  const std::string& h = seen[0].head;
  EXPECT_EQ(h.find("X-Drop"), std::string::npos) << h;
  EXPECT_EQ(h.find("Keep-Alive"), std::string::npos) << h;
  EXPECT_EQ(h.find("TE:"), std::string::npos) << h;
  EXPECT_EQ(h.find("Connection"), std::string::npos) << h;
  EXPECT_NE(h.find("X-Forwarded-For: 203.0.113.9, 127.0.0.1\r\n"), std::string::npos) << h;
  EXPECT_NE(h.find("X-Forwarded-Proto: http\r\n"), std::string::npos) << h;
  EXPECT_EQ(h.find("gopher"), std::string::npos) << h;
  EXPECT_NE(h.find("X-Keep: yes\r\n"), std::string::npos) << h;
  EXPECT_NE(h.find("Host: a.test\r\n"), std::string::npos) << h;
  EXPECT_EQ(upstream_.connections(), 1);
}

TEST_F(GatewayE2E, UnknownHostGets421) {
  start(host(R"("known.test")"));
  Response r = get("other.test", "/");
  EXPECT_EQ(r.status, 421);
  EXPECT_TRUE(upstream_.requests().empty());
  EXPECT_EQ(get("known.test", "/").status, 200);
}

TEST_F(GatewayE2E, CalibrationWorkLeavesResponsesUnchanged) {
  start(host(R"("*")"), "", true, {"GATEBENCH_GATEWAY_CALIBRATE_MIXES=20000"});
  Conn c(gwtest::connect_to(port_));
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(c.send(get_request("a.test", "/calibrated/" + std::to_string(i))));
    Response r = c.read_response();
    ASSERT_EQ(r.status, 200) << "request " << i;
  }
  EXPECT_EQ(get("a.test", "/one-more").status, 200);
  EXPECT_EQ(upstream_.requests().size(), 21u);
  EXPECT_NE(gateway_->output().find("calibration: 20000 mixes per request"), std::string::npos)
      << gateway_->output();
}

TEST_F(GatewayE2E, StudyInjectionsLeaveResponsesUnchanged) {
  start(host(R"("*")"), "", true, {"GATEBENCH_GATEWAY_STUDY_INJECT=alloc,write,copy"});
  Conn c(gwtest::connect_to(port_));
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(c.send(get_request("a.test", "/injected/" + std::to_string(i))));
    Response r = c.read_response();
    ASSERT_EQ(r.status, 200) << "request " << i;
  }
  EXPECT_EQ(upstream_.requests().size(), 20u);
  EXPECT_NE(gateway_->output().find("study injection: alloc write copy per request"),
            std::string::npos)
      << gateway_->output();
}

TEST_F(GatewayE2E, UpstreamDownIs502AndTimeoutIs504) {
  int dead = gwtest::free_port();
  start(host(R"("down.test")", "", dead) + "," +
        host(R"("slow.test")", R"(, "read_timeout_ms": 300)"));
  Response r = get("down.test", "/");
  EXPECT_EQ(r.status, 502);
  auto t0 = std::chrono::steady_clock::now();
  r = get("slow.test", "/slow");
  EXPECT_EQ(r.status, 504);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1400));
}

TEST_F(GatewayE2E, StalePooledConnectionsAreNotUsedOrAreRetried) {
  start(host(R"("*")"));
  Conn c(gwtest::connect_to(port_));
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(c.send(get_request("a", "/close-after")));
    Response r = c.read_response();
    ASSERT_EQ(r.status, 200) << "request " << i;
    if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(upstream_.requests().size(), 30u);
}

TEST_F(GatewayE2E, OversizedHeadersGet431) {
  start(host(R"("*")"));
  Response r = get("a.test", "/", "X-Big: " + std::string(5000, 'b') + "\r\n");
  EXPECT_EQ(r.status, 431);
  EXPECT_TRUE(upstream_.requests().empty());
}

TEST_F(GatewayE2E, SmugglingAttemptsGet400AndNeverReachTheUpstream) {
  start(host(R"("*")"));
  const std::string attempts[] = {
      "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: "
      "chunked\r\n\r\n0\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: "
      "4\r\n\r\n0\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nContent-Length: 40\r\n\r\nabcd",
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: a\r\nX: y\r\n z\r\n\r\n",
  };
  for (const std::string& raw : attempts) {
    Response r = fetch(port_, raw);
    EXPECT_EQ(r.status, 400) << raw;
    EXPECT_EQ(r.header("connection"), "close") << raw;
  }
  EXPECT_TRUE(upstream_.requests().empty());
}

TEST_F(GatewayE2E, RequestBodiesAreStreamedBothFramings) {
  start(host(R"("*")"));
  std::string big(300000, 'q');
  for (std::size_t i = 0; i < big.size(); i += 97) big[i] = static_cast<char>('a' + i % 26);
  Conn c(gwtest::connect_to(port_));
  ASSERT_TRUE(c.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: " +
                     std::to_string(big.size()) + "\r\n\r\n" + big));
  Response r = c.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body == big);
  // Chunked request, sent in pieces, on the same connection.
  ASSERT_TRUE(
      c.send("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(c.send("lo\r\n6;x=y\r\n world\r\n0\r\n\r\n"));
  r = c.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello world");
  auto seen = upstream_.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NE(seen[1].head.find("Transfer-Encoding: chunked"), std::string::npos);
}

TEST_F(GatewayE2E, ResponseBodiesAreStreamedChunkedAndLarge) {
  start(host(R"("*")"));
  Conn c(gwtest::connect_to(port_));
  ASSERT_TRUE(c.send(get_request("a", "/chunked")));
  Response r = c.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("transfer-encoding"), "chunked");
  EXPECT_EQ(r.body, "abcdefg");
  ASSERT_TRUE(c.send(get_request("a", "/big")));
  r = c.read_response();
  EXPECT_EQ(r.body.size(), 1048576u);
  EXPECT_EQ(r.body.find_first_not_of('x'), std::string::npos);
  // HEAD: no body even though the upstream states a length.
  ASSERT_TRUE(c.send("HEAD / HTTP/1.1\r\nHost: a\r\n\r\n"));
  r = c.read_response(true);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-length"), "3");
}

TEST_F(GatewayE2E, PipelinedRequestsAnswerInOrder) {
  start(host(R"("*")"));
  Conn c(gwtest::connect_to(port_));
  ASSERT_TRUE(c.send(get_request("a", "/chunked") + get_request("a", "/echo") +
                     get_request("nope", "/", "") /* default host "*" answers it too */));
  EXPECT_EQ(c.read_response().body, "abcdefg");
  Response r = c.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(c.read_response().body, "ok\n");
}

TEST_F(GatewayE2E, Http10ClientsGetLengthDelimitedKeepAlive) {
  start(host(R"("*")"));
  Conn c(gwtest::connect_to(port_));
  ASSERT_TRUE(c.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
  Response r = c.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("connection"), "keep-alive");
  ASSERT_TRUE(c.send("GET / HTTP/1.0\r\n\r\n"));
  r = c.read_response();
  EXPECT_EQ(r.header("connection"), "close");
  EXPECT_FALSE(c.fill());  // closed after a non-keep-alive HTTP/1.0 exchange
}

// ---- features -----------------------------------------------------------------------------

TEST_F(GatewayE2E, IpListsAndCountries) {
  dir_.file("deny.txt", "127.0.0.2\n10.0.0.0/8\n");
  dir_.file("allow.txt", "127.0.0.0/29\n");
  dir_.file("cc.txt", "127.0.0.0/8 ZZ\n127.0.0.4/32 XX\n");
  start(host(R"("ip.test")",
             R"(, "ip_lists": [{"id": "bad-ips", "file": "deny.txt", "action": "deny"},
                                              {"id": "office", "file": "allow.txt", "action": "allow"}],
                                "countries": {"table": "cc.txt", "deny": ["XX"]})"));
  Response r = get("ip.test", "/", "", "127.0.0.1");
  EXPECT_EQ(r.status, 200);
  r = get("ip.test", "/", "", "127.0.0.2");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.header("x-gatebench-rule"), "bad-ips");
  r = get("ip.test", "/", "", "127.0.0.4");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.header("x-gatebench-rule"), "country:XX");
  r = get("ip.test", "/", "", "127.0.0.9");  // outside the allow list
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.header("x-gatebench-rule"), "not-in:office");
  EXPECT_EQ(upstream_.requests().size(), 1u);
}

TEST_F(GatewayE2E, RulesExploitsAndRateLimit) {
  dir_.file("rules.json", R"({"exploit": {"mode": "block"},
    "rules": [{"id": "no-admin", "action": "block", "when": [{"field": "path", "op": "prefix", "value": "/admin"}]},
              {"id": "trusted", "action": "allow", "when": [{"field": "header", "name": "x-trusted", "op": "equals", "value": "yes"}]},
              {"id": "watch", "action": "log", "when": [{"field": "path", "op": "equals", "value": "/watched"}]}]})");
  dir_.file("detect.json", R"({"exploit": {"mode": "detect"}, "rules": []})");
  start(host(R"("rules.test")",
             R"(, "rules": "rules.json", "rate_limit": {"rate_per_second": 0.5, "burst": 4})") +
        "," + host(R"("detect.test")", R"(, "rules": "detect.json")"));
  Response r = get("rules.test", "/admin/users");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.header("x-gatebench-rule"), "no-admin");
  EXPECT_NE(r.body.find("no-admin"), std::string::npos);
  r = get("rules.test", "/search?q=1%27%20UNION%20SELECT%20password%20FROM%20users--");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.header("x-gatebench-rule").rfind("exploit:", 0), 0u) << r.header("x-gatebench-rule");
  r = get("detect.test", "/search?q=1%27%20UNION%20SELECT%20password%20FROM%20users--");
  EXPECT_EQ(r.status, 200);  // detect mode only logs
  EXPECT_EQ(get("rules.test", "/watched").status, 200);
  // Rate limit: burst 4 at 0.5/s, i.e. 5 requests at once. The limit is per worker, so the
  // requests share one connection (one worker); the blocked requests above were not charged
  // because rules run first. A client address of its own keeps the other requests' charges out.
  Conn c(gwtest::connect_to(port_, "127.0.0.6"));
  int ok = 0;
  int limited = 0;
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(c.send(get_request("rules.test", "/x")));
    int s = c.read_response().status;
    ok += s == 200;
    limited += s == 429;
  }
  EXPECT_EQ(ok, 5);
  EXPECT_EQ(limited, 2);
  // An allow rule vouches for the request: the rate limit does not apply.
  ASSERT_TRUE(c.send(get_request("rules.test", "/x", "X-Trusted: yes\r\n")));
  EXPECT_EQ(c.read_response().status, 200);
}

TEST_F(GatewayE2E, SecurityHeadersReplaceTheUpstreams) {
  start(host(R"("basic.test")", R"(, "security_headers": "basic")") + "," +
        host(R"("strict.test")", R"(, "security_headers": "strict")"));
  Response r = get("basic.test", "/hop");
  EXPECT_EQ(r.header("x-frame-options"), "SAMEORIGIN");
  EXPECT_EQ(r.headers["x-frame-options"].size(), 1u);
  EXPECT_EQ(r.header("x-content-type-options"), "nosniff");
  EXPECT_FALSE(r.has("strict-transport-security"));
  r = get("strict.test", "/hop");
  EXPECT_EQ(r.header("x-frame-options"), "DENY");
  EXPECT_TRUE(r.has("strict-transport-security"));
  EXPECT_TRUE(r.has("content-security-policy"));
  r = get("strict.test", "/", "Content-Length: 5 5\r\n");  // local responses carry them too
  EXPECT_EQ(r.status, 400);
  r = fetch(port_, "GET / HTTP/1.1\r\nHost: strict.test\r\nX: \x01\r\n\r\n");
  EXPECT_EQ(r.status, 400);
}

std::string cookie_of(const Response& r, const std::string& name) {
  auto it = r.headers.find("set-cookie");
  if (it == r.headers.end()) return {};
  for (const std::string& v : it->second) {
    if (v.rfind(name + "=", 0) == 0) return v.substr(0, v.find(';'));
  }
  return {};
}

TEST_F(GatewayE2E, QueueJoinAdmitsUpToCapacity) {
  start(host(R"("queue.test")",
             R"(, "queue": {"capacity": 2, "admission_ttl_s": 60, "refresh_s": 3})"));
  Response r = get("queue.test", "/shop");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.header("retry-after"), "3");
  EXPECT_NE(r.body.find("/__gatebench/queue/join?return=/shop"), std::string::npos);
  r = get("queue.test", "/__gatebench/queue/join?return=%2Fshop");
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(r.header("location"), "/shop");
  std::string cookie = cookie_of(r, "gb_queue");
  ASSERT_FALSE(cookie.empty());
  r = get("queue.test", "/shop", "Cookie: a=b; " + cookie + "\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
  EXPECT_EQ(get("queue.test", "/__gatebench/queue/join").status, 200);  // second seat
  r = get("queue.test", "/__gatebench/queue/join");
  EXPECT_EQ(r.status, 503);  // full
  r = get("queue.test", "/__gatebench/queue/status");
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["capacity"], 2);
  EXPECT_EQ(j["admitted"], 2);
  // A forged or altered cookie is not an admission.
  std::string forged = cookie;
  forged[forged.size() - 2] = forged[forged.size() - 2] == 'A' ? 'B' : 'A';
  EXPECT_EQ(get("queue.test", "/shop", "Cookie: " + forged + "\r\n").status, 503);
  EXPECT_EQ(upstream_.requests().size(), 1u);
}

TEST_F(GatewayE2E, ChallengeVerifySetsAClientBoundPassCookie) {
  start(host(R"("chal.test")", R"(, "challenge": {"mode": "cookie", "pass_ttl_s": 600})"));
  Response r = get("chal.test", "/account?x=1", "User-Agent: browser/1\r\n");
  EXPECT_EQ(r.status, 403);
  std::string nonce = cookie_of(r, "gb_challenge");
  ASSERT_FALSE(nonce.empty());
  EXPECT_NE(r.body.find("/__gatebench/challenge/verify?return=/account%3Fx%3D1"), std::string::npos)
      << r.body;
  // Without the challenge cookie, verify refuses.
  EXPECT_EQ(get("chal.test", "/__gatebench/challenge/verify", "User-Agent: browser/1\r\n").status,
            403);
  r = get("chal.test", "/__gatebench/challenge/verify?return=/account%3Fx%3D1",
          "User-Agent: browser/1\r\nCookie: " + nonce + "\r\n");
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(r.header("location"), "/account?x=1");
  std::string pass = cookie_of(r, "gb_pass");
  ASSERT_FALSE(pass.empty());
  r = get("chal.test", "/account", "User-Agent: browser/1\r\nCookie: " + pass + "\r\n");
  EXPECT_EQ(r.status, 200);
  // The pass is bound to the client: another User-Agent or address is challenged again.
  EXPECT_EQ(get("chal.test", "/account", "User-Agent: other/2\r\nCookie: " + pass + "\r\n").status,
            403);
  EXPECT_EQ(
      get("chal.test", "/account", "User-Agent: browser/1\r\nCookie: " + pass + "\r\n", "127.0.0.5")
          .status,
      403);
  // The nonce is used up; a verify with the pass shows return= cannot redirect elsewhere.
  EXPECT_EQ(get("chal.test", "/__gatebench/challenge/verify",
                "User-Agent: browser/1\r\nCookie: " + nonce + "\r\n")
                .status,
            403);
  r = get("chal.test", "/__gatebench/challenge/verify?return=//evil.test/",
          "User-Agent: browser/1\r\nCookie: " + pass + "\r\n");
  EXPECT_EQ(r.header("location"), "/");
  EXPECT_EQ(upstream_.requests().size(), 1u);
}

// ---- reload, stop, control plane, TLS -----------------------------------------------------

TEST_F(GatewayE2E, ReloadAppliesAGoodConfigAndKeepsTheOldOneOnABadOne) {
  start(host(R"("one.test")"));
  EXPECT_EQ(get("two.test", "/").status, 421);
  write_config(host(R"("one.test")") + "," + host(R"("two.test")"), "");
  gateway_->signal(SIGHUP);
  int status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    status = get("two.test", "/").status;
  }
  EXPECT_EQ(status, 200);
  dir_.file("gw.json",
            R"({"listeners": [{"port": 1}], "hosts": [{"names": ["x"], "upstream": "bad"}]})");
  gateway_->signal(SIGHUP);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(get("two.test", "/").status, 200);
  std::string log = gateway_->output();
  EXPECT_NE(log.find("reload refused"), std::string::npos) << log;
  EXPECT_NE(log.find("/hosts/0/upstream"), std::string::npos) << log;
}

TEST_F(GatewayE2E, SigtermStopsGracefully) {
  start(host(R"("*")"));
  Conn idle(gwtest::connect_to(port_));
  ASSERT_TRUE(idle.send(get_request("a", "/")));
  EXPECT_EQ(idle.read_response().status, 200);
  gateway_->signal(SIGTERM);
  EXPECT_EQ(gateway_->wait_exit(3000), 0) << gateway_->output();
  EXPECT_FALSE(idle.fill());  // the idle keep-alive connection was closed
}

TEST_F(GatewayE2E, ControlPlaneCountsEqualRequestsSent) {
  int udp = gwtest::free_port();
  int http = gwtest::free_port();
  gwtest::Process control({GATEBENCH_CONTROL_EXE, "--udp", "127.0.0.1:" + std::to_string(udp),
                           "--http", "127.0.0.1:" + std::to_string(http), "--duration", "20"},
                          (dir_.path() / "control.log").string());
  ASSERT_TRUE(gwtest::wait_port(http)) << control.output();
  dir_.file(
      "rules.json",
      R"({"rules": [{"id": "no-admin", "action": "block", "when": [{"field": "path", "op": "prefix", "value": "/admin"}]}]})");
  start(host(R"("a.test")", R"(, "rules": "rules.json")"),
        R"(, "access_log": {"control": "127.0.0.1:)" + std::to_string(udp) +
            R"(", "flush_ms": 100})");
  constexpr int kOk = 230;
  constexpr int kBlocked = 20;
  constexpr int kUnknown = 7;
  Conn c(gwtest::connect_to(port_));
  for (int i = 0; i < kOk + kBlocked; ++i) {
    ASSERT_TRUE(c.send(get_request("a.test", i < kBlocked ? "/admin" : "/p")));
    ASSERT_TRUE(c.read_response().ok);
  }
  for (int i = 0; i < kUnknown; ++i) EXPECT_EQ(get("b.test", "/").status, 421);
  nlohmann::json j;
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Response r = fetch(http, "GET /stats HTTP/1.1\r\nHost: c\r\n\r\n");
    ASSERT_EQ(r.status, 200);
    j = nlohmann::json::parse(r.body);
    if (j["records"]["parsed"] == kOk + kBlocked + kUnknown) break;
  }
  EXPECT_EQ(j["records"]["parsed"], kOk + kBlocked + kUnknown);
  EXPECT_EQ(j["records"]["rejected"], 0);
  EXPECT_EQ(j["datagrams"]["lost"], 0);
  EXPECT_EQ(j["datagrams"]["malformed"], 0);
  EXPECT_EQ(j["hosts"]["a.test"]["status"]["200"], kOk);
  EXPECT_EQ(j["hosts"]["a.test"]["status"]["403"], kBlocked);
  EXPECT_EQ(j["hosts"]["b.test"]["status"]["421"], kUnknown);
  EXPECT_EQ(j["rules"]["no-admin"]["block"], kBlocked);
  Response m = fetch(http, "GET /metrics HTTP/1.1\r\nHost: c\r\n\r\n");
  EXPECT_NE(m.body.find("gatebench_requests_total{host=\"a.test\",status=\"200\"} 230"),
            std::string::npos)
      << m.body;
  EXPECT_EQ(control.stop(), 0);
}

class TlsE2E : public GatewayE2E {
 protected:
  void SetUp() override {
    const std::string d = dir_.path().string();
    // A self-signed certificate for CN=localhost: `key` is what follows -newkey.
    const auto self_signed = [&](const std::vector<std::string>& key, const std::string& name) {
      gatebench::common::SpawnSpec openssl;
      openssl.exe = "openssl";
      openssl.args = {"req", "-x509", "-newkey"};
      openssl.args.insert(openssl.args.end(), key.begin(), key.end());
      openssl.args.insert(openssl.args.end(),
                          {"-nodes", "-keyout", d + "/" + name + ".key", "-out",
                           d + "/" + name + ".crt", "-days", "1", "-subj", "/CN=localhost"});
      return gatebench::common::run_to_exit(openssl);
    };
    ASSERT_EQ(self_signed({"ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"}, "ec"), 0);
    ASSERT_EQ(self_signed({"rsa:2048"}, "rsa"), 0);
  }
  void start_tls() {
    port_ = gwtest::free_port();
    config_path_ = dir_.path() / "gw.json";
    // HTTP/1.1 only: the client below offers h2 too, and these tests read HTTP/1.1 (the h2
    // side of a TLS listener is h2_e2e_test.cpp's).
    dir_.file("gw.json", R"({"workers": 2, "listeners": [{"protocol": "https", "port": )" +
                             std::to_string(port_) + R"(, "http2": false}],
      "tls": {"certificates": [{"cert": "ec.crt", "key": "ec.key"}, {"cert": "rsa.crt", "key": "rsa.key"}]},
      "hosts": [)" + host(R"("*")", R"(, "security_headers": "strict")") +
                             "]}");
    gateway_ = std::make_unique<gwtest::Process>(
        std::vector<std::string>{GATEBENCH_GATEWAY_EXE, "--config", config_path_.string()},
        (dir_.path() / "gateway.log").string());
    ASSERT_TRUE(gwtest::wait_port(port_)) << gateway_->output();
  }
  struct Handshake {
    Conn conn;
    bool ok = false;
    bool resumed = false;
    std::string alpn;
    int key_type = 0;
  };
  Handshake connect_tls(SSL_CTX* ctx, SSL_SESSION* session) {
    Handshake h;
    h.conn = Conn(gwtest::connect_to(port_));
    SSL* ssl = SSL_new(ctx);
    SSL_set_fd(ssl, h.conn.fd());
    SSL_set_tlsext_host_name(ssl, "localhost");
    if (session != nullptr) SSL_set_session(ssl, session);
    h.conn.attach_tls(ssl);
    h.ok = SSL_connect(ssl) == 1;
    h.resumed = SSL_session_reused(ssl) == 1;
    const unsigned char* proto = nullptr;
    unsigned len = 0;
    SSL_get0_alpn_selected(ssl, &proto, &len);
    h.alpn.assign(reinterpret_cast<const char*>(proto), len);
    if (X509* cert = SSL_get0_peer_certificate(ssl)) {
      h.key_type = EVP_PKEY_base_id(X509_get0_pubkey(cert));
    }
    return h;
  }
};

TEST_F(TlsE2E, FullAndResumedHandshakesTls13AndTls12) {
  start_tls();
  for (int version : {TLS1_3_VERSION, TLS1_2_VERSION}) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_min_proto_version(ctx, version);
    SSL_CTX_set_max_proto_version(ctx, version);
    static const unsigned char kAlpn[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_CTX_set_alpn_protos(ctx, kAlpn, sizeof kAlpn);
    SSL_SESSION* session = nullptr;
    {
      Handshake h = connect_tls(ctx, nullptr);
      ASSERT_TRUE(h.ok) << version;
      EXPECT_FALSE(h.resumed);
      EXPECT_EQ(h.alpn, "http/1.1");
      ASSERT_TRUE(h.conn.send(get_request("localhost", "/")));
      Response r = h.conn.read_response();  // TLS 1.3 tickets arrive with the first read
      EXPECT_EQ(r.status, 200);
      EXPECT_EQ(r.body, "ok\n");
      EXPECT_TRUE(r.has("strict-transport-security"));
      ASSERT_TRUE(h.conn.send(get_request("localhost", "/big")));
      EXPECT_EQ(h.conn.read_response().body.size(), 1048576u);
      session = SSL_get1_session(h.conn.ssl());
    }
    {
      Handshake h = connect_tls(ctx, session);
      ASSERT_TRUE(h.ok);
      EXPECT_TRUE(h.resumed) << "TLS version " << version;
      ASSERT_TRUE(h.conn.send(get_request("localhost", "/")));
      EXPECT_EQ(h.conn.read_response().status, 200);
    }
    SSL_SESSION_free(session);
    SSL_CTX_free(ctx);
  }
  auto seen = upstream_.requests();
  ASSERT_FALSE(seen.empty());
  EXPECT_NE(seen[0].head.find("X-Forwarded-Proto: https"), std::string::npos);
}

TEST_F(TlsE2E, ServesTheEcdsaOrTheRsaCertificateByClientSignatureAlgorithms) {
  start_tls();
  for (const char* sigalgs : {"ECDSA+SHA256", "RSA-PSS+SHA256:RSA+SHA256"}) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set1_sigalgs_list(ctx, sigalgs);
    Handshake h = connect_tls(ctx, nullptr);
    ASSERT_TRUE(h.ok) << sigalgs;
    EXPECT_EQ(h.key_type, std::string(sigalgs).rfind("ECDSA", 0) == 0 ? EVP_PKEY_EC : EVP_PKEY_RSA);
    ASSERT_TRUE(h.conn.send(get_request("localhost", "/")));
    EXPECT_EQ(h.conn.read_response().status, 200);
    SSL_CTX_free(ctx);
  }
}

}  // namespace
