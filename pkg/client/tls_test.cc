#include "pkg/client/tls.h"

#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/client/test_util.h"
#include "pkg/metrics/endpoint_listener.h"

namespace ksched::client {
namespace {

using testing::ReadFileOrDie;
using testing::TestPki;

// An HTTPS server on 127.0.0.1 (the endpoint server's listener, which
// outlives failed handshakes): every request gets an empty NodeList, and its
// Authorization header is recorded. With `client_ca` set, a client must
// present a certificate it signed, or the handshake fails.
class TlsServer {
 public:
  TlsServer(const std::string& cert, const std::string& key, const std::string& client_ca = "") {
    std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
    EXPECT_EQ(SSL_CTX_use_certificate_chain_file(ctx.get(), cert.c_str()), 1);
    EXPECT_EQ(SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM), 1);
    if (!client_ca.empty()) {
      EXPECT_EQ(SSL_CTX_load_verify_locations(ctx.get(), client_ca.c_str(), nullptr), 1);
      SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    }
    auto handler = [this](const metrics::HttpRequest&, const metrics::RequestContext& context) {
      std::lock_guard<std::mutex> lock(mu_);
      const std::string* authorization = context.headers->Get("Authorization");
      authorizations_.push_back(authorization ? *authorization : "");
      return metrics::HttpResponse{200, "application/json", R"({"kind":"NodeList","items":[]})", {}};
    };
    listener_ = std::move(metrics::EndpointListener::Start("127.0.0.1", 0, [ctx] { return ctx; }, {}, handler))
                    .value();
  }

  std::string url() const { return "https://127.0.0.1:" + std::to_string(listener_->port()); }
  // The Authorization header of each request served, in order ("" if none).
  std::vector<std::string> authorizations() const {
    std::lock_guard<std::mutex> lock(mu_);
    return authorizations_;
  }
  size_t request_count() const { return authorizations().size(); }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> authorizations_;
  std::unique_ptr<metrics::EndpointListener> listener_;  // last: stops before the rest goes
};

// Certificates are made once per binary by the openssl CLI: one PKI whose
// server certificate names 127.0.0.1, one whose server certificate only
// names apiserver.test (for tls-server-name).
class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    ip_pki_ = new TestPki(testing::MakeTestPki(dir_->path() + "/ip", "IP:127.0.0.1"));
    dns_pki_ = new TestPki(testing::MakeTestPki(dir_->path() + "/dns", "DNS:apiserver.test"));
  }
  static void TearDownTestSuite() {
    delete ip_pki_;
    delete dns_pki_;
    delete dir_;
  }

  // One GET with no retries, so failures show up at once.
  static util::Status Get(RestConfig config) {
    util::FakeClock clock;
    config.qps = 0;
    RestClientOptions options;
    options.retry.max_retries = 0;
    util::StatusOr<std::unique_ptr<RestClient>> client = RestClient::Create(config, clock, options);
    if (!client.ok()) return client.status();
    return (*client)->Get("/api/v1/nodes").status();
  }

  static void ExpectHandshakeFailure(const util::Status& s) {
    EXPECT_EQ(s.code(), util::StatusCode::kUnavailable);
    EXPECT_NE(s.message().find("TLS handshake failed"), std::string::npos) << s.message();
  }

  static testing::TempDir* dir_;
  static TestPki* ip_pki_;
  static TestPki* dns_pki_;
};

testing::TempDir* TlsTest::dir_ = nullptr;
TestPki* TlsTest::ip_pki_ = nullptr;
TestPki* TlsTest::dns_pki_ = nullptr;

