#include "pkg/metrics/http_server.h"
#include "pkg/metrics/loopback_socket_test_util.h"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cpprest/http_client.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "pkg/metrics/leader_election_metrics.h"
#include "pkg/metrics/metrics_test_util.h"
#include "pkg/metrics/process_collector.h"
#include "pkg/metrics/scheduler_metrics.h"

// LeakSanitizer (sanitize build) reports two kinds of allocations that are
// not ours, only at exit and only once several servers have come and gone
// in one process (one server serving many requests leaks nothing):
//  - OpenSSL's per-thread state (error queue, random generators) of each
//    cpprestsdk pool thread that touched TLS. OpenSSL has no frame
//    pointers, so these can only be matched by module; that would also hide
//    a leak of ours allocated inside libcrypto, which is why the TLS
//    credential code is tested in metrics_test, without this suppression.
//  - pplx tasks and chores that cpprestsdk schedules internally and that
//    are still pending when its thread pool is torn down at exit.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libcrypto.so\n"
         "leak:pplx::details::\n";
}

namespace ksched::metrics {
namespace {

namespace fs = std::filesystem;
using web::http::client::http_client;
using web::http::client::http_client_config;

// A port that was free a moment ago (the kernel picks it for port 0).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    throw std::runtime_error("cannot bind a probe socket");
  }
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

int Connect(int port) { return testing::ConnectLoopback(port, 2); }

struct Fetched {
  int status = 0;
  std::string content_type;
  std::string body;
};

Fetched Fetch(const std::string& base, const std::string& path,
              const web::http::method& method = web::http::methods::GET) {
  http_client_config config;
  config.set_validate_certificates(false);
  config.set_timeout(std::chrono::seconds(10));
  http_client client(base, config);
  auto response = client.request(method, path).get();
  Fetched f;
  f.status = response.status_code();
  f.content_type = response.headers().content_type();
  f.body = response.extract_utf8string(true).get();
  return f;
}

// What a strict TLS client sees: the peer certificate, whether it verifies
// for `host` when the client trusts exactly `trusted`, and an HTTP answer.
struct TlsProbe {
  std::shared_ptr<X509> peer;
  long verify_result = -1;
  std::string response;
};

TlsProbe ProbeTls(int port, const std::string& host, X509* trusted) {
  TlsProbe probe;
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (trusted != nullptr) {
    X509_STORE* store = SSL_CTX_get_cert_store(ctx);
    X509_STORE_add_cert(store, trusted);
    // The self-signed leaf is its own trust anchor.
    X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);  // record the result instead of aborting
  SSL* ssl = SSL_new(ctx);
  SSL_set1_host(ssl, host.c_str());
  int fd = Connect(port);
  if (fd >= 0) {
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) == 1) {
      probe.peer = std::shared_ptr<X509>(SSL_get1_peer_certificate(ssl), X509_free);
      probe.verify_result = SSL_get_verify_result(ssl);
      const std::string req =
          "GET /livez HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
      SSL_write(ssl, req.data(), static_cast<int>(req.size()));
      char buf[4096];
      int n;
      while ((n = SSL_read(ssl, buf, sizeof(buf))) > 0) probe.response.append(buf, n);
    }
    SSL_shutdown(ssl);
    close(fd);
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  ERR_clear_error();
  return probe;
}

// Whether a TLS handshake succeeds with the client limited to `max_version`
// and, when given, the TLS <= 1.2 cipher list `ciphers`.
bool Handshakes(int port, int max_version, const char* ciphers = nullptr) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  SSL_CTX_set_max_proto_version(ctx, max_version);
  if (ciphers != nullptr) SSL_CTX_set_cipher_list(ctx, ciphers);
  SSL* ssl = SSL_new(ctx);
  bool ok = false;
  int fd = Connect(port);
  if (fd >= 0) {
    SSL_set_fd(ssl, fd);
    ok = SSL_connect(ssl) == 1;
    if (ok) SSL_shutdown(ssl);
    close(fd);
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  ERR_clear_error();
  return ok;
}

