// Verifiers of gatecore's signed tokens that compute the tag with OpenSSL instead of gatecore's
// precomputed HMAC states: the peers of the token benchmarks and the oracles of the token
// differential test. Syntax, expiry and binding checks are gatecore's own
// (micro/core/tokens/format.hpp, micro/core/tokens/binding.hpp), so the benchmarks differ in the
// MAC alone.
//
//   hmac_oneshot  HMAC() per call (key schedule, both pads and four compressions every time),
//                 then CRYPTO_memcmp.
//   evp_mac       one EVP_MAC_CTX per key, reinitialised per call with the key it already holds
//                 (OpenSSL keeps the padded-key digests), then CRYPTO_memcmp.
//
// Not thread-safe (evp_mac mutates its contexts); one instance per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "micro/core/tokens/binding.hpp"
#include "micro/core/tokens/status.hpp"

struct evp_mac_ctx_st;

namespace gatebench::peers {

class HmacOneshotTokenVerifier {
 public:
  void add_key(std::uint8_t id, std::span<const std::uint8_t> secret);
  tokens::VerifyStatus verify_admission(std::string_view token, std::uint64_t now) const;
  tokens::VerifyStatus verify_pass(std::string_view token, std::uint64_t now, std::uint32_t ipv4,
                                   std::string_view user_agent) const;

 private:
  struct Key {
    std::uint8_t id;
    std::vector<std::uint8_t> secret;
    tokens::SipKey binding;
  };
  std::vector<Key> keys_;
};

class EvpMacTokenVerifier {
 public:
  EvpMacTokenVerifier();
  ~EvpMacTokenVerifier();
  EvpMacTokenVerifier(const EvpMacTokenVerifier&) = delete;
  EvpMacTokenVerifier& operator=(const EvpMacTokenVerifier&) = delete;

  // Throws std::runtime_error when OpenSSL cannot provide HMAC-SHA256.
  void add_key(std::uint8_t id, std::span<const std::uint8_t> secret);
  tokens::VerifyStatus verify_admission(std::string_view token, std::uint64_t now) const;
  tokens::VerifyStatus verify_pass(std::string_view token, std::uint64_t now, std::uint32_t ipv4,
                                   std::string_view user_agent) const;

 private:
  struct CtxFree {
    void operator()(evp_mac_ctx_st* ctx) const;
  };
  struct Key {
    std::uint8_t id;
    std::unique_ptr<evp_mac_ctx_st, CtxFree> ctx;
    tokens::SipKey binding;
  };
  std::vector<Key> keys_;
};

}  // namespace gatebench::peers
