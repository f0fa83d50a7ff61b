// The socket steps both workers (HTTP/1.1 and HTTP/2) take alike: a non-blocking connect, a TLS
// handshake step, and one read or write, plain or through OpenSSL, with what it asks for next.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>

#include "macro/load/url.hpp"

namespace gatebench::load {

// A non-blocking TCP socket (TCP_NODELAY) with its connect under way; -1 when socket() or
// connect() failed at once (nothing is left open).
int open_connecting_socket(const Target& target);
// After the connecting socket reported writable: whether the connect succeeded (SO_ERROR).
bool connect_succeeded(int fd);

enum class Handshake { kDone, kWantRead, kWantWrite, kFailed, kNoApplicationProtocol };
// One SSL_do_handshake step; kNoApplicationProtocol: the server refused every protocol offered
// by ALPN (alert no_application_protocol).
Handshake handshake_step(SSL* ssl);

// Ends a TLS connection before its socket closes: with close_notify when `notify` (that keeps the
// session resumable: OpenSSL drops the session of a connection that ends without it), else
// silently (no session to keep, and the record would cost both sides per connection).
void end_tls(SSL* ssl, bool notify);

enum class IoStatus {
  kDone,        // `bytes` > 0 moved
  kWouldBlock,  // wait for the direction asked (readable for reads, writable for writes)
  kWantOther,   // TLS: wait for the other direction as well
  kEof,         // reads: the peer closed (TLS: with or without close_notify)
  kFailed,      // the socket failed (reset, broken pipe)
  kTlsFailed    // a TLS alert or record error
};
struct IoResult {
  IoStatus status = IoStatus::kDone;
  std::size_t bytes = 0;
};
// One read (`ssl` null: plain) into buf; EINTR is retried.
IoResult read_some(int fd, SSL* ssl, void* buf, std::size_t len);
// One write (`ssl` null: plain send without SIGPIPE) of data; EINTR is retried.
IoResult write_some(int fd, SSL* ssl, const void* data, std::size_t len);

}  // namespace gatebench::load
