// Server TLS context from the configured PEM certificate/key pairs (ECDSA P-256 and RSA can be
// loaded side by side; OpenSSL picks by the client's signature algorithms). TLS 1.2 and 1.3,
// ALPN h2 (on connections marked by offer_h2, preferred) and http/1.1, groups X25519 and P-256, the
// nginx baseline's cipher suites, and for resumption a server-side session cache and session
// tickets, each as configured (tls.session_cache, tls.session_tickets). One context is shared by
// every worker so a ticket issued by one worker resumes on any other.
#pragma once

#include "macro/gateway/config.hpp"
#include "macro/gateway/shared_state.hpp"

namespace gatebench::gateway {

// Throws ConfigError naming the file when a certificate or key does not load or match.
SslCtxPtr make_server_tls(const Config& config);

// Before the handshake: this connection (of an http2 listener) may negotiate h2.
void offer_h2(SSL* ssl);
// After it: ALPN chose h2.
bool negotiated_h2(const SSL* ssl);

}  // namespace gatebench::gateway
