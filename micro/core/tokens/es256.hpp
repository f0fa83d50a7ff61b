// ES256 (ECDSA on P-256 with SHA-256, RFC 7518 section 3.4) signature checks through OpenSSL.
//
// Keys are loaded at configuration time (Es256PublicKey: PEM SubjectPublicKeyInfo, a P-256 key
// and nothing else). An Es256Verifier is one thread's view of a key: an EVP_PKEY_CTX initialised
// for verification once, because OpenSSL contexts must not be shared between threads and
// re-initialising one per call costs a provider context each time. verify() builds the DER form
// of the JWS signature (R || S, 32 bytes each) on the stack, so the caller's side allocates
// nothing; OpenSSL's ECDSA verification itself allocates its bignum scratch internally.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "micro/core/tokens/sha256.hpp"

namespace gatebench::tokens {

inline constexpr std::size_t kEs256SignatureSize = 64;  // R || S, big-endian, 32 bytes each
inline constexpr std::size_t kEs256DerMaxSize = 72;     // SEQUENCE { INTEGER r, INTEGER s }

class Es256PublicKey {
 public:
  // Throws std::invalid_argument when `pem` is not a PEM public key on P-256.
  static Es256PublicKey from_pem(std::string_view pem);
  EVP_PKEY* get() const { return key_.get(); }

 private:
  explicit Es256PublicKey(std::shared_ptr<EVP_PKEY> key) : key_(std::move(key)) {}
  std::shared_ptr<EVP_PKEY> key_;  // immutable once loaded: shared by every thread's verifier
};

class Es256Verifier {
 public:
  // Throws std::runtime_error when OpenSSL cannot set up the context.
  explicit Es256Verifier(const Es256PublicKey& key);
  // Whether `signature` (R || S) is a valid signature of `digest` (SHA-256 of the message).
  bool verify(const Sha256Digest& digest, std::span<const std::uint8_t> signature) const;

 private:
  struct CtxFree {
    void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
  };
  Es256PublicKey key_;
  std::unique_ptr<EVP_PKEY_CTX, CtxFree> ctx_;
};

// The DER encoding of a raw R || S signature into `out`; returns its length, or 0 when
// signature.size() != kEs256SignatureSize. R or S of zero encode as INTEGER 0 (and fail to verify).
std::size_t es256_signature_der(std::span<const std::uint8_t> signature,
                                std::span<std::uint8_t, kEs256DerMaxSize> out);

}  // namespace gatebench::tokens
