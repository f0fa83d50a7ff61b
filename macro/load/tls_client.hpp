// Client TLS for one worker thread: its own SSL_CTX (no locking between threads) and, when
// resumption is on, one saved session per connection slot, offered on that slot's next
// connection. Certificates are not verified: benchmark targets use self-signed ones.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "macro/load/url.hpp"

namespace gatebench::load {

struct SslDeleter {
  void operator()(SSL* s) const { SSL_free(s); }
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
  void operator()(SSL_SESSION* s) const { SSL_SESSION_free(s); }
};

class TlsClient {
 public:
  // `slots`: the worker's connections; `h2`: offer only h2 by ALPN (see alpn_is_h2). Throws
  // std::runtime_error when OpenSSL cannot set up a context.
  TlsClient(const Target& target, bool resume, std::size_t slots, bool h2 = false);
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  bool resume() const { return resume_; }

  // A client SSL on a connected socket of connection slot `slot`, with SNI and, when resuming,
  // the last session a previous connection of that slot received. nullptr when OpenSSL fails
  // (counted as a TLS error by the caller).
  std::unique_ptr<SSL, SslDeleter> open(int fd, std::size_t slot);

  // After the handshake: whether the server selected h2; otherwise `selected` says what it
  // selected ("none" when it ignored ALPN).
  static bool alpn_is_h2(SSL* ssl, std::string& selected);

 private:
  static int on_new_session(SSL* ssl, SSL_SESSION* session);

  const Target& target_;
  bool resume_;
  std::unique_ptr<SSL_CTX, SslDeleter> ctx_;
  // One per slot, never resized (the SSLs point at their slot's entry). A slot of its own, not a
  // session shared by the thread: a server may accept a ticket once only (stateful tickets of a
  // session cache), and concurrent connections offering the same one would fall back to full
  // handshakes.
  std::vector<std::unique_ptr<SSL_SESSION, SslDeleter>> sessions_;
};

}  // namespace gatebench::load
