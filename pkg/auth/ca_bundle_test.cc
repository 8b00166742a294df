#include "pkg/auth/ca_bundle.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ksched::auth {
namespace {

// Certificates made with the openssl CLI in a temporary directory.
class CaBundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl CLI";
    dir_ = std::filesystem::temp_directory_path() / ("ca_bundle_test." + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
    ASSERT_TRUE(Run("openssl req -x509 " + ec + " -keyout ca.key -out ca.crt -subj /CN=ca -days 1 && "
                    "openssl req -x509 " + ec + " -keyout other.key -out other.crt -subj /CN=other -days 1 && "
                    "printf 'extendedKeyUsage=clientAuth\\n' > client.ext && "
                    "printf 'extendedKeyUsage=serverAuth\\n' > server.ext && "
                    "openssl req " + ec + " -keyout c.key -out c.csr -subj /CN=client && "
                    "openssl x509 -req -in c.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 "
                    "-extfile client.ext -out client.crt && "
                    "openssl x509 -req -in c.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 "
                    "-extfile server.ext -out server-only.crt"));
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  bool Run(const std::string& cmd) {
    return std::system(("cd " + dir_.string() + " && (" + cmd + ") >/dev/null 2>&1").c_str()) == 0;
  }
  std::string Read(const std::string& f) {
    std::ifstream in(dir_ / f);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::shared_ptr<X509> Cert(const std::string& f) {
    std::string pem = Read(f);
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509* c = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    return std::shared_ptr<X509>(c, X509_free);
  }
  std::filesystem::path dir_;
};

TEST_F(CaBundleTest, VerifiesClientCertificatesOfItsCas) {
  auto ca = CaBundle::Parse(Read("ca.crt"), "ca");
  ASSERT_TRUE(ca.ok()) << ca.status().ToString();
  EXPECT_EQ((*ca)->size(), 1);
  EXPECT_TRUE((*ca)->Verify(Cert("client.crt").get(), nullptr));
  // serverAuth only: not for client authentication.
  EXPECT_FALSE((*ca)->Verify(Cert("server-only.crt").get(), nullptr));
  EXPECT_FALSE((*ca)->Verify(nullptr, nullptr));
  auto other = CaBundle::Parse(Read("other.crt"), "other");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE((*other)->Verify(Cert("client.crt").get(), nullptr));
  // A bundle of both.
  auto both = CaBundle::Parse(Read("other.crt") + Read("ca.crt"), "both");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ((*both)->size(), 2);
  EXPECT_TRUE((*both)->Verify(Cert("client.crt").get(), nullptr));
  EXPECT_EQ(CommonName(Cert("client.crt").get()), "client");
}

TEST_F(CaBundleTest, RejectsEmptyAndBrokenBundles) {
  auto empty = CaBundle::Parse("", "--client-ca-file x");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("--client-ca-file x"), std::string::npos);
  EXPECT_FALSE(CaBundle::Parse("not pem at all\n", "x").ok());
  std::string pem = Read("ca.crt");
  // Truncated in the middle of the base64 body.
  std::string broken = pem.substr(0, pem.size() / 2) + "\n-----END CERTIFICATE-----\n";
  EXPECT_FALSE(CaBundle::Parse(broken, "x").ok());
  EXPECT_FALSE(CaBundle::Parse(Read("other.crt") + broken, "x").ok());
}

}  // namespace
}  // namespace ksched::auth