class EndpointServerTest : public ::testing::Test {
 protected:
  void StartServer(EndpointServerOptions options) {
    options.bind_address = "127.0.0.1";
    server_ = std::make_unique<EndpointServer>(options);
    metrics_ = std::make_unique<SchedulerMetrics>();
    leader_election_ = std::make_unique<LeaderElectionMetrics>(*metrics_->Registry());
    server_->AddCollectable(metrics_->Registry());
    server_->AddCollectable(std::make_shared<ProcessCollector>());
    server_->Readyz().Add("informer-sync", [this] {
      return synced_ ? util::Status::Ok()
                     : util::Status(util::StatusCode::kUnavailable, "caches not synced");
    });
    server_->Readyz().Add("leader-election", [] { return util::Status::Ok(); });
    server_->HandleJson("/configz", [] {
      return R"({"componentconfig":{"kind":"KubeSchedulerConfiguration"}})";
    });
    server_->HandleJson("/debug/pending", [this] {
      return R"({"pods":[{"name":"p","queue":"unschedulable","attempts":)" +
             std::to_string(++pending_calls_) + "}]}";
    });
    auto st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  void StartHttp() {
    http_port_ = FreePort();
    EndpointServerOptions o;
    o.secure_port = 0;
    o.http_port = http_port_;
    StartServer(o);
    base_ = "http://127.0.0.1:" + std::to_string(http_port_);
  }

  std::unique_ptr<EndpointServer> server_;
  std::unique_ptr<SchedulerMetrics> metrics_;
  std::unique_ptr<LeaderElectionMetrics> leader_election_;
  std::atomic<bool> synced_{true};
  std::atomic<int> pending_calls_{0};
  int http_port_ = 0;
  std::string base_;
};

TEST_F(EndpointServerTest, MetricsScrapeHasKubeFamiliesAndPassesPromtool) {
  StartHttp();
  testing::ObserveEveryFamily(*metrics_, *leader_election_);
  Fetched f = Fetch(base_, "/metrics");
  EXPECT_EQ(f.status, 200);
  EXPECT_EQ(f.content_type, "text/plain; version=0.0.4; charset=utf-8");
  for (const char* want : {
           "# TYPE scheduler_schedule_attempts_total counter\n",
           "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"unschedulable\"} 1\n",
           "# TYPE scheduler_scheduling_attempt_duration_seconds histogram\n",
           "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\","
           "result=\"scheduled\",le=\"16.384\"} 1\n",
           "scheduler_plugin_execution_duration_seconds_bucket{extension_point=\"Filter\","
           "plugin=\"NodeResourcesFit\",status=\"Success\",le=\"3.375000000000001e-05\"} 1\n",
           "scheduler_event_handling_duration_seconds_bucket{event=\"NodeAdd\",le=\"0.2048\"} 1\n",
           "scheduler_pod_scheduling_sli_duration_seconds_bucket{attempts=\"1\",le=\"5242.88\"} 1\n",
           "scheduler_pending_pods{queue=\"active\"} 3\n",
           "leader_election_master_status{name=\"ksched\"} 1\n",
           "# TYPE process_cpu_seconds_total counter\n",
           "# TYPE process_resident_memory_bytes gauge\n",
           "# TYPE process_start_time_seconds gauge\n",
           "# TYPE process_open_fds gauge\n",
       }) {
    EXPECT_NE(f.body.find(want), std::string::npos) << "missing: " << want;
  }
  auto promtool = testing::RunPromtool(f.body);
  if (!promtool.available) GTEST_SKIP() << "promtool not installed";
  EXPECT_EQ(promtool.exit_code, 0) << promtool.output;
  EXPECT_EQ(promtool.output, "");
}

TEST_F(EndpointServerTest, HealthEndpointsLikeKube) {
  StartHttp();
  for (const char* path : {"/healthz", "/livez", "/readyz"}) {
    Fetched f = Fetch(base_, path);
    EXPECT_EQ(f.status, 200) << path;
    EXPECT_EQ(f.body, "ok") << path;
    EXPECT_EQ(f.content_type, "text/plain; charset=utf-8");
  }
  Fetched verbose = Fetch(base_, "/readyz?verbose");
  EXPECT_EQ(verbose.body,
            "[+]ping ok\n[+]informer-sync ok\n[+]leader-election ok\nreadyz check passed\n");

  synced_ = false;
  Fetched failing = Fetch(base_, "/readyz");
  EXPECT_EQ(failing.status, 500);
  EXPECT_EQ(failing.body,
            "[+]ping ok\n[-]informer-sync failed: reason withheld\n[+]leader-election ok\n"
            "readyz check failed\n");
  Fetched single = Fetch(base_, "/readyz/informer-sync");
  EXPECT_EQ(single.status, 500);
  EXPECT_EQ(single.body, "internal server error: caches not synced\n");
  Fetched excluded = Fetch(base_, "/readyz?exclude=informer-sync&verbose=1");
  EXPECT_EQ(excluded.status, 200);
  EXPECT_NE(excluded.body.find("[+]informer-sync excluded: ok\n"), std::string::npos);
  EXPECT_EQ(Fetch(base_, "/healthz").status, 200);  // liveness is unaffected
  EXPECT_EQ(Fetch(base_, "/livez/ping").body, "ok");
}

TEST_F(EndpointServerTest, CallbackEndpointsAndErrors) {
  StartHttp();
  Fetched configz = Fetch(base_, "/configz");
  EXPECT_EQ(configz.status, 200);
  EXPECT_EQ(configz.content_type, "application/json");
  EXPECT_EQ(configz.body, R"({"componentconfig":{"kind":"KubeSchedulerConfiguration"}})");
  EXPECT_EQ(Fetch(base_, "/debug/pending").body,
            R"({"pods":[{"name":"p","queue":"unschedulable","attempts":1}]})");
  EXPECT_EQ(Fetch(base_, "/debug/pending").body,
            R"({"pods":[{"name":"p","queue":"unschedulable","attempts":2}]})");

  EXPECT_EQ(Fetch(base_, "/nope").status, 404);
  EXPECT_EQ(Fetch(base_, "/readyz/nope").status, 404);
  EXPECT_EQ(Fetch(base_, "/").status, 404);
  EXPECT_EQ(Fetch(base_, "/metrics", web::http::methods::POST).status, 405);
  EXPECT_EQ(Fetch(base_, "/metrics", web::http::methods::HEAD).status, 200);

  server_->Handle("/debug/throws", [](const HttpRequest&) -> HttpResponse {
    throw std::runtime_error("handler bug");
  });
  EXPECT_EQ(Fetch(base_, "/debug/throws").status, 500);
  // Query parameters reach handlers decoded.
  server_->Handle("/debug/echo", [](const HttpRequest& r) {
    HttpResponse resp;
    resp.body = r.path + "|" + (r.QueryValues("q").empty() ? "" : r.QueryValues("q")[0]);
    return resp;
  });
  EXPECT_EQ(Fetch(base_, "/debug/echo?q=a%20b+c").body, "/debug/echo|a b c");
  EXPECT_EQ(Fetch(base_, "/configz").status, 200);
}

TEST_F(EndpointServerTest, MalformedRequestsDoNotHurtTheServer) {
  StartHttp();
  for (const std::string& raw : {
           std::string("GARBAGE\r\n\r\n"),
           std::string("GET /metrics?x=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
           std::string("GET /%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
           std::string("GET /healthz HTTP/1.1\r\nContent-Length: -5\r\nConnection: close\r\n\r\n"),
           std::string(10000, 'A') + "\r\n\r\n",
           std::string("\0\1\2\3\r\n\r\n", 8),
       }) {
    int fd = Connect(http_port_);
    ASSERT_GE(fd, 0);
    ssize_t sent = send(fd, raw.data(), raw.size(), MSG_NOSIGNAL);
    EXPECT_GT(sent, 0);
    shutdown(fd, SHUT_WR);
    char buf[1024];
    while (recv(fd, buf, sizeof(buf), 0) > 0) {
    }
    close(fd);
  }
  // A connection that closes mid-request, and one that sends a header and
  // then nothing: the server must neither block nor leak into other
  // requests.
  int idle = Connect(http_port_);
  ASSERT_GE(idle, 0);
  send(idle, "GET /healthz HTTP/1.1\r\n", 24, MSG_NOSIGNAL);
  int fd = Connect(http_port_);
  ASSERT_GE(fd, 0);
  send(fd, "GET /metr", 9, MSG_NOSIGNAL);
  close(fd);

  Fetched f = Fetch(base_, "/healthz");
  EXPECT_EQ(f.status, 200);
  EXPECT_EQ(f.body, "ok");
  close(idle);
}

TEST(EndpointServerBindTest, EmptyBindAddressMeansAllInterfaces) {
  EndpointServerOptions o;
  o.bind_address = "";
  o.secure_port = FreePort();
  EndpointServer server(o);
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(server.ListeningUris(),
            (std::vector<std::string>{"https://0.0.0.0:" + std::to_string(o.secure_port) + "/"}));
  EXPECT_EQ(Fetch("https://127.0.0.1:" + std::to_string(o.secure_port), "/livez").body, "ok");
}

TEST(EndpointServerBindTest, PlainHttpOnlyOnLoopback) {
  for (const char* host : {"0.0.0.0", "::", "8.8.8.8"}) {
    EndpointServerOptions o;
    o.secure_port = 0;
    o.http_port = FreePort();
    o.http_bind_address = host;
    EndpointServer server(o);
    util::Status st = server.Start();
    EXPECT_EQ(st.code(), util::StatusCode::kInvalidArgument) << host;
    EXPECT_NE(st.message().find("not a loopback address"), std::string::npos) << st.ToString();
    EXPECT_TRUE(server.ListeningUris().empty());
  }
  for (const char* host : {"127.0.0.1", "localhost"}) {
    EndpointServerOptions o;
    o.secure_port = 0;
    o.http_port = FreePort();
    o.http_bind_address = host;
    EndpointServer server(o);
    util::Status st = server.Start();
    ASSERT_TRUE(st.ok()) << host << ": " << st.ToString();
    EXPECT_EQ(Fetch("http://127.0.0.1:" + std::to_string(o.http_port), "/livez").body, "ok");
  }
}

TEST_F(EndpointServerTest, ParseTargetDecodesAndRejectsBadEscapes) {
  auto r = EndpointServer::ParseTarget("GET", "/readyz?verbose&exclude=a%2Cb&exclude=c#frag");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->path, "/readyz");
  EXPECT_TRUE(r->HasQuery("verbose"));
  EXPECT_EQ(r->QueryValues("exclude"), (std::vector<std::string>{"a,b", "c"}));
  EXPECT_FALSE(EndpointServer::ParseTarget("GET", "/x?y=%4").ok());
  EXPECT_FALSE(EndpointServer::ParseTarget("GET", "/%G0").ok());
  auto empty = EndpointServer::ParseTarget("GET", "");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->path, "/");
}

TEST_F(EndpointServerTest, HttpsWithSelfSignedCertificate) {
  const int secure = FreePort();
  EndpointServerOptions o;
  o.secure_port = secure;
  o.http_port = 0;
  o.extra_sans = {"ksched.kube-system.svc"};
  StartServer(o);
  EXPECT_EQ(server_->ListeningUris(),
            (std::vector<std::string>{"https://127.0.0.1:" + std::to_string(secure) + "/"}));

  const std::string base = "https://127.0.0.1:" + std::to_string(secure);
  Fetched f = Fetch(base, "/healthz");
  EXPECT_EQ(f.status, 200);
  EXPECT_EQ(f.body, "ok");
  Fetched m = Fetch(base, "/metrics");
  EXPECT_NE(m.body.find("scheduler_pending_pods{queue=\"active\"} 0\n"), std::string::npos);

  auto served = server_->ServingCredentials();
  ASSERT_TRUE(served);
  TlsProbe probe = ProbeTls(secure, "localhost", served->certificate.get());
  ASSERT_TRUE(probe.peer);
  EXPECT_EQ(X509_cmp(probe.peer.get(), served->certificate.get()), 0);
  EXPECT_EQ(probe.verify_result, X509_V_OK)
      << X509_verify_cert_error_string(probe.verify_result);
  EXPECT_NE(probe.response.find("HTTP/1.1 200"), std::string::npos) << probe.response;
  auto sans = SubjectAltNames(probe.peer.get());
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  for (const std::string& want : {std::string("DNS:localhost"), std::string("IP:127.0.0.1"),
                                 std::string("IP:::1"), "DNS:" + std::string(host),
                                 std::string("DNS:ksched.kube-system.svc")}) {
    EXPECT_NE(std::find(sans.begin(), sans.end(), want), sans.end()) << want;
  }
  EXPECT_EQ(X509_check_ip_asc(probe.peer.get(), "127.0.0.1", 0), 1);
  // A name the certificate was not made for does not verify.
  TlsProbe wrong = ProbeTls(secure, "evil.example", served->certificate.get());
  EXPECT_EQ(wrong.verify_result, X509_V_ERR_HOSTNAME_MISMATCH);
  // A client that does not trust it sees a self-signed certificate.
  TlsProbe untrusted = ProbeTls(secure, "localhost", nullptr);
  EXPECT_NE(untrusted.verify_result, X509_V_OK);
}

TEST_F(EndpointServerTest, TlsMinVersionAndCipherSuites) {
  const int secure = FreePort();
  EndpointServerOptions o;
  o.secure_port = secure;
  o.http_port = 0;
  o.tls_min_version = TLS1_3_VERSION;  // --tls-min-version=VersionTLS13
  StartServer(o);
  EXPECT_TRUE(Handshakes(secure, TLS1_3_VERSION));
  EXPECT_FALSE(Handshakes(secure, TLS1_2_VERSION));
}

TEST_F(EndpointServerTest, TlsCipherSuitesRestrictTls12) {
  const int secure = FreePort();
  EndpointServerOptions o;
  o.secure_port = secure;
  o.http_port = 0;
  // The self-signed key is ECDSA: only ECDHE-ECDSA suites can be agreed.
  o.tls12_cipher_list = "ECDHE-ECDSA-AES128-GCM-SHA256";
  StartServer(o);
  EXPECT_TRUE(Handshakes(secure, TLS1_2_VERSION, "ECDHE-ECDSA-AES128-GCM-SHA256"));
  EXPECT_FALSE(Handshakes(secure, TLS1_2_VERSION, "ECDHE-ECDSA-AES256-GCM-SHA384"));
  // TLS 1.3's suites are not restricted (as in Go).
  EXPECT_TRUE(Handshakes(secure, TLS1_3_VERSION));
}

TEST_F(EndpointServerTest, DisabledMetricsAreNotScraped) {
  EndpointServerOptions o;
  o.secure_port = 0;
  o.http_port = FreePort();
  o.disabled_metrics = {"scheduler_pending_pods"};
  StartServer(o);
  testing::ObserveEveryFamily(*metrics_, *leader_election_);
  Fetched m = Fetch("http://127.0.0.1:" + std::to_string(o.http_port), "/metrics");
  EXPECT_EQ(m.body.find("scheduler_pending_pods"), std::string::npos);
  EXPECT_NE(m.body.find("scheduler_schedule_attempts_total"), std::string::npos) << m.body.substr(0, 400);
}

TEST_F(EndpointServerTest, CertDirKeepsTheSelfSignedPairAcrossStarts) {
  char dir[] = "/tmp/ksched-cert-dir-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string crt = std::string(dir) + "/kube-scheduler.crt";
  const std::string key = std::string(dir) + "/kube-scheduler.key";
  EndpointServerOptions o;
  o.secure_port = FreePort();
  o.http_port = 0;
  o.cert_dir = dir;
  StartServer(o);
  auto first = server_->ServingCredentials();
  ASSERT_TRUE(first);
  struct stat st {};
  ASSERT_EQ(stat(key.c_str(), &st), 0) << "the key was not written";
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat(crt.c_str(), &st), 0);
  server_.reset();

