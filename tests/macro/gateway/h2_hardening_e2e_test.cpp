// HTTP/2 streams that a client keeps feeding after the gateway has answered them (issue 41,
// items 2 and 3), end to end over h2c with prior knowledge: DATA after the answer must neither
// run the request again nor keep the connection's flow-control credit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/macro/gateway/gateway_fixture.hpp"
#include "tests/macro/gateway/gateway_testkit.hpp"
#include "tests/macro/gateway/h2_testkit.hpp"

using gwtest::Fields;
using gwtest::RawH2;

namespace {

// Access-log records (lines) naming `needle` in the datagrams that arrive until 300 ms pass
// without one.
int count_records(gwtest::UdpReceiver& log, const std::string& needle) {
  int count = 0;
  for (std::string d = log.receive(); !d.empty(); d = log.receive()) {
    for (std::size_t at = 0; (at = d.find(needle, at)) != std::string::npos; at += needle.size())
      ++count;
  }
  return count;
}

class H2HardeningE2E : public gwtest::GatewayFixture {
 protected:
  void start(const std::string& extra = "") {
    port_ = gwtest::free_port();
    dir_.file("gw.json", R"({"workers": 1, "listeners": [{"port": )" + std::to_string(port_) +
                             R"(, "http2": true}], "hosts": [)" + host(R"("a.test")") + "]" +
                             extra + "}");
    gateway_ = std::make_unique<gwtest::Process>(
        std::vector<std::string>{GATEBENCH_GATEWAY_EXE, "--config",
                                 (dir_.path() / "gw.json").string()},
        (dir_.path() / "gateway.log").string());
    ASSERT_TRUE(gwtest::wait_port(port_)) << gateway_->output();
  }
  static Fields post(const std::string& authority, const std::string& path) {
    return {{":method", "POST"}, {":scheme", "http"}, {":authority", authority}, {":path", path}};
  }
};

TEST_F(H2HardeningE2E, DataAfterTheAnswerDoesNotRunTheRequestAgain) {
  gwtest::UdpReceiver log(300);
  start(R"(, "access_log": {"control": "127.0.0.1:)" + std::to_string(log.port()) +
        R"(", "flush_ms": 100})");
  RawH2 c(gwtest::connect_to(port_));
  // SETTINGS_INITIAL_WINDOW_SIZE 0: the 421's body cannot be sent, so its stream stays open
  // while the client goes on sending DATA on it.
  const std::string settings("\x00\x04\x00\x00\x00\x00", 6);
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + RawH2::frame(4, 0, 0, settings);
  out += c.headers_frame(1, post("unknown.test", "/upload"), false);
  ASSERT_TRUE(c.send(out));
  ASSERT_TRUE(c.run([&] { return c.streams[1].status != 0; })) << gateway_->output();
  EXPECT_EQ(c.streams[1].status, 421);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(c.send(RawH2::frame(0, 0, 1, "x")));
    c.run([] { return false; }, 20);  // one frame per read on the gateway's side
  }
  EXPECT_EQ(count_records(log, "unknown.test"), 1) << "one request, one access-log record";
}

TEST_F(H2HardeningE2E, BodiesOfAnsweredStreamsGiveTheConnectionWindowBack) {
  start();
  RawH2 c(gwtest::connect_to(port_));
  std::string out = c.preface_bytes();
  // 60 KiB of the connection's 64 KiB window on streams answered 421 before their body is read:
  // half of them end their body, half are reset by the gateway's early answer.
  const std::string chunk(15 * 1024, 'b');
  std::vector<std::int32_t> dropped;
  for (std::int32_t id = 1; id <= 7; id += 2) {
    out += c.headers_frame(id, post("unknown.test", "/drop"), false);
    out += RawH2::frame(0, id % 4 == 1 ? 1 : 0, id, chunk);
    dropped.push_back(id);
  }
  ASSERT_TRUE(c.send(out));
  ASSERT_TRUE(c.run([&] { return c.all_done(dropped); })) << gateway_->output();
  for (std::int32_t id : dropped) EXPECT_EQ(c.streams[id].status, 421) << id;

  // A 24 KiB upload fits the connection window only once the dropped bytes are credited back.
  const std::size_t sent = 4 * chunk.size();
  const std::size_t upload = 24 * 1024;
  c.run([&] { return 65535 - sent + c.connection_credit >= upload; });
  ASSERT_GE(65535 - sent + c.connection_credit, upload)
      << "credit returned: " << c.connection_credit << " of " << sent;
  Fields echo = post("a.test", "/echo");
  echo.push_back({"content-length", std::to_string(upload)});
  // Two DATA frames: the default SETTINGS_MAX_FRAME_SIZE is 16 KiB.
  ASSERT_TRUE(c.send(c.headers_frame(9, echo, false) +
                     RawH2::frame(0, 0, 9, std::string(upload / 2, 'u')) +
                     RawH2::frame(0, 1, 9, std::string(upload / 2, 'u'))));
  ASSERT_TRUE(c.run([&] { return c.done(9); })) << gateway_->output();
  EXPECT_EQ(c.streams[9].status, 200);
  EXPECT_EQ(c.streams[9].body.size(), upload);
}

}  // namespace
