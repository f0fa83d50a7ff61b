#include "macro/load/socket_io.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace gatebench::load {

int open_connecting_socket(const Target& target) {
  const int fd = socket(target.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const int rc = connect(fd, reinterpret_cast<const sockaddr*>(&target.addr), target.addr_len);
  if (rc != 0 && errno != EINPROGRESS) {
    close(fd);
    return -1;
  }
  return fd;
}

bool connect_succeeded(int fd) {
  int err = 0;
  socklen_t len = sizeof err;
  return getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
}

Handshake handshake_step(SSL* ssl) {
  const int rc = SSL_do_handshake(ssl);
  if (rc == 1) return Handshake::kDone;
  const int err = SSL_get_error(ssl, rc);
  const unsigned long reason = ERR_GET_REASON(ERR_peek_error());
  ERR_clear_error();
  if (err == SSL_ERROR_WANT_READ) return Handshake::kWantRead;
  if (err == SSL_ERROR_WANT_WRITE) return Handshake::kWantWrite;
  if (err == SSL_ERROR_SSL && reason == SSL_R_TLSV1_ALERT_NO_APPLICATION_PROTOCOL)
    return Handshake::kNoApplicationProtocol;
  return Handshake::kFailed;
}

void end_tls(SSL* ssl, bool notify) {
  if (notify)
    SSL_shutdown(ssl);
  else
    SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
}

IoResult read_some(int fd, SSL* ssl, void* buf, std::size_t len) {
  if (ssl != nullptr) {
    const int n = SSL_read(ssl, buf, static_cast<int>(len));
    if (n > 0) return {IoStatus::kDone, static_cast<std::size_t>(n)};
    const int err = SSL_get_error(ssl, n);
    ERR_clear_error();
    if (err == SSL_ERROR_WANT_READ) return {IoStatus::kWouldBlock};
    if (err == SSL_ERROR_WANT_WRITE) return {IoStatus::kWantOther};
    if (err == SSL_ERROR_ZERO_RETURN) return {IoStatus::kEof};
    return {err == SSL_ERROR_SSL ? IoStatus::kTlsFailed : IoStatus::kFailed};
  }
  for (;;) {
    const ssize_t n = read(fd, buf, len);
    if (n > 0) return {IoStatus::kDone, static_cast<std::size_t>(n)};
    if (n == 0) return {IoStatus::kEof};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {IoStatus::kWouldBlock};
    return {IoStatus::kFailed};
  }
}

IoResult write_some(int fd, SSL* ssl, const void* data, std::size_t len) {
  if (ssl != nullptr) {
    const int n = SSL_write(ssl, data, static_cast<int>(len));
    if (n > 0) return {IoStatus::kDone, static_cast<std::size_t>(n)};
    const int err = SSL_get_error(ssl, n);
    ERR_clear_error();
    if (err == SSL_ERROR_WANT_WRITE) return {IoStatus::kWouldBlock};
    if (err == SSL_ERROR_WANT_READ) return {IoStatus::kWantOther};
    return {err == SSL_ERROR_SSL ? IoStatus::kTlsFailed : IoStatus::kFailed};
  }
  for (;;) {
    const ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
    if (n >= 0) return {IoStatus::kDone, static_cast<std::size_t>(n)};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {IoStatus::kWouldBlock};
    return {IoStatus::kFailed};
  }
}

}  // namespace gatebench::load
