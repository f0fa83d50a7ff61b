// HTTP/2 through the real gateway: h2c with prior knowledge and ALPN h2 beside http/1.1 on one
// TLS listener, the per-request policy on each stream, RFC 9113 limits and errors seen frame by
// frame (tests/macro/gateway/h2_testkit.hpp), GOAWAY on a graceful stop, and h2load (Debian
// nghttp2-client) for request counts under concurrency.
#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <filesystem>

#include "macro/common/child_process.hpp"
#include "tests/macro/gateway/gateway_fixture.hpp"
#include "tests/macro/gateway/gateway_testkit.hpp"
#include "tests/macro/gateway/h2_testkit.hpp"

using gwtest::Fields;
using gwtest::RawH2;

namespace {

class H2E2E : public gwtest::GatewayFixture {
 protected:
  // `listeners`: the JSON array's members after the h2c one (which is always first, port_).
  void start(const std::string& hosts, const std::string& limits = "",
             const std::string& more_listeners = "", const std::string& tls = "") {
    port_ = gwtest::free_port();
    plain_port_ = gwtest::free_port();
    const std::string listeners = R"([{"port": )" + std::to_string(port_) +
                                  R"(, "http2": true}, {"port": )" + std::to_string(plain_port_) +
                                  "}" + more_listeners + "]";
    dir_.file("gw.json", R"({"workers": 1, "listeners": )" + listeners + tls +
                             R"(, "limits": {"max_header_bytes": 4096)" + limits +
                             R"(}, "hosts": [)" + hosts + "]}");
    gateway_ = std::make_unique<gwtest::Process>(
        std::vector<std::string>{GATEBENCH_GATEWAY_EXE, "--config",
                                 (dir_.path() / "gw.json").string()},
        (dir_.path() / "gateway.log").string());
    // A worker opens its listeners one after another: the first may take connections before the
    // second is bound.
    ASSERT_TRUE(gwtest::wait_port(port_)) << gateway_->output();
    ASSERT_TRUE(gwtest::wait_port(plain_port_)) << gateway_->output();
  }
  std::unique_ptr<RawH2> connect_h2c() {
    auto c = std::make_unique<RawH2>(gwtest::connect_to(port_));
    return c;
  }
  int plain_port_ = 0;
};

TEST_F(H2E2E, PriorKnowledgeStreamsEachGetThePolicyAndOneUpstreamRequest) {
  dir_.file("rules.json", R"({"rules": [{"id": "no-admin", "action": "block",
    "when": [{"field": "path", "op": "prefix", "value": "/admin"}]}]})");
  start(host(R"("a.test")", R"(, "rules": "rules.json")"));
  auto c = connect_h2c();
  std::string out = c->preface_bytes();
  Fields cookie = RawH2::get("a.test", "/echo-cookie");
  cookie.push_back({"cookie", "a=1"});
  cookie.push_back({"cookie", "b=2"});
  out += c->headers_frame(1, RawH2::get("a.test", "/one"), true);
  out += c->headers_frame(3, RawH2::get("a.test", "/admin/x"), true);
  out += c->headers_frame(5, RawH2::get("a.test", "/chunked"), true);
  out += c->headers_frame(7, cookie, true);
  out += c->headers_frame(9, RawH2::get("a.test", "/big"), true);
  ASSERT_TRUE(c->send(out));
  ASSERT_TRUE(c->run([&] { return c->all_done({1, 3, 5, 7, 9}); })) << gateway_->output();
  EXPECT_EQ(c->streams[1].status, 200);
  EXPECT_EQ(c->streams[1].body, "ok\n");
  EXPECT_EQ(c->streams[3].status, 403);  // the blocked stream only
  EXPECT_EQ(c->streams[3].headers["x-gatebench-rule"], "no-admin");
  EXPECT_EQ(c->streams[5].status, 200);
  EXPECT_EQ(c->streams[5].body, "abcdefg");  // de-chunked into DATA
  EXPECT_FALSE(c->streams[5].headers.count("transfer-encoding"));
  EXPECT_EQ(c->streams[7].status, 200);
  EXPECT_EQ(c->streams[9].body.size(), 1048576u);
  const auto seen = upstream_.requests();
  ASSERT_EQ(seen.size(), 4u);  // the blocked one never went upstream
  bool joined = false;
  for (const auto& r : seen) {
    EXPECT_EQ(r.head.find("HTTP/1.1\r\nHost: a.test\r\n") != std::string::npos, true) << r.head;
    if (r.head.find("/echo-cookie") != std::string::npos) {
      joined = r.head.find("\r\nCookie: a=1; b=2\r\n") != std::string::npos;
    }
  }
  EXPECT_TRUE(joined);
}

