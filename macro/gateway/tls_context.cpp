#include "macro/gateway/tls_context.hpp"

#include <openssl/err.h>

#include <cstring>
#include <string>

namespace gatebench::gateway {
namespace {

std::string openssl_error() {
  unsigned long e = ERR_get_error();
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

constexpr const char* kGroups = "X25519:P-256";
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES128-GCM-SHA256:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES128-GCM-SHA256";
constexpr const char* kTls13Suites =
    "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256";

// What SSL_set_app_data marks on a connection of an h2 listener (the context is shared).
char h2_marker;

int select_alpn(SSL* ssl, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                unsigned int inlen, void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  // The server's order decides (SSL_select_next_proto walks its first list): h2 when offered.
  static const unsigned char kH2First[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  const bool h2 = SSL_get_app_data(ssl) == &h2_marker;
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, h2 ? kH2First : kHttp11,
                            h2 ? sizeof kH2First : sizeof kHttp11, in,
                            inlen) == OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
  }
  // No http/1.1 in the client's list: continue without ALPN rather than fail the handshake.
  return SSL_TLSEXT_ERR_NOACK;
}

}  // namespace

void offer_h2(SSL* ssl) {
  SSL_set_app_data(ssl, &h2_marker);
}

bool negotiated_h2(const SSL* ssl) {
  const unsigned char* p = nullptr;
  unsigned len = 0;
  SSL_get0_alpn_selected(ssl, &p, &len);
  return len == 2 && p[0] == 'h' && p[1] == '2';
}

SslCtxPtr make_server_tls(const Config& config) {
  if (config.certificates.empty()) return nullptr;
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) throw ConfigError("tls: cannot create a TLS context: " + openssl_error());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  // One read() takes whatever the socket holds instead of a record's 5-byte header and then its
  // body: 3.26 reads per full-handshake request instead of 9.33, 3.04 per keep-alive request
  // instead of 3.99 (as nginx, which sets it too). Records read ahead stay inside OpenSSL, so
  // step_handshake marks a connection readable when SSL_has_pending says so.
  SSL_CTX_set_read_ahead(ctx.get(), 1);
  // Groups, suites and their order as the nginx baseline's (macro/scenarios/configs/
  // nginx-proxy-https.conf), so the handshake scenarios compare the same cryptography.
  if (SSL_CTX_set1_groups_list(ctx.get(), kGroups) != 1 ||
      SSL_CTX_set_cipher_list(ctx.get(), kTls12Ciphers) != 1 ||
      SSL_CTX_set_ciphersuites(ctx.get(), kTls13Suites) != 1) {
    throw ConfigError("tls: cannot set groups and cipher suites: " + openssl_error());
  }
  if (config.tls_session_cache) {
    SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_SERVER);
    SSL_CTX_sess_set_cache_size(ctx.get(), 20480);
  } else {
    SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  }
  SSL_CTX_set_timeout(ctx.get(), 3600);
  // Without stateless tickets TLS 1.3 sends stateful ones naming a cached session; without a
  // cache either, they could never be used, so none are sent (each costs the server a session
  // copy, an encryption and a record).
  if (!config.tls_session_tickets) SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
  if (!config.tls_session_tickets && !config.tls_session_cache)
    SSL_CTX_set_num_tickets(ctx.get(), 0);
  static const unsigned char kSid[] = "gatebench-gateway";
  SSL_CTX_set_session_id_context(ctx.get(), kSid, sizeof kSid - 1);
  SSL_CTX_set_alpn_select_cb(ctx.get(), select_alpn, nullptr);
  for (std::size_t i = 0; i < config.certificates.size(); ++i) {
    const CertificateConfig& c = config.certificates[i];
    std::string field = config.path + ": tls.certificates[" + std::to_string(i) + "]";
    if (SSL_CTX_use_certificate_chain_file(ctx.get(), c.cert_path.c_str()) != 1) {
      throw ConfigError(field + ".cert: cannot load \"" + c.cert_path + "\": " + openssl_error());
    }
    if (SSL_CTX_use_PrivateKey_file(ctx.get(), c.key_path.c_str(), SSL_FILETYPE_PEM) != 1) {
      throw ConfigError(field + ".key: cannot load \"" + c.key_path + "\": " + openssl_error());
    }
    if (SSL_CTX_check_private_key(ctx.get()) != 1) {
      throw ConfigError(field + ".key: does not match the certificate: " + openssl_error());
    }
  }
  return ctx;
}

}  // namespace gatebench::gateway
