// EndpointServer: ksched's HTTP(S) endpoints, on cpprestsdk's listener.
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
//   - HTTPS on options.secure_port (kube-scheduler's 10259; 0 disables) with
//     the certificate/key files given, or else a self-signed certificate
//     generated in memory at Start() for localhost, 127.0.0.1, ::1, the
//     host name, the bind address and options.extra_sans;
//   - plain HTTP on options.http_port (0 disables), for local use.
//
// Only GET and HEAD are served (405 otherwise); unknown paths get 404; a
// handler that throws gets a 500 and is logged; malformed requests are
// answered or dropped by the listener and never stop the server.
//
// cpprestsdk keeps one listener registry per process, so two
// EndpointServers in one process must not use the same port.
//
// Thread-safety: Handle(), AddCollectable() and the HealthChecks may be
// used before or after Start(), from any thread. Handlers run concurrently
// on cpprestsdk's thread pool, outside any lock of this class; they must be
// thread-safe and should be quick. Start() and Stop() are not meant to race
// with each other. The destructor stops the server.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <prometheus/collectable.h>

#include "pkg/metrics/health_checks.h"
#include "pkg/metrics/tls_credentials.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::metrics {

struct HttpRequest {
  std::string method;  // "GET", "HEAD", ...
  std::string path;    // decoded, without the query
  // Decoded query parameters in order; a key without '=' has an empty value.
  std::vector<std::pair<std::string, std::string>> query;

  bool HasQuery(std::string_view key) const;
  std::vector<std::string> QueryValues(std::string_view key) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct EndpointServerOptions {
  // --bind-address: an IPv4 address ("0.0.0.0": all interfaces; "" means
  // the same) or a host name. IPv6 literals are rejected by Start(): the
  // cpprestsdk listener cannot bind them.
  std::string bind_address = "0.0.0.0";
  int secure_port = 10259;  // --secure-port; 0 = no HTTPS listener
  int http_port = 0;        // --http-port; 0 = no plain HTTP listener
  std::string tls_cert_file;         // --tls-cert-file
  std::string tls_private_key_file;  // --tls-private-key-file
  // Further DNS names or IP literals for the self-signed certificate.
  std::vector<std::string> extra_sans;
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

  // The certificate the secure port serves (after a successful Start).
  std::optional<TlsCredentials> ServingCredentials() const;
  // "https://0.0.0.0:10259/" and/or "http://...", for the start-up log.
  std::vector<std::string> ListeningUris() const;

  // Routes one request as the listeners do; exceptions become a 500.
  HttpResponse Serve(const HttpRequest& request) const;

  // Parses a raw request target ("/readyz?verbose&exclude=a%20b") into
  // path and decoded query.
  static util::StatusOr<HttpRequest> ParseTarget(std::string method, std::string_view target);

 private:
  class Listeners;

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
  std::optional<TlsCredentials> credentials_;

  mutable std::mutex lifecycle_mu_;
  // Declared last: destroyed (and so closed) before everything it calls.
  std::unique_ptr<Listeners> listeners_;
};

}  // namespace ksched::metrics