TEST_F(TlsTest, TrustsTheConfiguredCaFromDataOrFile) {
  TlsServer server(ip_pki_->server_cert, ip_pki_->server_key);
  RestConfig by_data;
  by_data.host = server.url();
  by_data.ca_data = ReadFileOrDie(ip_pki_->ca_cert);
  by_data.bearer_token = "tok";
  util::Status s = Get(by_data);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(server.authorizations().at(0), "Bearer tok");

  RestConfig by_file;
  by_file.host = server.url();
  by_file.ca_file = ip_pki_->ca_cert;
  s = Get(by_file);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(TlsTest, RejectsAServerSignedByAnotherCaWithoutRetrying) {
  TlsServer server(ip_pki_->server_cert, ip_pki_->server_key);
  RestConfig config;
  config.host = server.url();
  config.ca_file = ip_pki_->other_ca_cert;
  util::FakeClock clock;
  config.qps = 0;
  int attempts = 0;
  RestClientOptions options;
  options.observer.on_attempt_done = [&](std::string_view, int, util::Duration) { ++attempts; };
  std::unique_ptr<RestClient> client = std::move(RestClient::Create(config, clock, options)).value();
  util::Status s = client->Get("/api/v1/nodes").status();
  EXPECT_EQ(s.code(), util::StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("TLS handshake failed"), std::string::npos) << s.message();
  EXPECT_EQ(attempts, 1);
  EXPECT_EQ(server.request_count(), 0u);
}

TEST_F(TlsTest, SystemRootsDoNotTrustATestCa) {
  TlsServer server(ip_pki_->server_cert, ip_pki_->server_key);
  RestConfig config;
  config.host = server.url();
  ExpectHandshakeFailure(Get(config));
}

TEST_F(TlsTest, InsecureSkipsVerification) {
  TlsServer server(dns_pki_->server_cert, dns_pki_->server_key);
  RestConfig config;
  config.host = server.url();
  config.insecure_skip_tls_verify = true;
  util::Status s = Get(config);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(TlsTest, TlsServerNameIsUsedForVerification) {
  TlsServer server(dns_pki_->server_cert, dns_pki_->server_key);
  RestConfig config;
  config.host = server.url();  // https://127.0.0.1:PORT: not a name in the certificate
  config.ca_file = dns_pki_->ca_cert;
  ExpectHandshakeFailure(Get(config));
  config.tls_server_name = "apiserver.test";
  util::Status s = Get(config);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(TlsTest, PresentsTheClientCertificate) {
  TlsServer server(ip_pki_->server_cert, ip_pki_->server_key, ip_pki_->ca_cert);
  RestConfig config;
  config.host = server.url();
  config.ca_file = ip_pki_->ca_cert;
  util::Status no_cert = Get(config);
  EXPECT_FALSE(no_cert.ok());
  EXPECT_EQ(no_cert.code(), util::StatusCode::kUnavailable) << no_cert.ToString();
  EXPECT_EQ(server.request_count(), 0u);

  RestConfig files = config;
  files.cert_file = ip_pki_->client_cert;
  files.key_file = ip_pki_->client_key;
  util::Status s = Get(files);
  EXPECT_TRUE(s.ok()) << s.ToString();

  RestConfig data = config;
  data.cert_data = ReadFileOrDie(ip_pki_->client_cert);
  data.key_data = ReadFileOrDie(ip_pki_->client_key);
  s = Get(data);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(TlsTest, LoadTlsMaterialRejectsBadPem) {
  RestConfig bad_ca;
  bad_ca.ca_data = "not a certificate";
  util::StatusOr<TlsMaterial> m = LoadTlsMaterial(bad_ca);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("certificate authority"), std::string::npos);

  RestConfig mismatched;
  mismatched.cert_file = ip_pki_->client_cert;
  mismatched.key_file = ip_pki_->server_key;
  m = LoadTlsMaterial(mismatched);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("client key"), std::string::npos) << m.status().message();

  RestConfig good;
  good.ca_file = ip_pki_->ca_cert;
  good.cert_file = ip_pki_->client_cert;
  good.key_file = ip_pki_->client_key;
  m = LoadTlsMaterial(good);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->ca_pem, ReadFileOrDie(ip_pki_->ca_cert));
}

}  // namespace
}  // namespace ksched::client
