// RestConfig: everything needed to reach and authenticate to one API server,
// as client-go's rest.Config holds it. Produced by the loaders in
// kubeconfig.h, in_cluster.h and config_loader.h; consumed by RestClient.
//
// A RestConfig is a plain value; it is not read concurrently with writes by
// this package. File-valued fields (ca_file, cert_file, key_file,
// bearer_token_file) are read by RestClient when it is created, except the
// token file, which is re-read every `token_refresh_period` because projected
// service-account tokens rotate.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::client {

struct RestConfig {
  // "https://10.0.0.1:6443" or "http://127.0.0.1:8080". A host without a
  // scheme gets https when any TLS setting is present, http otherwise (as
  // client-go's DefaultServerURL does).
  std::string host;

  // Server verification. `*_data` holds PEM bytes (already base64-decoded);
  // `*_file` a path. When both are set, data wins. A CA, when given, is the
  // only trusted root; without one the system roots are used.
  std::string ca_data;
  std::string ca_file;
  bool insecure_skip_tls_verify = false;
  // Name used for SNI and certificate verification instead of the host.
  std::string tls_server_name;

  // Client certificate authentication (PEM).
  std::string cert_data;
  std::string cert_file;
  std::string key_data;
  std::string key_file;

  // Bearer token authentication. When bearer_token_file is set its content is
  // the token (re-read every token_refresh_period); bearer_token is then only
  // used until the file has been read successfully once.
  std::string bearer_token;
  std::string bearer_token_file;
  util::Duration token_refresh_period = std::chrono::minutes(1);

  // Basic authentication; mutually exclusive with a bearer token.
  std::string username;
  std::string password;

  // Client-side rate limit (clientConnection.qps / burst; kube-scheduler's
  // defaults). qps <= 0 disables the limiter.
  double qps = 50;
  int burst = 100;

  // Per-request timeout; 0 means none. It is an inactivity timeout: every
  // step (connect, TLS handshake, write, each read) gets this long, so a
  // slow but live response is fine. Watches use their own (see
  // RestClient::Watch).
  util::Duration timeout = std::chrono::seconds(30);

  // Empty means DefaultUserAgent().
  std::string user_agent;

  // The default namespace of the loaded context (or the in-cluster
  // namespace file); informational, requests always name their namespace.
  std::string namespace_;

  // Where this config came from, for start-up logs, e.g.
  // "kubeconfig /etc/k/config context kind-kind" or "in-cluster".
  std::string source;
};

// "ksched/<version> (linux/amd64)", the shape of client-go's default.
std::string DefaultUserAgent();

// Checks the combinations client-go rejects: no host, token together with
// basic auth, a certificate without a key (or the reverse), a CA together
// with insecure_skip_tls_verify, a negative burst or timeout.
util::Status ValidateRestConfig(const RestConfig& config);

// Normalizes `host` (adds the scheme, drops a trailing slash) and returns the
// base URL RestClient talks to; kInvalidArgument when it is not an http(s)
// URL.
util::StatusOr<std::string> ServerUrl(const RestConfig& config);

// Process environment seen by the loaders, injectable for tests.
struct Environment {
  // Returns the variable's value, or nullopt when unset.
  std::function<std::optional<std::string>(std::string_view name)> getenv;
  // Where the service-account token, ca.crt and namespace files live.
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";

  // The real process environment.
  static Environment Process();
  std::optional<std::string> Get(std::string_view name) const;
};

}  // namespace ksched::client
