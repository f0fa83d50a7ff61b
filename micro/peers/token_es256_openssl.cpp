#include "micro/peers/token_es256_openssl.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/hmac.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "micro/core/tokens/base64url.hpp"
#include "micro/core/tokens/sha256.hpp"
#include "micro/peers/token_jwt_nlohmann.hpp"

namespace gatebench::peers {
namespace {

using tokens::VerifyStatus;

template <typename T, void (*kFree)(T*)>
struct Free {
  void operator()(T* p) const { kFree(p); }
};
using BnPtr = std::unique_ptr<BIGNUM, Free<BIGNUM, BN_free>>;
using GroupPtr = std::unique_ptr<EC_GROUP, Free<EC_GROUP, EC_GROUP_free>>;
using PointPtr = std::unique_ptr<EC_POINT, Free<EC_POINT, EC_POINT_free>>;
using SigPtr = std::unique_ptr<ECDSA_SIG, Free<ECDSA_SIG, ECDSA_SIG_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Free<EVP_MD_CTX, EVP_MD_CTX_free>>;
using PctxPtr = std::unique_ptr<EVP_PKEY_CTX, Free<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using BldPtr = std::unique_ptr<OSSL_PARAM_BLD, Free<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, Free<OSSL_PARAM, OSSL_PARAM_free>>;
void bio_free(BIO* b) {
  BIO_free(b);
}
void openssl_free(unsigned char* p) {
  OPENSSL_free(p);
}
using BioPtr = std::unique_ptr<BIO, Free<BIO, bio_free>>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("OpenSSL: ") + what);
}

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

Es256SigningKey Es256SigningKey::from_seed(std::uint64_t seed) {
  GroupPtr group(EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1));
  check(group != nullptr, "P-256 group");
  // A scalar in [1, n-1] from the seed: SHA-256 of its 8 bytes reduced mod n-1, plus one.
  std::array<std::uint8_t, 8> seed_bytes;
  for (std::size_t k = 0; k < 8; ++k) seed_bytes[k] = static_cast<std::uint8_t>(seed >> (8 * k));
  const tokens::Sha256Digest raw = tokens::sha256(seed_bytes);
  BnPtr priv(BN_bin2bn(raw.data(), raw.size(), nullptr));
  BnPtr order_minus_one(BN_dup(EC_GROUP_get0_order(group.get())));
  check(priv && order_minus_one && BN_sub_word(order_minus_one.get(), 1) == 1, "scalar");
  BnPtr scalar(BN_new());
  std::unique_ptr<BN_CTX, Free<BN_CTX, BN_CTX_free>> bn_ctx(BN_CTX_new());
  check(scalar && bn_ctx &&
            BN_nnmod(scalar.get(), priv.get(), order_minus_one.get(), bn_ctx.get()) == 1 &&
            BN_add_word(scalar.get(), 1) == 1,
        "scalar");
  PointPtr pub(EC_POINT_new(group.get()));
  check(pub &&
            EC_POINT_mul(group.get(), pub.get(), scalar.get(), nullptr, nullptr, bn_ctx.get()) == 1,
        "public point");
  std::array<std::uint8_t, 65> pub_oct;
  check(EC_POINT_point2oct(group.get(), pub.get(), POINT_CONVERSION_UNCOMPRESSED, pub_oct.data(),
                           pub_oct.size(), bn_ctx.get()) == pub_oct.size(),
        "public point encoding");
  BldPtr bld(OSSL_PARAM_BLD_new());
  check(bld &&
            OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1",
                                            0) == 1 &&
            OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PRIV_KEY, scalar.get()) == 1 &&
            OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, pub_oct.data(),
                                             pub_oct.size()) == 1,
        "key parameters");
  ParamPtr params(OSSL_PARAM_BLD_to_param(bld.get()));
  PctxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  EVP_PKEY* key = nullptr;
  check(params && ctx && EVP_PKEY_fromdata_init(ctx.get()) == 1 &&
            EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_KEYPAIR, params.get()) == 1,
        "key from data");
  return Es256SigningKey(PkeyPtr(key));
}

std::string Es256SigningKey::public_pem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  check(bio && PEM_write_bio_PUBKEY(bio.get(), key_.get()) == 1, "PEM_write_bio_PUBKEY");
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::array<std::uint8_t, 64> Es256SigningKey::sign(std::string_view message) const {
  MdCtxPtr md(EVP_MD_CTX_new());
  std::array<std::uint8_t, 80> der;
  std::size_t der_len = der.size();
  check(md && EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, key_.get()) == 1 &&
            EVP_DigestSign(md.get(), der.data(), &der_len,
                           reinterpret_cast<const unsigned char*>(message.data()),
                           message.size()) == 1,
        "EVP_DigestSign");
  const unsigned char* p = der.data();
  SigPtr sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der_len)));
  check(sig != nullptr, "d2i_ECDSA_SIG");
  std::array<std::uint8_t, 64> out;
  check(BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), out.data(), 32) == 32 &&
            BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), out.data() + 32, 32) == 32,
        "signature encoding");
  return out;
}

std::string Es256SigningKey::sign_jwt(std::string_view header_json,
                                      std::string_view claims_json) const {
  const std::string input = tokens::base64url_encode(bytes_of(header_json)) + "." +
                            tokens::base64url_encode(bytes_of(claims_json));
  const std::array<std::uint8_t, 64> sig = sign(input);
  return input + "." + tokens::base64url_encode(sig);
}