TEST_F(H2E2E, RequestBodiesReachTheUpstreamFramed) {
  start(host(R"("*")"));
  auto c = connect_h2c();
  Fields post = RawH2::get("a.test", "/echo");
  post[0].second = "POST";
  Fields sized = post;
  sized.push_back({"content-length", "5"});
  std::string out = c->preface_bytes();
  out += c->headers_frame(1, post, false);  // no length: chunked upstream
  out += RawH2::frame(0, 0, 1, "hello ");
  out += RawH2::frame(0, 1, 1, "world");
  out += c->headers_frame(3, sized, false);
  out += RawH2::frame(0, 1, 3, "12345");
  ASSERT_TRUE(c->send(out));
  ASSERT_TRUE(c->run([&] { return c->all_done({1, 3}); })) << gateway_->output();
  EXPECT_EQ(c->streams[1].body, "hello world");
  EXPECT_EQ(c->streams[3].body, "12345");
}

TEST_F(H2E2E, PlainListenerWithoutHttp2AnswersThePrefaceAsHttp1) {
  start(host(R"("*")"));
  gwtest::Conn c(gwtest::connect_to(plain_port_));
  ASSERT_TRUE(c.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
  gwtest::Response r = c.read_response();
  ASSERT_TRUE(r.ok);
  EXPECT_GE(r.status, 400);
  EXPECT_EQ(gwtest::fetch(plain_port_, gwtest::get_request("a.test", "/")).status, 200);
  // The h2c listener still takes HTTP/1.1 from a client that sends no preface.
  EXPECT_EQ(gwtest::fetch(port_, gwtest::get_request("a.test", "/")).status, 200);
}

TEST_F(H2E2E, StreamsOverTheConcurrencyLimitAreRefused) {
  start(host(R"("*")"), R"(, "h2_max_concurrent_streams": 2)");
  auto c = connect_h2c();
  std::string out = c->preface_bytes();
  // Sent before the client could read the server's SETTINGS: the third is over the limit.
  out += c->headers_frame(1, RawH2::get("a.test", "/slow"), true);
  out += c->headers_frame(3, RawH2::get("a.test", "/slow"), true);
  out += c->headers_frame(5, RawH2::get("a.test", "/slow"), true);
  ASSERT_TRUE(c->send(out));
  ASSERT_TRUE(c->run([&] { return c->all_done({1, 3, 5}); })) << gateway_->output();
  EXPECT_EQ(c->max_concurrent, 2u);
  EXPECT_EQ(c->streams[5].rst, NGHTTP2_REFUSED_STREAM);
  EXPECT_EQ(c->streams[1].status, 200);
  EXPECT_EQ(c->streams[3].status, 200);
  EXPECT_FALSE(c->goaway);
  EXPECT_EQ(upstream_.requests().size(), 2u);
}

TEST_F(H2E2E, HeaderListOverTheLimitIs431OnThatStream) {
  start(host(R"("*")"));
  auto c = connect_h2c();
  Fields big = RawH2::get("a.test", "/");
  big.push_back({"x-big", std::string(5000, 'a')});
  std::string out = c->preface_bytes();
  out += c->headers_frame(1, big, true);
  out += c->headers_frame(3, RawH2::get("a.test", "/"), true);
  ASSERT_TRUE(c->send(out));
  ASSERT_TRUE(c->run([&] { return c->all_done({1, 3}); })) << gateway_->output();
  EXPECT_EQ(c->streams[1].status, 431);
  EXPECT_EQ(c->streams[3].status, 200);
  EXPECT_EQ(upstream_.requests().size(), 1u);
}

TEST_F(H2E2E, MalformedRequestsResetTheirStreamOnly) {
  start(host(R"("*")"));
  auto c = connect_h2c();
  Fields upper = RawH2::get("a.test", "/");
  upper.push_back({"X-Upper", "1"});
  Fields conn = RawH2::get("a.test", "/");
  conn.push_back({"connection", "keep-alive"});
  const Fields no_path = {{":method", "GET"}, {":scheme", "http"}, {":authority", "a.test"}};
  std::string out = c->preface_bytes();
  out += c->headers_frame(1, upper, true);
  out += c->headers_frame(3, conn, true);
  out += c->headers_frame(5, no_path, true);
  out += c->headers_frame(7, RawH2::get("a.test", "/"), true);
  ASSERT_TRUE(c->send(out));
  ASSERT_TRUE(c->run([&] { return c->all_done({1, 3, 5, 7}); })) << gateway_->output();
  EXPECT_EQ(c->streams[1].rst, NGHTTP2_PROTOCOL_ERROR);
  EXPECT_EQ(c->streams[3].rst, NGHTTP2_PROTOCOL_ERROR);
  EXPECT_EQ(c->streams[5].rst, NGHTTP2_PROTOCOL_ERROR);
  EXPECT_EQ(c->streams[7].status, 200);
  EXPECT_EQ(upstream_.requests().size(), 1u);
}

TEST_F(H2E2E, BrokenFramesEndTheConnectionWithGoaway) {
  start(host(R"("*")"));
  {
    auto c = connect_h2c();
    // A header block that is not HPACK (an index past both tables).
    ASSERT_TRUE(c->send(c->preface_bytes() + RawH2::frame(1, 0x5, 1, "\xff\xff\xff\x7f")));
    ASSERT_TRUE(c->run([&] { return c->goaway && c->eof; })) << gateway_->output();
    EXPECT_EQ(c->goaway_code, static_cast<std::uint32_t>(NGHTTP2_COMPRESSION_ERROR));
  }
  {
    auto c = connect_h2c();
    // A SETTINGS frame whose length is not a multiple of 6.
    ASSERT_TRUE(c->send(c->preface_bytes() + RawH2::frame(4, 0, 0, "abcde")));
    ASSERT_TRUE(c->run([&] { return c->goaway && c->eof; })) << gateway_->output();
    EXPECT_EQ(c->goaway_code, static_cast<std::uint32_t>(NGHTTP2_FRAME_SIZE_ERROR));
  }
  {
    auto c = connect_h2c();
    ASSERT_TRUE(c->send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + std::string(64, '\x07')));
    c->run([&] { return c->eof; });
    EXPECT_TRUE(c->eof);
  }
  auto c = connect_h2c();
  ASSERT_TRUE(c->send(c->preface_bytes() + c->headers_frame(1, RawH2::get("a.test", "/"), true)));
  ASSERT_TRUE(c->run([&] { return c->done(1); })) << gateway_->output();
  EXPECT_EQ(c->streams[1].status, 200);
}

