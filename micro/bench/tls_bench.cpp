// tls/<operation>: the TLS floor the macro HTTPS new-connection scenario is read against.
//   ecdsa_p256_sign           one ECDSA P-256 signature of a SHA-256 digest (the server's
//                             CertificateVerify), reused EVP_PKEY_CTX
//   ecdh_p256                 one P-256 shared-secret derivation with a fixed peer key (as
//                             `openssl speed ecdhp256`)
//   x25519                    the same for X25519 (the key share TLS 1.3 clients send first)
//   handshake_tls13_full      client and server SSL objects, a complete TLS 1.3 handshake over a
//                             memory BIO pair, certificate from fixtures::TlsIdentity
//   handshake_tls13_resumed   the same resuming a session ticket (PSK with (EC)DHE: no
//                             certificate, no signature, still one X25519 exchange)
// Handshakes count both sides' CPU; the server_ns counter is the server's share per handshake,
// the figure to compare with the gateway's handshakes per second per CPU, and client_ns the
// client's, the floor of gatebench-load's CPU per handshake (the same client configuration; in
// a callgrind profile, the inclusive costs of server_step and client_step).
#include <benchmark/benchmark.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "fixtures/tls_identity.hpp"
#include "fixtures/tls_memory_handshake.hpp"

namespace {

namespace fx = gatebench::fixtures;

struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;

// Built on first use so a failure reaches the benchmark as SkipWithError, not an abort.
struct TlsSetup {
  std::optional<fx::TlsIdentity> identity;
  std::optional<fx::TlsMemoryPair> pair;
  std::string error;

  TlsSetup() {
    try {
      identity.emplace(fx::TlsIdentity::generate("gatebench.test"));
      pair.emplace(*identity);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
};

const TlsSetup& setup() {
  static const TlsSetup s;
  return s;
}

void BM_ecdsa_p256_sign(benchmark::State& state) {
  const TlsSetup& s = setup();
  if (!s.error.empty()) return state.SkipWithError(s.error.c_str());
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new(s.identity->key(), nullptr));
  std::array<unsigned char, 32> digest;
  RAND_bytes(digest.data(), digest.size());
  std::array<unsigned char, 80> sig;
  std::size_t sig_size = sig.size();
  if (!ctx || EVP_PKEY_sign_init(ctx.get()) != 1 ||
      EVP_PKEY_sign(ctx.get(), sig.data(), &sig_size, digest.data(), digest.size()) != 1) {
    return state.SkipWithError("EVP_PKEY_sign with the P-256 key failed");
  }
  for (auto _ : state) {
    sig_size = sig.size();
    benchmark::DoNotOptimize(
        EVP_PKEY_sign(ctx.get(), sig.data(), &sig_size, digest.data(), digest.size()));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void derive(benchmark::State& state, EVP_PKEY* ours, EVP_PKEY* theirs) {
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new(ours, nullptr));
  std::array<unsigned char, 64> secret;
  std::size_t size = secret.size();
  if (!ctx || EVP_PKEY_derive_init(ctx.get()) != 1 ||
      EVP_PKEY_derive_set_peer(ctx.get(), theirs) != 1 ||
      EVP_PKEY_derive(ctx.get(), secret.data(), &size) != 1) {
    return state.SkipWithError("EVP_PKEY_derive failed");
  }
  for (auto _ : state) {
    size = secret.size();
    benchmark::DoNotOptimize(EVP_PKEY_derive(ctx.get(), secret.data(), &size));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void BM_ecdh_p256(benchmark::State& state) {
  fx::PkeyPtr a(EVP_EC_gen("P-256"));
  fx::PkeyPtr b(EVP_EC_gen("P-256"));
  if (!a || !b) return state.SkipWithError("P-256 key generation failed");
  derive(state, a.get(), b.get());
}

void BM_x25519(benchmark::State& state) {
  fx::PkeyPtr a(EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519"));
  fx::PkeyPtr b(EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519"));
  if (!a || !b) return state.SkipWithError("X25519 key generation failed");
  derive(state, a.get(), b.get());
}

void run_handshakes(benchmark::State& state, SSL_SESSION* resume) {
  const TlsSetup& s = setup();
  std::chrono::nanoseconds server{0};
  std::chrono::nanoseconds client{0};
  for (auto _ : state) {
    const auto r = s.pair->handshake(resume);
    if (!r.ok || r.resumed != (resume != nullptr)) {
      state.SkipWithError(r.ok ? "the session was not resumed" : r.error.c_str());
      return;
    }
    server += r.server_time;
    client += r.client_time;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["server_ns"] =
      benchmark::Counter(static_cast<double>(server.count()), benchmark::Counter::kAvgIterations);
  state.counters["client_ns"] =
      benchmark::Counter(static_cast<double>(client.count()), benchmark::Counter::kAvgIterations);
}

void BM_handshake_full(benchmark::State& state) {
  const TlsSetup& s = setup();
  if (!s.error.empty()) return state.SkipWithError(s.error.c_str());
  run_handshakes(state, nullptr);
}

void BM_handshake_resumed(benchmark::State& state) {
  const TlsSetup& s = setup();
  if (!s.error.empty()) return state.SkipWithError(s.error.c_str());
  auto first = s.pair->handshake(nullptr, true);
  if (!first.ok) return state.SkipWithError(first.error.c_str());
  run_handshakes(state, first.session.get());
}

BENCHMARK(BM_ecdsa_p256_sign)->Name("tls/ecdsa_p256_sign");
BENCHMARK(BM_ecdh_p256)->Name("tls/ecdh_p256");
BENCHMARK(BM_x25519)->Name("tls/x25519");
BENCHMARK(BM_handshake_full)->Name("tls/handshake_tls13_full");
BENCHMARK(BM_handshake_resumed)->Name("tls/handshake_tls13_resumed");

}  // namespace
