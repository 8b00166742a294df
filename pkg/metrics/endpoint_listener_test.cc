// The secure port against unauthenticated, unauthorized and hostile
// clients: delegated authn/authz answers (with fake reviewers), client
// certificates, and the connection limits (idle TLS connections, endless
// headers, bad chunk sizes, connection cap), each bounded in time and on
// loopback. The stress tests run the server in a child process so its
// memory is measured apart from the test's own clients.
#include "pkg/metrics/http_server.h"
#include "pkg/metrics/loopback_socket_test_util.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "pkg/auth/ca_bundle.h"
#include "pkg/auth/delegating_auth.h"

namespace ksched::metrics {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The clients write to connections the server cuts: EPIPE, not a signal.
const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

int ConnectTcp(int port) { return testing::ConnectLoopback(port, 5); }

// A TLS client connection (blocking socket with 5 s timeouts); no server
// verification: these tests are about the server's side.
class TlsConn {
 public:
  static std::unique_ptr<TlsConn> Open(int port, SSL_CTX* ctx) {
    int fd = ConnectTcp(port);
    if (fd < 0) return nullptr;
    auto c = std::unique_ptr<TlsConn>(new TlsConn(fd, SSL_new(ctx)));
    SSL_set_fd(c->ssl_, fd);
    if (SSL_connect(c->ssl_) != 1) {
      ERR_clear_error();
      return nullptr;
    }
    return c;
  }
  ~TlsConn() {
    SSL_free(ssl_);
    close(fd_);
  }
  bool Write(std::string_view data) {
    while (!data.empty()) {
      int n = SSL_write(ssl_, data.data(), static_cast<int>(std::min<size_t>(data.size(), 1 << 20)));
      if (n <= 0) {
        ERR_clear_error();
        return false;
      }
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // Everything until the server closes (or 5 s of silence).
  std::string ReadAll() {
    std::string out;
    char buf[4096];
    int n;
    while ((n = SSL_read(ssl_, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    ERR_clear_error();
    return out;
  }

 private:
  TlsConn(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
  int fd_;
  SSL* ssl_;
};

std::shared_ptr<SSL_CTX> ClientContext(const std::string& cert = "", const std::string& key = "") {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  if (!cert.empty()) {
    EXPECT_EQ(SSL_CTX_use_certificate_chain_file(ctx.get(), cert.c_str()), 1);
    EXPECT_EQ(SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM), 1);
  }
  return ctx;
}

int StatusOf(const std::string& response) {
  if (response.size() < 12 || response.compare(0, 5, "HTTP/") != 0) return 0;
  return std::atoi(response.c_str() + 9);
}

std::string BodyOf(const std::string& response) {
  size_t p = response.find("\r\n\r\n");
  return p == std::string::npos ? "" : response.substr(p + 4);
}

// One GET over a fresh TLS connection: the whole response.
std::string Get(int port, SSL_CTX* ctx, const std::string& path, const std::string& token = "") {
  auto c = TlsConn::Open(port, ctx);
  if (!c) return "";
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
  if (!token.empty()) req += "Authorization: Bearer " + token + "\r\n";
  req += "\r\n";
  if (!c->Write(req)) return "";
  return c->ReadAll();
}

class FakeTokens : public auth::TokenReviewer {
 public:
  util::StatusOr<auth::TokenReviewResult> Review(const std::string& token) override {
    ++calls;
    auth::TokenReviewResult r;
    if (token == "prom-token") {
      r.authenticated = true;
      r.user.name = "system:serviceaccount:monitoring:prometheus";
    } else if (token == "other-token") {
      r.authenticated = true;
      r.user.name = "system:serviceaccount:default:other";
    }
    return r;
  }
  std::atomic<int> calls{0};
};

class FakeAccess : public auth::AccessReviewer {
 public:
  util::StatusOr<auth::AccessReviewResult> Review(const auth::UserInfo& user, const std::string& path,
                                                  const std::string& verb) override {
    ++calls;
    auth::AccessReviewResult r;
    r.allowed = verb == "get" && path == "/metrics" && user.name == "system:serviceaccount:monitoring:prometheus";
    return r;
  }
  std::atomic<int> calls{0};
};

class SecurePortTest : public ::testing::Test {
 protected:
  void Start(EndpointServerOptions o = {}, util::Clock& clock = util::RealClock::Get()) {
    o.bind_address = "127.0.0.1";
    o.secure_port = 0;  // replaced below: the listener picks a free port
    o.http_port = 0;
    // EndpointServer serves secure_port > 0 only; ask for a free one.
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(probe, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    socklen_t len = sizeof(addr);
    getsockname(probe, reinterpret_cast<sockaddr*>(&addr), &len);
    close(probe);
    o.secure_port = ntohs(addr.sin_port);
    server_ = std::make_unique<EndpointServer>(o, clock);
    server_->SetAuth(&auth_);
    server_->HandleJson("/debug/pending", [this] {
      ++handler_calls_;
      return std::string("{}");
    });
    util::Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    port_ = server_->SecurePort();
  }

  util::FakeClock clock_;
  FakeTokens tokens_;
  FakeAccess access_;
  auth::DelegatingAuth auth_{&tokens_, &access_, auth::DelegatingAuthOptions{}, clock_};
  std::atomic<int> handler_calls_{0};
  std::unique_ptr<EndpointServer> server_;
  int port_ = 0;
  std::shared_ptr<SSL_CTX> client_ = ClientContext();
};

TEST_F(SecurePortTest, NoToken401DeniedToken403AllowedToken200) {
  Start();
  std::string r = Get(port_, client_.get(), "/metrics");
  EXPECT_EQ(StatusOf(r), 401) << r;
  EXPECT_NE(r.find("WWW-Authenticate: Bearer"), std::string::npos) << r;
  EXPECT_EQ(StatusOf(Get(port_, client_.get(), "/metrics", "forged")), 401);
  r = Get(port_, client_.get(), "/metrics", "other-token");
  EXPECT_EQ(StatusOf(r), 403) << r;
  EXPECT_NE(BodyOf(r).find("cannot get path \"/metrics\""), std::string::npos) << r;
  r = Get(port_, client_.get(), "/metrics", "prom-token");
  EXPECT_EQ(StatusOf(r), 200) << r.substr(0, 200);
  // Allowed on /metrics only.
  EXPECT_EQ(StatusOf(Get(port_, client_.get(), "/configz", "prom-token")), 403);
  EXPECT_EQ(StatusOf(Get(port_, client_.get(), "/debug/pending", "prom-token")), 403);
  EXPECT_EQ(StatusOf(Get(port_, client_.get(), "/debug/pending")), 401);
  EXPECT_EQ(handler_calls_, 0) << "a handler ran for a refused request";
  // The health endpoints are open.
  for (const char* p : {"/healthz", "/readyz", "/livez"}) {
    r = Get(port_, client_.get(), p);
    EXPECT_EQ(StatusOf(r), 200) << p << ": " << r;
    EXPECT_EQ(BodyOf(r), "ok");
  }
  // Within the cache TTL the reviews are not repeated.
  const int reviews = tokens_.calls + access_.calls;
  EXPECT_EQ(StatusOf(Get(port_, client_.get(), "/metrics", "prom-token")), 200);
  EXPECT_EQ(tokens_.calls + access_.calls, reviews);
  // The plain routes, in process, are not authenticated (Serve()).
  EXPECT_EQ(server_->Serve({"GET", "/debug/pending", {}}).status, 200);
}

// A CA and client certificates from the openssl CLI.
class CertDir {
 public:
  CertDir() : dir_(std::filesystem::temp_directory_path() / ("ksched-certs-" + std::to_string(getpid()))) {
    std::filesystem::create_directories(dir_);
  }
  ~CertDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  bool Run(const std::string& cmd) {
    return std::system(("cd " + dir_.string() + " && (" + cmd + ") >/dev/null 2>&1").c_str()) == 0;
  }
  std::string Path(const std::string& f) const { return (dir_ / f).string(); }

 private:
  std::filesystem::path dir_;
};

TEST_F(SecurePortTest, ClientCertificatesVerifiedAgainstTheClientCa) {
  if (std::system("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl CLI";
  CertDir d;
  const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
  ASSERT_TRUE(d.Run("openssl req -x509 " + ec + " -keyout ca.key -out ca.crt -subj /CN=test-ca -days 1"));
  ASSERT_TRUE(d.Run("printf 'extendedKeyUsage=clientAuth\\n' > ext && "
                    "openssl req " + ec + " -keyout admin.key -out admin.csr -subj '/O=system:masters/CN=admin' && "
                    "openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 "
                    "-extfile ext -out admin.crt && "
                    "openssl req " + ec + " -keyout prom.key -out prom.csr "
                    "-subj /CN=system:serviceaccount:monitoring:prometheus && "
                    "openssl x509 -req -in prom.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 "
                    "-extfile ext -out prom.crt && "
                    "openssl req -x509 " + ec + " -keyout rogue.key -out rogue.crt "
                    "-subj '/O=system:masters/CN=rogue' -days 1"));
  EndpointServerOptions o;
  o.client_ca_file = d.Path("ca.crt");
  Start(o);
  auto admin = ClientContext(d.Path("admin.crt"), d.Path("admin.key"));
  EXPECT_EQ(StatusOf(Get(port_, admin.get(), "/configz")), 404);  // allowed (system:masters); no handler here
  EXPECT_EQ(StatusOf(Get(port_, admin.get(), "/debug/pending")), 200);
  auto prom = ClientContext(d.Path("prom.crt"), d.Path("prom.key"));
  EXPECT_EQ(StatusOf(Get(port_, prom.get(), "/metrics")), 200);
  EXPECT_EQ(StatusOf(Get(port_, prom.get(), "/debug/pending")), 403);
  // Not signed by the client CA: as if no certificate was sent.
  auto rogue = ClientContext(d.Path("rogue.crt"), d.Path("rogue.key"));
  EXPECT_EQ(StatusOf(Get(port_, rogue.get(), "/debug/pending")), 401);
  EXPECT_EQ(StatusOf(Get(port_, rogue.get(), "/debug/pending", "prom-token")), 403);
  EXPECT_EQ(StatusOf(Get(port_, rogue.get(), "/livez")), 200);
  EXPECT_EQ(tokens_.calls, 1);
}

// One GET over a fresh TLS connection with extra header lines
// ("Name: value\r\n" each).
std::string GetWith(int port, SSL_CTX* ctx, const std::string& path, const std::string& header_lines,
                    const std::string& token = "") {
  auto c = TlsConn::Open(port, ctx);
  if (!c) return "";
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + header_lines;
  if (!token.empty()) req += "Authorization: Bearer " + token + "\r\n";
  req += "\r\n";
  if (!c->Write(req)) return "";
  return c->ReadAll();
}

// The CommonName of the certificate a fresh handshake presents.
std::string ServedCommonName(int port) {
  auto ctx = ClientContext();
  int fd = ConnectTcp(port);
  if (fd < 0) return "";
  SSL* ssl = SSL_new(ctx.get());
  SSL_set_fd(ssl, fd);
  std::string cn;
  if (SSL_connect(ssl) == 1) {
    X509* cert = SSL_get1_peer_certificate(ssl);
    char buf[256] = {};
    if (cert != nullptr) X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, buf, sizeof(buf));
    X509_free(cert);
    cn = buf;
  }
  ERR_clear_error();
  SSL_free(ssl);
  close(fd);
  return cn;
}

const char kEcKey[] = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";

// Writes `from` over `to` in one rename (as a Secret volume update does).
bool Replace(CertDir& d, const std::string& from, const std::string& to) {
  return d.Run("cp " + from + " " + to + ".new && mv " + to + ".new " + to);
}

TEST_F(SecurePortTest, ServingCertificateAndClientCaReloadOnTheClock) {
  if (std::system("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl CLI";
  CertDir d;
  const std::string ec = kEcKey;
  auto client_cert = [&](const std::string& ca, const std::string& name) {
    return "openssl req " + ec + " -keyout " + name + ".key -out " + name + ".csr -subj '/O=system:masters/CN=" +
           name + "' && openssl x509 -req -in " + name + ".csr -CA " + ca + ".crt -CAkey " + ca +
           ".key -CAcreateserial -days 1 -extfile ext -out " + name + ".crt";
  };
  ASSERT_TRUE(d.Run("printf 'extendedKeyUsage=clientAuth\\n' > ext && "
                    "openssl req -x509 " + ec + " -keyout ca1.key -out ca1.crt -subj /CN=ca-1 -days 1 && "
                    "openssl req -x509 " + ec + " -keyout ca2.key -out ca2.crt -subj /CN=ca-2 -days 1 && "
                    "openssl req -x509 " + ec + " -keyout s1.key -out s1.crt -subj /CN=serving-1 -days 1 && "
                    "openssl req -x509 " + ec + " -keyout s2.key -out s2.crt -subj /CN=serving-2 -days 1 && " +
                    client_cert("ca1", "admin1") + " && " + client_cert("ca2", "admin2") +
                    " && cp s1.crt tls.crt && cp s1.key tls.key && cp ca1.crt client-ca.crt"));
  util::FakeClock& clock = clock_;  // outlives server_
  EndpointServerOptions o;
  o.tls_cert_file = d.Path("tls.crt");
  o.tls_private_key_file = d.Path("tls.key");
  o.client_ca_file = d.Path("client-ca.crt");
  o.reload_interval = std::chrono::minutes(1);
  o.reload_on_file_events = false;  // the clock alone decides here
  Start(o, clock);
  DynamicServingContent* content = server_->ServingContent();
  ASSERT_NE(content, nullptr);
  auto admin1 = ClientContext(d.Path("admin1.crt"), d.Path("admin1.key"));
  auto admin2 = ClientContext(d.Path("admin2.crt"), d.Path("admin2.key"));
  EXPECT_EQ(ServedCommonName(port_), "serving-1");
  EXPECT_EQ(StatusOf(Get(port_, admin1.get(), "/debug/pending")), 200);
  EXPECT_EQ(StatusOf(Get(port_, admin2.get(), "/debug/pending")), 401);

  // A connection opened before the change keeps its handshake.
  auto before = TlsConn::Open(port_, client_.get());
  ASSERT_NE(before, nullptr);
  ASSERT_TRUE(Replace(d, "s2.crt", "tls.crt") && Replace(d, "s2.key", "tls.key") &&
              Replace(d, "ca2.crt", "client-ca.crt"));
  // Nothing is re-read before the interval has passed.
  EXPECT_EQ(ServedCommonName(port_), "serving-1");
  clock.Step(std::chrono::minutes(1));
  ASSERT_TRUE(content->WaitForPeriodicChecks(1, 10s));
  EXPECT_EQ(content->Current()->generation, 2u);
  EXPECT_EQ(ServedCommonName(port_), "serving-2");
  ASSERT_TRUE(server_->ServingCredentials().has_value());
  EXPECT_EQ(auth::CommonName(server_->ServingCredentials()->certificate.get()), "serving-2");
  EXPECT_EQ(StatusOf(Get(port_, admin2.get(), "/debug/pending")), 200);
  EXPECT_EQ(StatusOf(Get(port_, admin1.get(), "/debug/pending")), 401);  // ca-1 is no longer trusted
  ASSERT_TRUE(before->Write("GET /livez HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(StatusOf(before->ReadAll()), 200);

  // A key that does not match, and a CA bundle that does not parse: the
  // old content stays.
  ASSERT_TRUE(Replace(d, "s1.key", "tls.key") && d.Run("printf 'garbage\\n' > client-ca.crt"));
  clock.Step(std::chrono::minutes(1));
  ASSERT_TRUE(content->WaitForPeriodicChecks(2, 10s));
  EXPECT_EQ(content->Current()->generation, 2u);
  EXPECT_EQ(ServedCommonName(port_), "serving-2");
  EXPECT_EQ(StatusOf(Get(port_, admin2.get(), "/debug/pending")), 200);
  // A file that disappears keeps it too.
  ASSERT_TRUE(d.Run("rm client-ca.crt"));
  clock.Step(std::chrono::minutes(1));
  ASSERT_TRUE(content->WaitForPeriodicChecks(3, 10s));
  EXPECT_EQ(StatusOf(Get(port_, admin2.get(), "/debug/pending")), 200);

  // Once both halves match again, the pair is taken.
  ASSERT_TRUE(Replace(d, "s1.crt", "tls.crt") && Replace(d, "ca1.crt", "client-ca.crt"));
  clock.Step(std::chrono::minutes(1));
  ASSERT_TRUE(content->WaitForPeriodicChecks(4, 10s));
  EXPECT_EQ(content->Current()->generation, 3u);
  EXPECT_EQ(ServedCommonName(port_), "serving-1");
  EXPECT_EQ(StatusOf(Get(port_, admin1.get(), "/debug/pending")), 200);
}

// kube's fsnotify: a replaced file is taken at once, with no clock step.
TEST_F(SecurePortTest, ServingCertificateReloadsOnFileEvents) {
  if (std::system("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl CLI";
  CertDir d;
  const std::string ec = kEcKey;
  ASSERT_TRUE(d.Run("openssl req -x509 " + ec + " -keyout s1.key -out s1.crt -subj /CN=serving-1 -days 1 && "
                    "openssl req -x509 " + ec + " -keyout s2.key -out s2.crt -subj /CN=serving-2 -days 1 && "
                    "cp s1.crt tls.crt && cp s1.key tls.key"));
  util::FakeClock& clock = clock_;  // outlives server_; never stepped
  EndpointServerOptions o;
  o.tls_cert_file = d.Path("tls.crt");
  o.tls_private_key_file = d.Path("tls.key");
  Start(o, clock);
  DynamicServingContent* content = server_->ServingContent();
  ASSERT_NE(content, nullptr);
  EXPECT_EQ(ServedCommonName(port_), "serving-1");
  // Key first, then certificate, each in one rename: the key's event alone
  // is a mismatch (kept), the certificate's completes the pair.
  ASSERT_TRUE(Replace(d, "s2.key", "tls.key") && Replace(d, "s2.crt", "tls.crt"));
  ASSERT_TRUE(content->WaitForGeneration(2, 10s));
  EXPECT_EQ(ServedCommonName(port_), "serving-2");
  EXPECT_EQ(content->PeriodicChecks(), 0u);
}

TEST_F(SecurePortTest, FrontProxyAuthentication) {
  if (std::system("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl CLI";
  CertDir d;
  const std::string ec = kEcKey;
  auto signed_by = [&](const std::string& ca, const std::string& file, const std::string& subject) {
    return "openssl req " + ec + " -keyout " + file + ".key -out " + file + ".csr -subj '" + subject +
           "' && openssl x509 -req -in " + file + ".csr -CA " + ca + ".crt -CAkey " + ca +
           ".key -CAcreateserial -days 1 -extfile ext -out " + file + ".crt";
  };
  ASSERT_TRUE(d.Run("printf 'extendedKeyUsage=clientAuth\\n' > ext && "
                    "openssl req -x509 " + ec + " -keyout ca.key -out ca.crt -subj /CN=client-ca -days 1 && "
                    "openssl req -x509 " + ec + " -keyout pca.key -out pca.crt -subj /CN=proxy-ca -days 1 && " +
                    signed_by("pca", "proxy", "/CN=front-proxy-client") + " && " +
                    signed_by("pca", "otherproxy", "/CN=other-proxy") + " && " +
                    signed_by("ca", "prom", "/CN=system:serviceaccount:monitoring:prometheus")));
  EndpointServerOptions o;
  o.client_ca_file = d.Path("ca.crt");
  o.requestheader_client_ca_file = d.Path("pca.crt");
  o.requestheader.allowed_names = {"front-proxy-client"};
  Start(o);
  auto proxy = ClientContext(d.Path("proxy.crt"), d.Path("proxy.key"));
  auto other_proxy = ClientContext(d.Path("otherproxy.crt"), d.Path("otherproxy.key"));
  auto prom = ClientContext(d.Path("prom.crt"), d.Path("prom.key"));
  const std::string as_prom = "X-Remote-User: system:serviceaccount:monitoring:prometheus\r\n";
  const std::string as_admin = "x-remote-user: admin\r\nX-Remote-Group: system:masters\r\n";

  // The proxy's user is authorized as itself.
  EXPECT_EQ(StatusOf(GetWith(port_, proxy.get(), "/metrics", as_prom)), 200);
  EXPECT_EQ(StatusOf(GetWith(port_, proxy.get(), "/debug/pending", as_prom)), 403);
  EXPECT_EQ(StatusOf(GetWith(port_, proxy.get(), "/debug/pending", as_admin)), 200);
  // A proxy naming no user is not authenticated by its certificate (it is
  // not of the client CA) but may still carry a token.
  EXPECT_EQ(StatusOf(GetWith(port_, proxy.get(), "/metrics", "X-Remote-Group: system:masters\r\n")), 401);
  EXPECT_EQ(StatusOf(GetWith(port_, proxy.get(), "/metrics", "", "prom-token")), 200);
  // A front-proxy certificate whose CN is not allowed: headers ignored.
  EXPECT_EQ(StatusOf(GetWith(port_, other_proxy.get(), "/debug/pending", as_admin)), 401);
  // Headers from a client of the client CA, from no certificate at all, or
  // next to a token are ignored.
  EXPECT_EQ(StatusOf(GetWith(port_, prom.get(), "/debug/pending", as_admin)), 403);
  EXPECT_EQ(StatusOf(GetWith(port_, prom.get(), "/metrics", as_admin)), 200);
  EXPECT_EQ(StatusOf(GetWith(port_, client_.get(), "/debug/pending", as_admin)), 401);
  EXPECT_EQ(StatusOf(GetWith(port_, client_.get(), "/debug/pending", as_admin, "prom-token")), 403);
  EXPECT_EQ(handler_calls_, 1);
}

TEST(SecurePortStartTest, BadRequestHeaderCaFileFailsStart) {
  EndpointServerOptions o;
  o.bind_address = "127.0.0.1";
  o.secure_port = 1;  // never bound: the CA is read first
  o.requestheader_client_ca_file = "/nonexistent/proxy-ca.crt";
  EndpointServer s(o);
  util::Status st = s.Start();
  EXPECT_EQ(st.code(), util::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("--requestheader-client-ca-file /nonexistent/proxy-ca.crt"), std::string::npos)
      << st.ToString();
}

TEST(SecurePortStartTest, BadClientCaFileFailsStart) {
  EndpointServerOptions o;
  o.bind_address = "127.0.0.1";
  o.secure_port = 1;  // never bound: the CA is read first
  o.client_ca_file = "/nonexistent/ca.crt";
  EndpointServer s(o);
  util::Status st = s.Start();
  EXPECT_EQ(st.code(), util::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("--client-ca-file /nonexistent/ca.crt"), std::string::npos) << st.ToString();
}

// ---------------------------------------------------------------------------
// Hostile clients. The server runs in a child process (forked before it
// starts any thread), so /proc/<child>/status measures the server alone.

struct ChildServer {
  pid_t pid = -1;
  int port = 0;

  ~ChildServer() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  bool Alive() const { return pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0; }
  // VmRSS in bytes.
  long Rss() const {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6) * 1024;
    }
    return -1;
  }
  // The number of connections the server holds open (its TCP sockets to
  // loopback peers, counted from its fd table).
  int OpenSockets() const {
    int n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
      std::error_code ec2;
      auto target = std::filesystem::read_symlink(e.path(), ec2);
      if (!ec2 && target.string().rfind("socket:", 0) == 0) ++n;
    }
    return n - 1;  // the listening socket
  }
};

ChildServer StartChild(ConnectionLimits limits) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  ChildServer c;
  c.pid = fork();
  if (c.pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a killed test
    close(fds[0]);
    EndpointServerOptions o;
    o.bind_address = "127.0.0.1";
    o.limits = limits;
    // A fixed port would clash between runs; probe one in the child.
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(probe, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(probe, reinterpret_cast<sockaddr*>(&addr), &len);
    close(probe);
    o.secure_port = ntohs(addr.sin_port);
    auto* server = new EndpointServer(o);  // lives until the parent kills us
    if (!server->Start().ok()) _exit(3);
    int port = server->SecurePort();
    if (write(fds[1], &port, sizeof(port)) != sizeof(port)) _exit(4);
    while (true) pause();
  }
  close(fds[1]);
  int port = 0;
  if (read(fds[0], &port, sizeof(port)) == sizeof(port)) c.port = port;
  close(fds[0]);
  return c;
}

// How long /livez takes over a fresh TLS connection; 99 s when it fails.
std::chrono::milliseconds LivezLatency(int port, SSL_CTX* ctx) {
  auto t0 = Clock::now();
  std::string r = Get(port, ctx, "/livez");
  if (StatusOf(r) != 200) return 99s;
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
}

TEST(HostileClientsTest, ThousandIdleTlsConnectionsAreBoundedAndClosed) {
  ConnectionLimits limits;
  limits.header_timeout = 3s;  // the 10 s default, shortened for the test
  limits.idle_timeout = 3s;
  ChildServer server = StartChild(limits);
  ASSERT_GT(server.port, 0);
  auto ctx = ClientContext();
  ASSERT_LT(LivezLatency(server.port, ctx.get()), 1s);
  const long base_rss = server.Rss();

  std::vector<std::unique_ptr<TlsConn>> idle;
  const auto opened_at = Clock::now();
  for (int i = 0; i < 1000; ++i) {
    auto c = TlsConn::Open(server.port, ctx.get());
    ASSERT_TRUE(c) << "connection " << i;
    idle.push_back(std::move(c));
    if (i % 250 == 249) {
      EXPECT_LT(LivezLatency(server.port, ctx.get()), 1s) << "after " << i + 1;
    }
  }
  const auto all_open = Clock::now();
  EXPECT_LT(LivezLatency(server.port, ctx.get()), 1s);
  const long grown = server.Rss() - base_rss;
  EXPECT_LT(grown, 200L << 20) << "server RSS grew by " << (grown >> 20) << " MiB";
  std::cerr << "1000 idle TLS connections: server RSS +" << (grown >> 20) << " MiB, opened in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(all_open - opened_at).count() << " ms\n";

  // Every idle connection is closed by the header timeout (3 s after its
  // handshake), while /livez keeps answering.
  while (server.OpenSockets() > 0 && Clock::now() - all_open < 10s) {
    EXPECT_LT(LivezLatency(server.port, ctx.get()), 1s);
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(server.OpenSockets(), 0);
  EXPECT_LT(Clock::now() - all_open, 3s + 5s);
  // The clients see the close.
  EXPECT_EQ(idle.front()->ReadAll(), "");
  EXPECT_TRUE(server.Alive());
  EXPECT_LT(LivezLatency(server.port, ctx.get()), 1s);
}

TEST(HostileClientsTest, SilentTcpConnectionsHitTheHandshakeTimeout) {
  ConnectionLimits limits;
  limits.handshake_timeout = 1s;
  ChildServer server = StartChild(limits);
  ASSERT_GT(server.port, 0);
  std::vector<int> fds;
  for (int i = 0; i < 100; ++i) fds.push_back(ConnectTcp(server.port));
  auto ctx = ClientContext();
  EXPECT_LT(LivezLatency(server.port, ctx.get()), 1s);
  const auto t0 = Clock::now();
  char c;
  EXPECT_EQ(recv(fds[0], &c, 1, 0), 0);  // closed by the server
  EXPECT_LT(Clock::now() - t0, 3s);
  for (int fd : fds) close(fd);
}

TEST(HostileClientsTest, EndlessHeadersAreCutAt431) {
  ChildServer server = StartChild(ConnectionLimits{});
  ASSERT_GT(server.port, 0);
  auto ctx = ClientContext();
  const long base_rss = server.Rss();
  auto conn = TlsConn::Open(server.port, ctx.get());
  ASSERT_TRUE(conn);
  std::string line = "X-Filler: " + std::string(1000, 'a') + "\r\n";
  std::string mib;
  while (mib.size() < (1 << 20)) mib += line;
  ASSERT_TRUE(conn->Write("GET /livez HTTP/1.1\r\nHost: x\r\n"));
  size_t sent = 0;
  std::atomic<bool> stop{false};
  std::thread probe([&] {
    while (!stop) {
      EXPECT_LT(LivezLatency(server.port, ctx.get()), 1s);
      std::this_thread::sleep_for(100ms);
    }
  });
  while (sent < (256u << 20) && conn->Write(mib)) sent += mib.size();
  stop = true;
  probe.join();
  EXPECT_LT(sent, 256u << 20) << "the server read 256 MiB of headers";
  std::string r = conn->ReadAll();
  // The server answered 431 and closed (the answer may be lost to the
  // reset when unread bytes were pending: then nothing arrives).
  if (!r.empty()) {
    EXPECT_EQ(StatusOf(r), 431) << r.substr(0, 100);
  }
  EXPECT_LT(server.Rss() - base_rss, 200L << 20);
  EXPECT_TRUE(server.Alive());
  EXPECT_LT(LivezLatency(server.port, ctx.get()), 1s);
}

TEST(HostileClientsTest, BadChunkSizesAreRejectedBeforeAnyHandler) {
  ChildServer server = StartChild(ConnectionLimits{});
  ASSERT_GT(server.port, 0);
  auto ctx = ClientContext();
  const std::string head = "POST /livez HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  {
    auto conn = TlsConn::Open(server.port, ctx.get());
    ASSERT_TRUE(conn);
    ASSERT_TRUE(conn->Write(head + "-1\r\nabc\r\n0\r\n\r\n"));
    std::string r = conn->ReadAll();
    EXPECT_EQ(StatusOf(r), 400) << r;
  }
  {
    auto conn = TlsConn::Open(server.port, ctx.get());
    ASSERT_TRUE(conn);
    // 1 TiB announced; the server stops at its 64 KiB body limit.
    ASSERT_TRUE(conn->Write(head + "ffffffffff\r\n"));
    std::string chunk(16 * 1024, 'x');
    for (int i = 0; i < 8 && conn->Write(chunk); ++i) {
    }
    std::string r = conn->ReadAll();
    EXPECT_EQ(StatusOf(r), 413) << r;
  }
  {
    // Larger than the decoder takes at all.
    auto conn = TlsConn::Open(server.port, ctx.get());
    ASSERT_TRUE(conn);
    ASSERT_TRUE(conn->Write(head + "fffffffffffffffffff\r\n"));
    EXPECT_EQ(StatusOf(conn->ReadAll()), 400);
  }
  EXPECT_TRUE(server.Alive());
  EXPECT_LT(LivezLatency(server.port, ctx.get()), 1s);
}

TEST(HostileClientsTest, ConnectionCapClosesTheExcessAtOnce) {
  ConnectionLimits limits;
  limits.max_connections = 8;
  limits.header_timeout = 2s;
  ChildServer server = StartChild(limits);
  ASSERT_GT(server.port, 0);
  auto ctx = ClientContext();
  std::vector<std::unique_ptr<TlsConn>> held;
  for (int i = 0; i < 8; ++i) held.push_back(TlsConn::Open(server.port, ctx.get()));
  // The ninth is closed during its handshake.
  const auto t0 = Clock::now();
  EXPECT_EQ(TlsConn::Open(server.port, ctx.get()), nullptr);
  EXPECT_LT(Clock::now() - t0, 1s);
  held.clear();  // the server notices the closes
  const auto deadline = Clock::now() + 3s;
  while (server.OpenSockets() > 0 && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
  EXPECT_LT(LivezLatency(server.port, ctx.get()), 1s);
}

}  // namespace
}  // namespace ksched::metrics