TEST_F(H2E2E, AnIncompleteHeaderBlockMeetsTheHeaderTimeout) {
  start(host(R"("*")"), R"(, "client_header_timeout_ms": 300)");
  auto c = connect_h2c();
  c->ack_settings = false;
  const std::string block = c->headers_frame(1, RawH2::get("a.test", "/"), true).substr(9);
  // HEADERS without END_HEADERS, and the CONTINUATION never comes.
  ASSERT_TRUE(c->send(c->preface_bytes() + RawH2::frame(1, 0x1, 1, block)));
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(c->run([&] { return c->eof; }, 2000)) << gateway_->output();
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, std::chrono::milliseconds(250));
  EXPECT_LT(waited, std::chrono::milliseconds(1500));
  EXPECT_FALSE(c->goaway);  // timed out, not refused
  EXPECT_TRUE(upstream_.requests().empty());
}

TEST_F(H2E2E, DeadUpstreamIs502OnItsStreamsOnly) {
  const int dead = gwtest::free_port();
  start(host(R"("dead.test")", "", dead) + "," + host(R"("*")"));
  auto c = connect_h2c();
  std::string out = c->preface_bytes();
  out += c->headers_frame(1, RawH2::get("dead.test", "/"), true);
  out += c->headers_frame(3, RawH2::get("a.test", "/"), true);
  out += c->headers_frame(5, RawH2::get("dead.test", "/x"), true);
  ASSERT_TRUE(c->send(out));
  ASSERT_TRUE(c->run([&] { return c->all_done({1, 3, 5}); })) << gateway_->output();
  EXPECT_EQ(c->streams[1].status, 502);
  EXPECT_EQ(c->streams[3].status, 200);
  EXPECT_EQ(c->streams[5].status, 502);
  EXPECT_FALSE(c->goaway);
}

