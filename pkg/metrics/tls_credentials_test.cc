#include "pkg/metrics/tls_credentials.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ksched::metrics {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/ksched-tls-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

TEST(TlsCredentialsTest, SelfSignedHasSansValidityAndVerifies) {
  util::FakeClock clock;
  SelfSignedOptions o;
  o.common_name = "host@1767225600";
  o.dns_names = {"localhost", "ksched.example"};
  o.ip_addresses = {"127.0.0.1", "::1"};
  o.not_before = clock.WallNow();
  auto creds = GenerateSelfSigned(o);
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  X509* cert = creds->certificate.get();

  auto sans = SubjectAltNames(cert);
  EXPECT_EQ(sans, (std::vector<std::string>{"DNS:localhost", "DNS:ksched.example", "IP:127.0.0.1",
                                            "IP:::1"}));
  // Self-signed: its own key verifies its signature.
  EXPECT_EQ(X509_verify(cert, creds->private_key.get()), 1);
  EXPECT_EQ(X509_check_private_key(cert, creds->private_key.get()), 1);
  EXPECT_EQ(X509_check_host(cert, "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(cert, "127.0.0.1", 0), 1);
  EXPECT_NE(X509_check_host(cert, "other.example", 0, 0, nullptr), 1);

  const std::time_t start = std::chrono::system_clock::to_time_t(o.not_before);
  int days = 0, secs = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(cert), X509_get0_notAfter(cert)), 1);
  EXPECT_EQ(days, 365);
  ASN1_TIME* expected_start = ASN1_TIME_set(nullptr, start);
  ASSERT_NE(expected_start, nullptr);
  ASSERT_EQ(ASN1_TIME_diff(&days, &secs, expected_start, X509_get0_notBefore(cert)), 1);
  EXPECT_EQ(days, 0);
  EXPECT_EQ(secs, 0);
  ASN1_TIME_free(expected_start);
  EXPECT_GE(X509_get_ext_by_NID(cert, NID_basic_constraints, -1), 0);

  const std::string pem = creds->CertificatePem();
  EXPECT_EQ(pem.rfind("-----BEGIN CERTIFICATE-----", 0), 0u);
}

TEST(TlsCredentialsTest, RejectsBadIpLiteral) {
  SelfSignedOptions o;
  o.common_name = "x";
  o.ip_addresses = {"not-an-ip"};
  o.not_before = std::chrono::system_clock::now();
  auto creds = GenerateSelfSigned(o);
  ASSERT_FALSE(creds.ok());
  EXPECT_NE(creds.status().message().find("not-an-ip"), std::string::npos);
}

TEST(TlsCredentialsTest, LoadsFilesMadeByOpensslCli) {
  if (std::system("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl CLI";
  TempDir dir;
  const std::string cert = dir.File("cert.pem"), key = dir.File("key.pem");
  const std::string other_cert = dir.File("other.pem"), other_key = dir.File("other-key.pem");
  auto gen = [](const std::string& c, const std::string& k, const std::string& cn) {
    return "openssl req -x509 -newkey rsa:2048 -nodes -keyout " + k + " -out " + c +
           " -days 1 -subj /CN=" + cn +
           " -addext subjectAltName=DNS:localhost,IP:127.0.0.1 >/dev/null 2>&1";
  };
  ASSERT_EQ(std::system(gen(cert, key, "ksched-test").c_str()), 0);
  ASSERT_EQ(std::system(gen(other_cert, other_key, "other").c_str()), 0);

  auto creds = LoadTlsCredentials(cert, key);
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_TRUE(creds->chain.empty());
  EXPECT_TRUE(Contains(SubjectAltNames(creds->certificate.get()), "IP:127.0.0.1"));

  // A chain file: leaf followed by another certificate.
  const std::string chain = dir.File("chain.pem");
  {
    std::ifstream a(cert), b(other_cert);
    std::ofstream out(chain);
    out << a.rdbuf() << b.rdbuf();
  }
  auto chained = LoadTlsCredentials(chain, key);
  ASSERT_TRUE(chained.ok()) << chained.status().ToString();
  EXPECT_EQ(chained->chain.size(), 1u);

  auto mismatch = LoadTlsCredentials(cert, other_key);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("does not match"), std::string::npos);

  auto missing = LoadTlsCredentials(dir.File("absent.pem"), key);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--tls-cert-file"), std::string::npos);

  auto not_a_key = LoadTlsCredentials(cert, cert);
  ASSERT_FALSE(not_a_key.ok());
  EXPECT_NE(not_a_key.status().message().find("--tls-private-key-file"), std::string::npos);

  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  ASSERT_NE(ctx, nullptr);
  EXPECT_TRUE(ConfigureServerContext(ctx, *chained).ok());
  EXPECT_EQ(SSL_CTX_get_min_proto_version(ctx), TLS1_2_VERSION);
  SSL_CTX_free(ctx);

  // --tls-curve-preferences' groups reach the context; one OpenSSL does not
  // know fails with its name.
  ctx = SSL_CTX_new(TLS_server_method());
  ASSERT_NE(ctx, nullptr);
  EXPECT_TRUE(ConfigureServerContext(ctx, *chained, TLS1_2_VERSION, "", "P-256:X25519").ok());
  util::Status bad = ConfigureServerContext(ctx, *chained, TLS1_2_VERSION, "", "P-999");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("P-999"), std::string::npos);
  SSL_CTX_free(ctx);
}

}  // namespace
}  // namespace ksched::metrics
