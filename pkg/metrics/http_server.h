// EndpointServer: ksched's HTTP(S) endpoints, on pkg/net (EndpointListener).
//
//   /metrics                 Prometheus text format 0.0.4 of every added
//                            collectable (SchedulerMetrics::Registry(),
//                            ProcessCollector, other packages' registries)
//   /healthz /livez /readyz  kube-style health checks (see HealthChecks),
//   and /<endpoint>/<check>  each list starting with "ping"
//   anything Handle()d       e.g. /configz, /debug/pending: callbacks the
//                            daemon supplies, so this package knows no
//                            scheduler types
//
// Two listeners serve the same endpoints:
//   - HTTPS on options.bind_address:secure_port (kube-scheduler's 10259; 0
//     disables) with the certificate/key files given, or else a
//     self-signed certificate generated in memory at Start() for
//     localhost, 127.0.0.1, ::1, the host name, the bind address and
//     options.extra_sans. Client certificates are requested when a client
//     CA or a front-proxy CA is given, and verified per request against
//     them. The certificate files and both CA files are re-read when they
//     change and every options.reload_interval, and swapped in when they changed and are
//     good (see dynamic_serving.h): new connections get the new
//     certificate, open ones are untouched. With SetAuth(), every request
//     is authenticated (front proxy's headers, see
//     pkg/auth/request_header.h; client certificate; bearer token) and
//     authorized as kube-scheduler's delegated authn/authz does (see
//     pkg/auth/delegating_auth.h) before it is routed: 401 / 403 / 500
//     answer without running any handler;
//   - plain HTTP on options.http_bind_address:http_port (0 disables), for
//     local development: never authenticated, so Start() refuses an
//     address that is not loopback.
// Both bound what a client can hold (options.limits, see
// endpoint_listener.h).
//
// Only GET and HEAD are served (405 otherwise); unknown paths get 404; a
// handler that throws gets a 500 and is logged; malformed requests are
// answered 400/431/413 and their connection closed.
//
// Thread-safety: Handle(), AddCollectable() and the HealthChecks may be
// used before or after Start(), from any thread. Handlers run concurrently
// on the connections' threads, outside any lock of this class; they must be
// thread-safe and should be quick. SetAuth() before Start(). Start() and
// Stop() are not meant to race with each other. The destructor stops the
// server.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <prometheus/collectable.h>

#include "pkg/auth/delegating_auth.h"
#include "pkg/auth/request_header.h"
#include "pkg/metrics/dynamic_serving.h"
#include "pkg/metrics/endpoint_listener.h"
#include "pkg/metrics/health_checks.h"
#include "pkg/metrics/http_types.h"
#include "pkg/metrics/tls_credentials.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::metrics {

struct EndpointServerOptions {
  // --bind-address: an IP address ("0.0.0.0": all interfaces; "" means
  // the same; "::" IPv6 ones) or a host name.
  std::string bind_address = "0.0.0.0";
  int secure_port = 10259;  // --secure-port; 0 = no HTTPS listener
  int http_port = 0;        // --http-port; 0 = no plain HTTP listener
  // The plain port's address: must be loopback (127.0.0.0/8, ::1,
  // localhost).
  std::string http_bind_address = "127.0.0.1";
  std::string tls_cert_file;         // --tls-cert-file
  std::string tls_private_key_file;  // --tls-private-key-file
  // --cert-dir: without the two files above, the serving pair is
  // kube-scheduler.crt/.key there, made self-signed and written on the first
  // start, read on the next ones (kube-scheduler's file names).
  std::string cert_dir;
  // --tls-min-version as an OpenSSL protocol version (TLS1_2_VERSION, ...).
  int tls_min_version = 0x0303;
  // --tls-cipher-suites as an OpenSSL cipher list for TLS 1.2 and older
  // (TLS 1.3's suites are not configurable, as in Go); empty: OpenSSL's
  // defaults.
  std::string tls12_cipher_list;
  // OpenSSL key exchange groups, ':'-separated ("" = the library's).
  std::string tls_groups_list;
  // --permit-port-sharing: SO_REUSEPORT on both listeners.
  bool permit_port_sharing = false;
  // --disabled-metrics: families /metrics leaves out.
  std::set<std::string> disabled_metrics;
  // Further DNS names or IP literals for the self-signed certificate.
  std::vector<std::string> extra_sans;
  // CA bundle (PEM) that client certificates must chain to: the file
  // (--client-ca-file) and/or PEM text (the cluster's
  // extension-apiserver-authentication ConfigMap). Neither: no client
  // certificates.
  std::string client_ca_file;
  std::string client_ca_pem;
  // Front-proxy authentication (--requestheader-*): a client certificate
  // that verifies against this bundle (file and/or PEM text) lets the
  // request name its user in headers. Neither: off.
  std::string requestheader_client_ca_file;
  std::string requestheader_client_ca_pem;
  auth::RequestHeaderOptions requestheader;
  // How often the certificate and CA files are re-read (kube: 1 min), and
  // whether a change inotify reports is also re-read at once (kube's
  // fsnotify).
  util::Duration reload_interval = std::chrono::minutes(1);
  bool reload_on_file_events = true;
  ConnectionLimits limits;
};