TEST_F(H2E2E, GracefulStopSendsGoawayAndFinishesStreamsInFlight) {
  start(host(R"("*")"));
  auto c = connect_h2c();
  ASSERT_TRUE(
      c->send(c->preface_bytes() + c->headers_frame(1, RawH2::get("a.test", "/slow"), true)));
  // The request is upstream (the slow path answers after 1.5 s) when the stop begins.
  for (int i = 0; i < 100 && upstream_.requests().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(upstream_.requests().size(), 1u);
  gateway_->signal(SIGTERM);
  ASSERT_TRUE(c->run([&] { return c->goaway; })) << gateway_->output();
  EXPECT_EQ(c->goaway_code, static_cast<std::uint32_t>(NGHTTP2_NO_ERROR));
  EXPECT_EQ(c->goaway_last, 1);
  ASSERT_TRUE(c->run([&] { return c->done(1); }, 3000)) << gateway_->output();
  EXPECT_EQ(c->streams[1].status, 200);
  EXPECT_EQ(c->streams[1].body, "slow\n");
  EXPECT_EQ(gateway_->wait_exit(3000), 0) << gateway_->output();
}

class H2TlsE2E : public H2E2E {
 protected:
  void SetUp() override {
    gatebench::common::SpawnSpec openssl;
    openssl.exe = "openssl";
    const std::string d = dir_.path().string();
    openssl.args = {
        "req",    "-x509",   "-newkey",      "ec",   "-pkeyopt",    "ec_paramgen_curve:prime256v1",
        "-nodes", "-keyout", d + "/ec.key",  "-out", d + "/ec.crt", "-days",
        "1",      "-subj",   "/CN=localhost"};
    ASSERT_EQ(gatebench::common::run_to_exit(openssl), 0);
    tls_port_ = gwtest::free_port();
    start(host(R"("*")"), "",
          R"(, {"protocol": "https", "port": )" + std::to_string(tls_port_) + "}",
          R"(, "tls": {"certificates": [{"cert": "ec.crt", "key": "ec.key"}]})");
    ASSERT_TRUE(gwtest::wait_port(tls_port_)) << gateway_->output();
  }
  // A TLS connection offering `alpn` (wire format); the protocol chosen in `chosen`.
  SSL* handshake(int fd, const std::string& alpn, std::string& chosen) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_alpn_protos(ctx, reinterpret_cast<const unsigned char*>(alpn.data()),
                            static_cast<unsigned>(alpn.size()));
    SSL* ssl = SSL_new(ctx);
    SSL_CTX_free(ctx);  // the SSL holds its own reference
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) != 1) {
      SSL_free(ssl);
      return nullptr;
    }
    const unsigned char* p = nullptr;
    unsigned len = 0;
    SSL_get0_alpn_selected(ssl, &p, &len);
    chosen.assign(reinterpret_cast<const char*>(p), len);
    return ssl;
  }
  int tls_port_ = 0;
};

TEST_F(H2TlsE2E, AlpnPrefersH2AndKeepsHttp11OnOneListener) {
  {
    const int fd = gwtest::connect_to(tls_port_);
    std::string chosen;
    SSL* ssl = handshake(fd, std::string("\x08http/1.1\x02h2", 12), chosen);
    ASSERT_NE(ssl, nullptr);
    EXPECT_EQ(chosen, "h2");  // the server's preference, whatever the client's order
    RawH2 c(fd, ssl);
    // Built in order: the header blocks share the encoder's dynamic table.
    std::string out = c.preface_bytes();
    out += c.headers_frame(1, RawH2::get("a.test", "/"), true);
    out += c.headers_frame(3, RawH2::get("a.test", "/chunked"), true);
    ASSERT_TRUE(c.send(out));
    ASSERT_TRUE(c.run([&] {
      return c.all_done({1, 3});
    })) << gateway_->output()
        << " eof " << c.eof << " ssl error " << c.last_error;
    EXPECT_EQ(c.streams[1].body, "ok\n");
    EXPECT_EQ(c.streams[3].body, "abcdefg");
  }
  {
    gwtest::Conn conn(gwtest::connect_to(tls_port_));
    std::string chosen;
    SSL* ssl = handshake(conn.fd(), std::string("\x08http/1.1", 9), chosen);
    ASSERT_NE(ssl, nullptr);
    conn.attach_tls(ssl);
    EXPECT_EQ(chosen, "http/1.1");
    ASSERT_TRUE(conn.send(gwtest::get_request("a.test", "/")));
    EXPECT_EQ(conn.read_response().body, "ok\n");
  }
  EXPECT_EQ(upstream_.requests().size(), 3u);
}

// h2load (nghttp2-client) over h2c: 200 requests on 2 connections, 10 streams each at a time.
TEST_F(H2E2E, H2loadRequestCountsMatchTheUpstreams) {
  if (!std::filesystem::exists("/usr/bin/h2load")) GTEST_SKIP() << "h2load (nghttp2-client) absent";
  start(host(R"("*")"));
  gatebench::common::SpawnSpec spec;
  spec.exe = "/usr/bin/h2load";
  spec.args = {
      "-n", "200", "-c", "2", "-m", "10", "http://127.0.0.1:" + std::to_string(port_) + "/"};
  const std::string log = (dir_.path() / "h2load.log").string();
  spec.out = gatebench::common::Stream::to_file(log);
  spec.err = spec.out;
  ASSERT_EQ(gatebench::common::run_to_exit(spec), 0) << gwtest::read_text(log);
  const std::string text = gwtest::read_text(log);
  EXPECT_NE(text.find("200 succeeded, 0 failed, 0 errored"), std::string::npos) << text;
  EXPECT_NE(text.find("status codes: 200 2xx"), std::string::npos) << text;
  EXPECT_EQ(upstream_.requests().size(), 200u);
}

}  // namespace
