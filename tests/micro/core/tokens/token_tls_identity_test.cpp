// The TLS fixtures the tls/ benchmarks and the HTTPS scenarios rely on: the generated identity
// is an ECDSA P-256 self-signed certificate, its PEM files load back, and in-memory TLS 1.3
// handshakes complete, full and resumed.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "fixtures/tls_identity.hpp"
#include "fixtures/tls_memory_handshake.hpp"

namespace gatebench::fixtures {
namespace {

TEST(TlsIdentity, IsAnEcdsaP256SelfSignedCertificate) {
  const TlsIdentity id = TlsIdentity::generate("gatebench.test");
  EXPECT_EQ(EVP_PKEY_get_base_id(id.key()), EVP_PKEY_EC);
  char group[32] = {};
  std::size_t size = 0;
  ASSERT_EQ(EVP_PKEY_get_group_name(id.key(), group, sizeof group, &size), 1);
  EXPECT_STREQ(group, "prime256v1");
  EXPECT_EQ(X509_verify(id.certificate(), id.key()), 1);
  EXPECT_EQ(X509_check_host(id.certificate(), "gatebench.test", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(id.certificate(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_host(id.certificate(), "other.test", 0, 0, nullptr), 0);
}

TEST(TlsIdentity, WritesPemFilesThatLoadBack) {
  const TlsIdentity id = TlsIdentity::generate();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gatebench-tls-test-" + std::to_string(::getpid())) / "nested";
  const PemPaths paths = id.write_pem(dir);
  EXPECT_EQ(paths.certificate, dir / "cert.pem");
  EXPECT_EQ(paths.key, dir / "key.pem");
  struct stat st {};
  ASSERT_EQ(::stat(paths.key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  FILE* f = std::fopen(paths.certificate.c_str(), "r");
  ASSERT_NE(f, nullptr);
  X509Ptr cert(PEM_read_X509(f, nullptr, nullptr, nullptr));
  std::fclose(f);
  f = std::fopen(paths.key.c_str(), "r");
  ASSERT_NE(f, nullptr);
  PkeyPtr key(PEM_read_PrivateKey(f, nullptr, nullptr, nullptr));
  std::fclose(f);
  ASSERT_TRUE(cert && key);
  EXPECT_EQ(X509_cmp(cert.get(), id.certificate()), 0);
  EXPECT_EQ(X509_check_private_key(cert.get(), key.get()), 1);
  std::filesystem::remove_all(dir.parent_path());
}

TEST(TlsIdentity, WritePemNamesTheFileItCannotWrite) {
  const TlsIdentity id = TlsIdentity::generate();
  try {
    id.write_pem("/proc/gatebench-no-such-dir");
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/proc/gatebench-no-such-dir"), std::string::npos)
        << e.what();
  }
}

TEST(TlsMemoryPair, FullThenResumedHandshakes) {
  const TlsIdentity id = TlsIdentity::generate();
  const TlsMemoryPair pair(id);
  auto full = pair.handshake(nullptr, true);
  ASSERT_TRUE(full.ok) << full.error;
  EXPECT_FALSE(full.resumed);
  ASSERT_TRUE(full.session);
  EXPECT_GT(full.server_time.count(), 0);
  EXPECT_GT(full.client_time.count(), 0);
  // Without a session to keep, the server issues no ticket (as the new-connection scenarios).
  const auto plain = pair.handshake();
  ASSERT_TRUE(plain.ok) << plain.error;
  EXPECT_FALSE(plain.resumed);
  EXPECT_GT(plain.client_time.count(), 0);
  for (int i = 0; i < 3; ++i) {  // the same ticket resumes more than once (stateless tickets)
    const auto resumed = pair.handshake(full.session.get());
    ASSERT_TRUE(resumed.ok) << resumed.error;
    EXPECT_TRUE(resumed.resumed);
  }
  // A session from another server's ticket key is not resumed, but the handshake still completes.
  const TlsIdentity other_id = TlsIdentity::generate();
  const TlsMemoryPair other(other_id);
  const auto fallback = other.handshake(full.session.get());
  ASSERT_TRUE(fallback.ok) << fallback.error;
  EXPECT_FALSE(fallback.resumed);
}

}  // namespace
}  // namespace gatebench::fixtures
