#include "macro/load/tls_client.hpp"

#include <stdexcept>

namespace gatebench::load {

TlsClient::TlsClient(const Target& target, bool resume)
    : target_(target), resume_(resume), ctx_(SSL_CTX_new(TLS_client_method())) {
  if (!ctx_) throw std::runtime_error("SSL_CTX_new failed");
  SSL_CTX_set_min_proto_version(ctx_.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_NONE, nullptr);
  // Servers that close without close_notify are common; that is an EOF, not a TLS error.
  SSL_CTX_set_options(ctx_.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  // Buffers stay allocated for the connection's life (no SSL_MODE_RELEASE_BUFFERS): releasing
  // them would cost an allocation per request on keep-alive connections.
  SSL_CTX_set_mode(ctx_.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (resume_) {
    // Sessions are kept here (one per thread), not in OpenSSL's internal cache.
    SSL_CTX_set_session_cache_mode(ctx_.get(),
                                   SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx_.get(), &TlsClient::on_new_session);
    SSL_CTX_set_app_data(ctx_.get(), this);
  } else {
    SSL_CTX_set_session_cache_mode(ctx_.get(), SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx_.get(), SSL_OP_NO_TICKET);
  }
}

int TlsClient::on_new_session(SSL* ssl, SSL_SESSION* session) {
  auto* self = static_cast<TlsClient*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  self->session_.reset(session);  // we own the reference now
  return 1;
}

std::unique_ptr<SSL, SslDeleter> TlsClient::open(int fd) {
  std::unique_ptr<SSL, SslDeleter> ssl(SSL_new(ctx_.get()));
  if (!ssl) return nullptr;
  if (SSL_set_fd(ssl.get(), fd) != 1) return nullptr;
  if (!target_.host_is_ip) SSL_set_tlsext_host_name(ssl.get(), target_.host.c_str());
  if (resume_ && session_) SSL_set_session(ssl.get(), session_.get());
  SSL_set_connect_state(ssl.get());
  return ssl;
}

}  // namespace gatebench::load
