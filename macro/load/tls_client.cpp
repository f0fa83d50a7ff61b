#include "macro/load/tls_client.hpp"

#include <stdexcept>

namespace gatebench::load {
namespace {

// Under SSL_VERIFY_NONE OpenSSL still builds and checks the server's chain on every handshake
// and then ignores the verdict; this callback takes the place of that check. The certificate is
// still parsed and the server's CertificateVerify signature still checked (the handshake needs
// both), so what remains is the client's share of a real handshake.
int accept_any_chain(X509_STORE_CTX*, void*) {
  return 1;
}

}  // namespace

TlsClient::TlsClient(const Target& target, bool resume, std::size_t slots, bool h2)
    : target_(target), resume_(resume), ctx_(SSL_CTX_new(TLS_client_method())) {
  if (!ctx_) throw std::runtime_error("SSL_CTX_new failed");
  SSL_CTX_set_min_proto_version(ctx_.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_NONE, nullptr);
  SSL_CTX_set_cert_verify_callback(ctx_.get(), &accept_any_chain, nullptr);
  // The key share is X25519 (OpenSSL's first group, one key generation per handshake); P-256 is
  // offered beside it only for servers without X25519. Without a list OpenSSL offers ten groups.
  if (SSL_CTX_set1_groups_list(ctx_.get(), "X25519:P-256") != 1)
    throw std::runtime_error("SSL_CTX_set1_groups_list(X25519:P-256) failed");
  // Servers that close without close_notify are common; that is an EOF, not a TLS error.
  SSL_CTX_set_options(ctx_.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  // Buffers stay allocated for the connection's life (no SSL_MODE_RELEASE_BUFFERS): releasing
  // them would cost an allocation per request on keep-alive connections.
  SSL_CTX_set_mode(ctx_.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // One read takes whatever the socket holds: without read-ahead OpenSSL reads every record in
  // two calls (header, then body), about ten reads for the server's first flight. The worker
  // reads until OpenSSL wants more, so nothing it buffered waits for the next event.
  SSL_CTX_set_read_ahead(ctx_.get(), 1);
  // Only h2 is offered: a server that would fall back to http/1.1 is a configuration error of an
  // HTTP/2 run, which alpn_is_h2 reports, rather than a silent HTTP/1.1 measurement.
  static constexpr unsigned char kAlpnH2[] = {2, 'h', '2'};
  if (h2 && SSL_CTX_set_alpn_protos(ctx_.get(), kAlpnH2, sizeof kAlpnH2) != 0)
    throw std::runtime_error("SSL_CTX_set_alpn_protos(h2) failed");
  if (resume_) {
    // Sessions are kept here (one per slot), not in OpenSSL's internal cache.
    SSL_CTX_set_session_cache_mode(ctx_.get(),
                                   SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx_.get(), &TlsClient::on_new_session);
    sessions_.resize(slots);
  } else {
    SSL_CTX_set_session_cache_mode(ctx_.get(), SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx_.get(), SSL_OP_NO_TICKET);
  }
}

int TlsClient::on_new_session(SSL* ssl, SSL_SESSION* session) {
  auto* slot = static_cast<std::unique_ptr<SSL_SESSION, SslDeleter>*>(SSL_get_app_data(ssl));
  if (slot == nullptr) return 0;  // not ours: OpenSSL keeps its reference
  // TLS 1.3 servers send tickets after the handshake, often two: the last one is kept.
  slot->reset(session);  // we own the reference now
  return 1;
}

bool TlsClient::alpn_is_h2(SSL* ssl, std::string& selected) {
  const unsigned char* proto = nullptr;
  unsigned int len = 0;
  SSL_get0_alpn_selected(ssl, &proto, &len);
  if (len == 2 && proto[0] == 'h' && proto[1] == '2') return true;
  selected = len == 0 ? "none" : std::string(reinterpret_cast<const char*>(proto), len);
  return false;
}

std::unique_ptr<SSL, SslDeleter> TlsClient::open(int fd, std::size_t slot) {
  std::unique_ptr<SSL, SslDeleter> ssl(SSL_new(ctx_.get()));
  if (!ssl) return nullptr;
  if (SSL_set_fd(ssl.get(), fd) != 1) return nullptr;
  if (!target_.host_is_ip) SSL_set_tlsext_host_name(ssl.get(), target_.host.c_str());
  if (resume_ && slot < sessions_.size()) {
    SSL_set_app_data(ssl.get(), &sessions_[slot]);
    if (sessions_[slot]) SSL_set_session(ssl.get(), sessions_[slot].get());
  }
  SSL_set_connect_state(ssl.get());
  return ssl;
}

}  // namespace gatebench::load