  o.secure_port = FreePort();
  StartServer(o);
  auto second = server_->ServingCredentials();
  ASSERT_TRUE(second);
  EXPECT_EQ(X509_cmp(first->certificate.get(), second->certificate.get()), 0) << "a new pair instead of the kept one";
  TlsProbe probe = ProbeTls(o.secure_port, "localhost", second->certificate.get());
  EXPECT_EQ(probe.verify_result, X509_V_OK);
  server_.reset();
  std::remove(crt.c_str());
  std::remove(key.c_str());
  rmdir(dir);
}

TEST_F(EndpointServerTest, HttpsWithGivenCertificateFilesAndPlainHttpBeside) {
  if (std::system("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl CLI";
  char tmpl[] = "/tmp/ksched-https-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const std::string cert = (dir / "tls.crt").string(), key = (dir / "tls.key").string();
  ASSERT_EQ(std::system(("openssl req -x509 -newkey rsa:2048 -nodes -keyout " + key + " -out " +
                         cert + " -days 1 -subj /CN=ksched-given" +
                         " -addext subjectAltName=DNS:localhost,IP:127.0.0.1 >/dev/null 2>&1")
                            .c_str()),
            0);
  const int secure = FreePort();
  EndpointServerOptions o;
  o.secure_port = secure;
  o.http_port = FreePort();
  o.tls_cert_file = cert;
  o.tls_private_key_file = key;
  StartServer(o);

  auto given = LoadTlsCredentials(cert, key);
  ASSERT_TRUE(given.ok());
  TlsProbe probe = ProbeTls(secure, "localhost", given->certificate.get());
  ASSERT_TRUE(probe.peer);
  EXPECT_EQ(X509_cmp(probe.peer.get(), given->certificate.get()), 0);
  EXPECT_EQ(probe.verify_result, X509_V_OK);
  char cn[64] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(probe.peer.get()), NID_commonName, cn,
                            sizeof(cn));
  EXPECT_STREQ(cn, "ksched-given");
  EXPECT_EQ(Fetch("http://127.0.0.1:" + std::to_string(o.http_port), "/readyz").body, "ok");
  EXPECT_EQ(server_->ListeningUris().size(), 2u);
  server_->Stop();
  server_->Stop();  // idempotent
  EXPECT_TRUE(server_->ListeningUris().empty());
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST_F(EndpointServerTest, StartFailsCleanly) {
  // Mismatched flags.
  EndpointServerOptions half;
  half.bind_address = "127.0.0.1";
  half.secure_port = FreePort();
  half.tls_cert_file = "/nonexistent/tls.crt";
  EndpointServer a(half);
  auto st = a.Start();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--tls-private-key-file"), std::string::npos) << st.ToString();

  half.tls_private_key_file = "/nonexistent/tls.key";
  EndpointServer b(half);
  st = b.Start();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("/nonexistent/tls.crt"), std::string::npos) << st.ToString();

  // A port already taken (by another process, typically): a plain socket
  // holds it here.
  int holder = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ASSERT_EQ(bind(holder, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(holder, 1), 0);
  socklen_t len = sizeof(addr);
  getsockname(holder, reinterpret_cast<sockaddr*>(&addr), &len);
  const int taken = ntohs(addr.sin_port);
  EndpointServerOptions clash;
  clash.bind_address = "127.0.0.1";
  clash.secure_port = FreePort();
  clash.http_port = taken;
  EndpointServer c(clash);
  st = c.Start();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("127.0.0.1:" + std::to_string(taken)), std::string::npos)
      << st.ToString();
  EXPECT_TRUE(c.ListeningUris().empty());
  close(holder);
  // The HTTPS listener opened before the failure was closed again: its
  // port can be served by a new server.
  EndpointServerOptions again = clash;
  again.http_port = 0;
  EndpointServer d(again);
  ASSERT_TRUE(d.Start().ok());
  EXPECT_EQ(Fetch("https://127.0.0.1:" + std::to_string(clash.secure_port), "/healthz").body, "ok");
  d.Stop();

  StartHttp();
  // Starting twice is refused.
  EXPECT_FALSE(server_->Start().ok());
}

}  // namespace
}  // namespace ksched::metrics
