// Port probes of the driver (macro/driver/system/net_probe.*): free, connecting, answering HTTP.
#include "macro/driver/system/net_probe.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "macro/driver/system/children.hpp"

namespace gatebench::macro {
namespace {

using namespace std::chrono_literals;

TEST(NetProbe, PortFreeBusyAndProbes) {
  // Find a free port, occupy it with a listener, and probe it.
  int port = 0;
  for (int p = 31000; p < 31100; ++p) {
    if (port_free(p)) {
      port = p;
      break;
    }
  }
  ASSERT_NE(port, 0);
  EXPECT_FALSE(tcp_connects(port, 100ms));
  EXPECT_FALSE(http_status(port, "/", 100ms).has_value());
  SpawnSpec spec;
  spec.exe = "/usr/bin/python3";
  if (access(spec.exe.c_str(), X_OK) != 0) GTEST_SKIP() << "skipped: python3 not installed";
  spec.args = {"-c",
               "import socket,sys\n"
               "s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
               "s.bind(('127.0.0.1'," +
                   std::to_string(port) +
                   ")); s.listen(8)\n"
                   "while True:\n"
                   "  c,_=s.accept(); c.recv(1024); c.sendall(b'HTTP/1.1 204 No "
                   "Content\\r\\n\\r\\n'); c.close()\n"};
  ChildProcess server = ChildProcess::spawn(spec);
  bool up = false;
  for (int i = 0; i < 400 && !up; ++i) {
    up = tcp_connects(port, 50ms);
    if (!up) std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(up);
  EXPECT_FALSE(port_free(port));
  EXPECT_EQ(http_status(port, "/", 2000ms), 204);
  // At a host's address from a hosts file: a literal, a name, and a name that does not resolve
  // (never loopback instead).
  EXPECT_TRUE(tcp_connects(port, 500ms, "127.0.0.1"));
  EXPECT_EQ(http_status(port, "/", 2000ms, "localhost"), 204);
  EXPECT_FALSE(tcp_connects(port, 500ms, "no-such-host.invalid"));
  EXPECT_TRUE(server.stop(1000ms));
}

}  // namespace
}  // namespace gatebench::macro
