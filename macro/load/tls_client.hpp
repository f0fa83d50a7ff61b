// Client TLS for one worker thread: its own SSL_CTX (no locking between threads) and the last
// session ticket the server gave it, offered on the next connection when resumption is on.
// Certificates are not verified: benchmark targets use self-signed ones.
#pragma once

#include <openssl/ssl.h>

#include <memory>

#include "macro/load/url.hpp"

namespace gatebench::load {

struct SslDeleter {
  void operator()(SSL* s) const { SSL_free(s); }
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
  void operator()(SSL_SESSION* s) const { SSL_SESSION_free(s); }
};

class TlsClient {
 public:
  // Throws std::runtime_error when OpenSSL cannot set up a context.
  TlsClient(const Target& target, bool resume);
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  // A client SSL on a connected socket, with SNI and the saved session when resuming.
  // nullptr when OpenSSL fails (counted as a TLS error by the caller).
  std::unique_ptr<SSL, SslDeleter> open(int fd);

 private:
  static int on_new_session(SSL* ssl, SSL_SESSION* session);

  const Target& target_;
  bool resume_;
  std::unique_ptr<SSL_CTX, SslDeleter> ctx_;
  std::unique_ptr<SSL_SESSION, SslDeleter> session_;
};

}  // namespace gatebench::load