class EndpointServer {
 public:
  // `clock` dates the self-signed certificate.
  explicit EndpointServer(EndpointServerOptions options,
                          util::Clock& clock = util::RealClock::Get());
  ~EndpointServer();

  EndpointServer(const EndpointServer&) = delete;
  EndpointServer& operator=(const EndpointServer&) = delete;

  // Adds a source of metrics for /metrics. Families with the same name in
  // several collectables are merged (see exposition.h).
  void AddCollectable(std::shared_ptr<prometheus::Collectable> collectable);

  // Authenticates and authorizes every request on the secure port; null
  // (the default) serves anyone (tests). Call before Start(); `auth` must
  // outlive the server.
  void SetAuth(auth::DelegatingAuth* auth) { auth_ = auth; }
  // More client CA certificates (PEM), besides options.client_ca_pem: the
  // cluster's, looked up at start-up. Call before Start().
  void SetClientCaPem(std::string pem) { extra_client_ca_pem_ = std::move(pem); }
  // Front-proxy settings from the cluster (the ConfigMap), replacing
  // options.requestheader and adding `ca_pem` to its CA. Before Start().
  void SetRequestHeaderFromCluster(std::string ca_pem, auth::RequestHeaderOptions options) {
    cluster_requestheader_ca_pem_ = std::move(ca_pem);
    cluster_requestheader_ = std::move(options);
  }

  HealthChecks& Healthz() { return healthz_; }
  HealthChecks& Livez() { return livez_; }
  HealthChecks& Readyz() { return readyz_; }

  // Serves `path` (exact match, e.g. "/debug/pending") with `handler`,
  // replacing any earlier handler for it, including the built-in ones.
  void Handle(std::string path, HttpHandler handler);
  // Shorthand: 200 with `json()` as application/json.
  void HandleJson(std::string path, std::function<std::string()> json);

  // Loads or generates the TLS credentials and opens the enabled listeners.
  // Fails (and opens nothing) on bad TLS files or a port that cannot be
  // bound; the message names the flag or the address.
  util::Status Start();
  // Closes the listeners, waiting for requests in progress. Idempotent.
  void Stop();

  // The certificate the secure port serves now (after a successful Start).
  std::optional<TlsCredentials> ServingCredentials() const;
  // What the secure port serves and trusts, reloaded from the files (null
  // before Start()); tests drive its checks.
  DynamicServingContent* ServingContent() { return content_.get(); }
  // "https://0.0.0.0:10259/" and/or "http://...", for the start-up log.
  std::vector<std::string> ListeningUris() const;
  // The bound ports (useful with port 0 in tests); 0 when not listening.
  uint16_t SecurePort() const;
  uint16_t HttpPort() const;
  // Open connections on both listeners (tests).
  size_t OpenConnections() const;

  // Routes one request as the listeners do, without authentication;
  // exceptions become a 500.
  HttpResponse Serve(const HttpRequest& request) const;
  // What the secure port does: authentication and authorization (with
  // SetAuth()), then Serve().
  HttpResponse ServeSecure(const HttpRequest& request, const RequestContext& context) const;

  // Parses a raw request target ("/readyz?verbose&exclude=a%20b") into
  // path and decoded query (ParseRequestTarget).
  static util::StatusOr<HttpRequest> ParseTarget(std::string method, std::string_view target) {
    return ParseRequestTarget(std::move(method), target);
  }

 private:
  // Without --tls-cert-file: the --cert-dir pair or a self-signed one.
  util::StatusOr<TlsCredentials> ServingTlsCredentials() const;
  HttpResponse Route(const HttpRequest& request) const;
  HttpResponse ServeMetrics() const;
  std::vector<std::string> SubjectAltNameCandidates() const;

  const EndpointServerOptions options_;
  util::Clock& clock_;
  HealthChecks healthz_{"healthz"};
  HealthChecks livez_{"livez"};
  HealthChecks readyz_{"readyz"};

  mutable std::shared_mutex mu_;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::map<std::string, HttpHandler, std::less<>> handlers_;

  auth::DelegatingAuth* auth_ = nullptr;
  std::string extra_client_ca_pem_;
  std::string cluster_requestheader_ca_pem_;
  std::optional<auth::RequestHeaderOptions> cluster_requestheader_;
  // Set by Start(): the front proxy's header rules (when a front-proxy CA
  // is configured) and the reloaded content; both outlive the listeners.
  std::optional<auth::RequestHeaderAuthenticator> request_header_;
  std::unique_ptr<DynamicServingContent> content_;

  mutable std::mutex lifecycle_mu_;
  std::vector<std::string> uris_;
  // Declared last: destroyed (and so closed) before everything they call.
  std::unique_ptr<EndpointListener> secure_;
  std::unique_ptr<EndpointListener> plain_;
};

}  // namespace ksched::metrics
