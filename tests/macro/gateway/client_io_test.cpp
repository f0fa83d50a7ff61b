// Client I/O over a socket pair, plain and TLS: what each call reports and which readiness flag
// it clears (the edge-triggered loop waits on exactly that flag).
#include "macro/gateway/client_io.hpp"

#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <string>

#include "fixtures/tls_identity.hpp"

namespace gw = gatebench::gateway;
using gw::IoStatus;

namespace {

struct Pair {
  int fds[2] = {-1, -1};
  Pair() {
    signal(SIGPIPE, SIG_IGN);
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
  }
  ~Pair() {
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  void close_peer() {
    ::close(fds[1]);
    fds[1] = -1;
  }
};

TEST(ClientIo, PlainReadReportsDataShortReadsAndWouldBlock) {
  Pair p;
  gw::ClientIo io{p.fds[0], nullptr, true, true};
  char buf[16];
  gw::IoResult r = gw::client_read(io, buf, sizeof buf);
  EXPECT_EQ(r.status, IoStatus::kWouldBlock);
  EXPECT_FALSE(io.readable);

  io.readable = true;
  ASSERT_EQ(::write(p.fds[1], "abcd", 4), 4);
  r = gw::client_read(io, buf, 4);  // exactly the bytes there: more may follow
  EXPECT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(r.bytes, 4u);
  EXPECT_EQ(std::string(buf, 4), "abcd");
  EXPECT_TRUE(io.readable);

  ASSERT_EQ(::write(p.fds[1], "xyz", 3), 3);
  r = gw::client_read(io, buf, sizeof buf);  // a short read drained the socket
  EXPECT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(r.bytes, 3u);
  EXPECT_FALSE(io.readable);
}

TEST(ClientIo, PlainReadReportsCloseAndError) {
  Pair p;
  gw::ClientIo io{p.fds[0], nullptr, true, true};
  char buf[8];
  p.close_peer();
  EXPECT_EQ(gw::client_read(io, buf, sizeof buf).status, IoStatus::kClosed);
  gw::ClientIo bad{-1, nullptr, true, true};
  EXPECT_EQ(gw::client_read(bad, buf, sizeof buf).status, IoStatus::kError);
}

TEST(ClientIo, PlainWritevSendsInOrderUntilTheSocketIsFull) {
  Pair p;
  gw::ClientIo io{p.fds[0], nullptr, true, true};
  std::array<char, 64> scratch{};
  iovec iov[2] = {{const_cast<char*>("head "), 5}, {const_cast<char*>("body"), 4}};
  gw::IoResult r = gw::client_writev(io, iov, 2, scratch);
  EXPECT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(r.bytes, 9u);
  EXPECT_TRUE(io.writable);
  char got[16];
  ASSERT_EQ(::read(p.fds[1], got, sizeof got), 9);
  EXPECT_EQ(std::string(got, 9), "head body");

  std::string big(1 << 16, 'b');
  iovec one{big.data(), big.size()};
  for (int i = 0; i < 1000 && io.writable; ++i) {
    r = gw::client_writev(io, &one, 1, scratch);
    ASSERT_NE(r.status, IoStatus::kError);
  }
  EXPECT_FALSE(io.writable);  // a short write or EAGAIN: wait for EPOLLOUT
  p.close_peer();
  io.writable = true;
  EXPECT_EQ(gw::client_writev(io, &one, 1, scratch).status, IoStatus::kError);
}

struct TlsPair {
  Pair sockets;
  SSL_CTX* server_ctx = SSL_CTX_new(TLS_server_method());
  SSL_CTX* client_ctx = SSL_CTX_new(TLS_client_method());
  SSL* server = nullptr;
  SSL* client = nullptr;
  gw::ClientIo io;

  TlsPair() {
    auto id = gatebench::fixtures::TlsIdentity::generate();
    EXPECT_EQ(SSL_CTX_use_certificate(server_ctx, id.certificate()), 1);
    EXPECT_EQ(SSL_CTX_use_PrivateKey(server_ctx, id.key()), 1);
    server = SSL_new(server_ctx);
    SSL_set_fd(server, sockets.fds[0]);
    SSL_set_accept_state(server);
    client = SSL_new(client_ctx);
    SSL_set_fd(client, sockets.fds[1]);
    SSL_set_connect_state(client);
    io = {sockets.fds[0], server, true, true};
  }
  ~TlsPair() {
    SSL_free(client);
    SSL_free(server);
    SSL_CTX_free(client_ctx);
    SSL_CTX_free(server_ctx);
  }
  bool handshake() {
    bool client_done = false;
    for (int i = 0; i < 200; ++i) {
      if (!client_done) client_done = SSL_do_handshake(client) == 1;
      io.readable = io.writable = true;
      gw::HandshakeStatus s = gw::client_handshake(io);
      if (s == gw::HandshakeStatus::kFailed) return false;
      if (s == gw::HandshakeStatus::kDone && client_done) return true;
    }
    return false;
  }
  // The client's next read, retried while the record is on its way.
  int client_read(char* buf, int len) {
    for (int i = 0; i < 200; ++i) {
      int n = SSL_read(client, buf, len);
      if (n > 0 || SSL_get_error(client, n) != SSL_ERROR_WANT_READ) return n;
      usleep(1000);
    }
    return -1;
  }
};

TEST(ClientIo, TlsHandshakeReadWriteAndClose) {
  TlsPair t;
  ASSERT_TRUE(t.handshake());
  char buf[64];
  gw::IoResult r = gw::client_read(t.io, buf, sizeof buf);
  EXPECT_EQ(r.status, IoStatus::kWouldBlock);  // the client sent nothing yet
  EXPECT_FALSE(t.io.readable);

  ASSERT_EQ(SSL_write(t.client, "GET / HTTP/1.1\r\n", 16), 16);
  t.io.readable = true;
  r = gw::client_read(t.io, buf, sizeof buf);
  ASSERT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(std::string(buf, r.bytes), "GET / HTTP/1.1\r\n");

  // Head and body in one record: the client's single SSL_read gets both.
  std::array<char, 256> scratch{};
  iovec iov[2] = {{const_cast<char*>("HTTP/1.1 200 OK\r\n\r\n"), 19}, {const_cast<char*>("ok"), 2}};
  r = gw::client_writev(t.io, iov, 2, scratch);
  EXPECT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(r.bytes, 21u);
  int n = t.client_read(buf, sizeof buf);
  ASSERT_EQ(n, 21);
  EXPECT_EQ(std::string(buf, 21), "HTTP/1.1 200 OK\r\n\r\nok");

  SSL_shutdown(t.client);
  t.io.readable = true;
  r = gw::client_read(t.io, buf, sizeof buf);
  EXPECT_EQ(r.status, IoStatus::kClosed);
}

TEST(ClientIo, TlsHandshakeWithAPlainPeerFails) {
  TlsPair t;
  ASSERT_EQ(::write(t.sockets.fds[1], "GET / HTTP/1.1\r\n\r\n", 18), 18);
  EXPECT_EQ(gw::client_handshake(t.io), gw::HandshakeStatus::kFailed);
}

}  // namespace
