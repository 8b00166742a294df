// The command line of kubectl-ksched, the kubectl plugin that asks ksched's
// leader why a pod is pending (`kubectl ksched why POD`) and how its queue
// looks (`kubectl ksched queue`), and simulates where new pods would go
// (`kubectl ksched what-if -f pods.yaml`, whatif.h).
//
// kubectl's connection flags (--kubeconfig, --context, -n/--namespace,
// --token, --insecure-skip-tls-verify, --request-timeout), -o json|text,
// and how to reach the leader: --endpoint URL (direct), else the Lease
// (--lease-namespace, --lease-name) names the leader pod, reached by
// port-forward through the API server (see reach.h).
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::kubectl_ksched {

struct Options {
  std::string command;  // "why", "queue", "what-if"; "" with help
  std::string pod;      // why: NAME or NS/NAME
  bool help = false;
  // Connection (kubectl's names).
  std::string kubeconfig;
  std::string context;
  std::string namespace_;  // "" : the context's, else "default"
  std::string token;
  bool insecure_skip_tls_verify = false;
  int request_timeout_seconds = 30;
  // Output: "text" or "json"; what-if also "html".
  std::string output = "text";
  // what-if.
  std::vector<std::string> files;  // -f/--filename, repeatable
  std::string config_file;         // --config: KubeSchedulerConfiguration
  bool explain = false;
  int64_t chunk_size = 500;  // --chunk-size: list page size (kubectl's flag); 0: unpaginated
  uint64_t seed = 0;         // --seed: reproducible tie-breaks; 0: random
  std::string feature_gates;  // --feature-gates: kube's gates, as ksched's flag takes them
  int emulated_minor = 0;     // --emulated-version 1.NN; 0: the API server's minor
  // Reaching ksched.
  std::string endpoint;     // https://host:port (direct); "" : via the Lease
  std::string endpoint_ca;  // CA file verifying the endpoint's certificate
  std::string lease_namespace = "ksched-system";
  std::string lease_name = "ksched";
  int port = 10259;
};

// Parses argv[1..]. kInvalidArgument names the bad flag or argument.
util::StatusOr<Options> ParseArgs(const std::vector<std::string>& args);

// --help text for `command` ("" : the plugin's own).
std::string Usage(const std::string& command);

}  // namespace ksched::kubectl_ksched