void OpenSslJwtVerifier::add_hs256(std::string_view kid, std::span<const std::uint8_t> secret) {
  keys_.push_back({std::string(kid), false, {secret.begin(), secret.end()}, nullptr});
}

void OpenSslJwtVerifier::add_es256(std::string_view kid, std::string_view public_pem) {
  BioPtr bio(BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size())));
  EVP_PKEY* key = bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr) : nullptr;
  if (key == nullptr) throw std::invalid_argument("not a PEM public key");
  keys_.push_back({std::string(kid), true, {}, std::shared_ptr<EVP_PKEY>(key, PkeyFree{})});
}

VerifyStatus OpenSslJwtVerifier::verify(std::string_view token_view, std::int64_t now,
                                        const tokens::JwtRequirements& required) const {
  const std::string token(token_view);
  const auto dot1 = token.find('.');
  if (dot1 == std::string::npos) return VerifyStatus::malformed;
  const auto dot2 = token.find('.', dot1 + 1);
  if (dot2 == std::string::npos) return VerifyStatus::malformed;
  const auto signature = textbook_base64url_decode(token.substr(dot2 + 1));
  if (!signature || signature->size() > 64) return VerifyStatus::malformed;
  const auto header_text = textbook_base64url_decode(token.substr(0, dot1));
  if (!header_text || header_text->size() > tokens::kJwtMaxHeaderBytes) {
    return VerifyStatus::malformed;
  }
  const nlohmann::json header = nlohmann::json::parse(*header_text, nullptr, false);
  if (header.is_discarded() || !header.is_object()) return VerifyStatus::malformed;
  if (!header.contains("alg") || header.contains("crit")) return VerifyStatus::malformed;
  if (!header["alg"].is_string()) return VerifyStatus::wrong_algorithm;
  const std::string alg = header["alg"].get<std::string>();
  if (alg != "HS256" && alg != "ES256") return VerifyStatus::wrong_algorithm;
  const Key* key = nullptr;
  if (header.contains("kid")) {
    if (!header["kid"].is_string()) return VerifyStatus::unknown_key;
    const std::string kid = header["kid"].get<std::string>();
    for (const Key& k : keys_) {
      if (k.kid == kid) key = &k;
    }
  } else if (keys_.size() == 1) {
    key = &keys_.front();
  }
  if (key == nullptr) return VerifyStatus::unknown_key;
  if (key->es256 != (alg == "ES256")) return VerifyStatus::wrong_algorithm;

  const std::string signing_input = token.substr(0, dot2);
  if (!key->es256) {
    if (signature->size() != 32) return VerifyStatus::malformed;
    unsigned char tag[EVP_MAX_MD_SIZE];
    unsigned int tag_size = 0;
    HMAC(EVP_sha256(), key->secret.data(), static_cast<int>(key->secret.size()),
         reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size(), tag,
         &tag_size);
    if (tag_size != 32 || CRYPTO_memcmp(tag, signature->data(), 32) != 0) {
      return VerifyStatus::bad_signature;
    }
  } else {
    if (signature->size() != 64) return VerifyStatus::malformed;
    const auto* raw = reinterpret_cast<const unsigned char*>(signature->data());
    SigPtr sig(ECDSA_SIG_new());
    BIGNUM* r = BN_bin2bn(raw, 32, nullptr);
    BIGNUM* s = BN_bin2bn(raw + 32, 32, nullptr);
    if (!sig || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
      BN_free(r);
      BN_free(s);
      throw std::runtime_error("OpenSSL: ECDSA_SIG");
    }
    unsigned char* der = nullptr;
    const int der_len = i2d_ECDSA_SIG(sig.get(), &der);
    std::unique_ptr<unsigned char, Free<unsigned char, openssl_free>> der_owner(der);
    MdCtxPtr md(EVP_MD_CTX_new());
    const bool ok =
        der_len > 0 && md &&
        EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key->pkey.get()) == 1 &&
        EVP_DigestVerify(md.get(), der, static_cast<std::size_t>(der_len),
                         reinterpret_cast<const unsigned char*>(signing_input.data()),
                         signing_input.size()) == 1;
    if (!ok) return VerifyStatus::bad_signature;
  }

  nlohmann::json claims;
  const auto times = textbook_claims(token.substr(dot1 + 1, dot2 - dot1 - 1), claims);
  if (!times) return VerifyStatus::malformed;
  const std::int64_t leeway = required.leeway_s;
  if (now - leeway >= times->exp) return VerifyStatus::expired;
  if (times->nbf && now + leeway < *times->nbf) return VerifyStatus::not_yet_valid;
  if (!required.issuer.empty()) {
    if (!claims.contains("iss") || !claims["iss"].is_string() ||
        claims["iss"].get<std::string>() != required.issuer) {
      return VerifyStatus::wrong_issuer;
    }
  }
  if (!required.audience.empty()) {
    bool found = false;
    if (claims.contains("aud")) {
      const auto& aud = claims["aud"];
      if (aud.is_string()) found = aud.get<std::string>() == required.audience;
      if (aud.is_array()) {
        for (const auto& a : aud)
          found = found || (a.is_string() && a.get<std::string>() == required.audience);
      }
    }
    if (!found) return VerifyStatus::wrong_audience;
  }
  return VerifyStatus::ok;
}

}  // namespace gatebench::peers
