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

int select_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                unsigned int inlen, void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kHttp11, sizeof kHttp11, in, inlen) ==
      OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
  }
  // No http/1.1 in the client's list: continue without ALPN rather than fail the handshake.
  return SSL_TLSEXT_ERR_NOACK;
}

}  // namespace

SslCtxPtr make_server_tls(const Config& config) {
  if (config.certificates.empty()) return nullptr;
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) throw ConfigError("tls: cannot create a TLS context: " + openssl_error());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_SERVER);
  SSL_CTX_sess_set_cache_size(ctx.get(), 20480);
  SSL_CTX_set_timeout(ctx.get(), 3600);
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
