// Command-line flags of ksched (the subset of kube-scheduler's that this
// release serves):
//
//   --config FILE          KubeSchedulerConfiguration (default: kube's defaults)
//   --master URL           API server URL; overrides the kubeconfig's server
//   --kubeconfig FILE      kubeconfig (else clientConnection.kubeconfig, the
//                          in-cluster config, $KUBECONFIG, ~/.kube/config)
//   --v N                  log verbosity
//   --secure-port N        HTTPS port of /metrics, /healthz, ... (10259; 0: off)
//   --http-port N          plain HTTP port of the same endpoints (0: off)
//   --bind-address ADDR    address the endpoints listen on (0.0.0.0)
//   --tls-cert-file FILE   serving certificate (default: self-signed)
//   --tls-private-key-file FILE
//   --client-ca-file FILE  CA bundle client certificates are verified against
//   --authentication-kubeconfig FILE, --authorization-kubeconfig FILE
//                          where TokenReviews / SubjectAccessReviews go
//                          (default: the main client connection)
//   --authentication-skip-lookup, --authentication-tolerate-lookup-failure
//                          the kube-system/extension-apiserver-authentication
//                          ConfigMap lookup of the client CA
//   --authentication-token-webhook-cache-ttl D (10s)
//   --authorization-webhook-cache-authorized-ttl D (10s),
//   --authorization-webhook-cache-unauthorized-ttl D (10s)
//   --authorization-always-allow-paths P1,P2 (/healthz,/readyz,/livez)
//   --feature-gates SPEC   "SchedulerQueueingHints=false,..."
//   --leader-elect BOOL    leaderElection.leaderElect
//   --leader-elect-lease-duration D, --leader-elect-renew-deadline D,
//   --leader-elect-retry-period D   Go durations ("15s", "1m30s")
//   --leader-elect-resource-lock leases   (the only lock kube supports)
//   --leader-elect-resource-name NAME, --leader-elect-resource-namespace NS
//                          each --leader-elect* flag given overrides the
//                          configuration file's field, as in kube-scheduler
//   --write-config-to FILE write the effective configuration as YAML and exit
//   --version              print the version and exit
//   --help                 print this text and exit
//
// Flags take "--name=value" or "--name value" (a single leading dash works
// too); boolean flags may omit the value.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::app {

struct Flags {
  std::string config_file;
  std::string master;
  std::string kubeconfig;
  int verbosity = 0;
  int secure_port = 10259;
  int http_port = 0;
  std::string bind_address = "0.0.0.0";
  std::string tls_cert_file;
  std::string tls_private_key_file;
  // Delegated authentication and authorization of the secure port
  // (kube's DelegatingAuthentication/AuthorizationOptions).
  std::string client_ca_file;
  std::string authentication_kubeconfig;
  std::string authorization_kubeconfig;
  bool authentication_skip_lookup = false;
  bool authentication_tolerate_lookup_failure = false;
  util::Duration authentication_token_webhook_cache_ttl = std::chrono::seconds(10);
  util::Duration authorization_webhook_cache_authorized_ttl = std::chrono::seconds(10);
  util::Duration authorization_webhook_cache_unauthorized_ttl = std::chrono::seconds(10);
  std::vector<std::string> authorization_always_allow_paths = {"/healthz", "/readyz", "/livez"};
  std::string feature_gates;
  std::string write_config_to;
  // Leader election: set only when the flag was given.
  std::optional<bool> leader_elect;
  std::optional<util::Duration> leader_elect_lease_duration;
  std::optional<util::Duration> leader_elect_renew_deadline;
  std::optional<util::Duration> leader_elect_retry_period;
  std::optional<std::string> leader_elect_resource_lock;
  std::optional<std::string> leader_elect_resource_name;
  std::optional<std::string> leader_elect_resource_namespace;
  bool version = false;
  bool help = false;
};

// Parses argv[1..]. Errors name the flag and the bad value.
util::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args);

std::string FlagsUsage();

// Overwrites the fields of `le` whose --leader-elect* flag was given (kube
// applies them over the file too). Validate the configuration afterwards.
void ApplyLeaderElectionFlags(const Flags& flags, config::LeaderElectionConfiguration* le);

}  // namespace ksched::app
