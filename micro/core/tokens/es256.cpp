#include "micro/core/tokens/es256.hpp"

#include <openssl/ec.h>
#include <openssl/pem.h>

#include <stdexcept>
#include <string>

namespace gatebench::tokens {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};

// One INTEGER of a DER signature: leading zero bytes dropped, a 0x00 put back when the high bit
// is set (DER integers are signed), at least one content byte.
std::size_t der_integer(std::span<const std::uint8_t> value, std::uint8_t* out) {
  std::size_t skip = 0;
  while (skip + 1 < value.size() && value[skip] == 0) ++skip;
  const std::size_t body = value.size() - skip;
  const bool pad = (value[skip] & 0x80) != 0;
  out[0] = 0x02;
  out[1] = static_cast<std::uint8_t>(body + (pad ? 1 : 0));
  std::size_t n = 2;
  if (pad) out[n++] = 0;
  for (std::size_t i = skip; i < value.size(); ++i) out[n++] = value[i];
  return n;
}

}  // namespace

Es256PublicKey Es256PublicKey::from_pem(std::string_view pem) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) throw std::invalid_argument("cannot read the public key");
  std::shared_ptr<EVP_PKEY> key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr),
                                PkeyFree{});
  if (!key) throw std::invalid_argument("not a PEM public key (\"BEGIN PUBLIC KEY\")");
  if (EVP_PKEY_base_id(key.get()) != EVP_PKEY_EC) {
    throw std::invalid_argument("not an EC public key (ES256 needs P-256)");
  }
  char group[64] = {};
  std::size_t group_len = 0;
  if (EVP_PKEY_get_utf8_string_param(key.get(), "group", group, sizeof group, &group_len) != 1 ||
      std::string(group, group_len) != "prime256v1") {
    throw std::invalid_argument("EC key on curve '" + std::string(group, group_len) +
                                "', ES256 needs P-256 (prime256v1)");
  }
  return Es256PublicKey(std::move(key));
}

Es256Verifier::Es256Verifier(const Es256PublicKey& key)
    : key_(key), ctx_(EVP_PKEY_CTX_new(key.get(), nullptr)) {
  if (!ctx_ || EVP_PKEY_verify_init(ctx_.get()) != 1 ||
      EVP_PKEY_CTX_set_signature_md(ctx_.get(), EVP_sha256()) != 1) {
    throw std::runtime_error("OpenSSL: cannot set up an ES256 verification context");
  }
}

bool Es256Verifier::verify(const Sha256Digest& digest,
                           std::span<const std::uint8_t> signature) const {
  std::array<std::uint8_t, kEs256DerMaxSize> der;
  const std::size_t der_len = es256_signature_der(signature, der);
  if (der_len == 0) return false;
  return EVP_PKEY_verify(ctx_.get(), der.data(), der_len, digest.data(), digest.size()) == 1;
}

std::size_t es256_signature_der(std::span<const std::uint8_t> signature,
                                std::span<std::uint8_t, kEs256DerMaxSize> out) {
  if (signature.size() != kEs256SignatureSize) return 0;
  std::size_t n = 2;
  n += der_integer(signature.first(32), out.data() + n);
  n += der_integer(signature.subspan(32), out.data() + n);
  out[0] = 0x30;
  out[1] = static_cast<std::uint8_t>(n - 2);
  return n;
}

}  // namespace gatebench::tokens
