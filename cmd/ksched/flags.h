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
//   --feature-gates SPEC   "SchedulerQueueingHints=false,..."
//   --write-config-to FILE write the effective configuration as YAML and exit
//   --version              print the version and exit
//   --help                 print this text and exit
//
// Flags take "--name=value" or "--name value" (a single leading dash works
// too); boolean flags may omit the value.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <string>
#include <vector>

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
  std::string feature_gates;
  std::string write_config_to;
  bool version = false;
  bool help = false;
};

// Parses argv[1..]. Errors name the flag and the bad value.
util::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args);

std::string FlagsUsage();

}  // namespace ksched::app
