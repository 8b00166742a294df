// Choosing and loading the RestConfig from ksched's flags, as kube-scheduler
// does with clientcmd.BuildConfigFromFlags, simplified:
//
//   1. --kubeconfig FILE given: load it (current-context).
//   2. else, --master not given and KUBERNETES_SERVICE_HOST/PORT set:
//      in-cluster configuration.
//   3. else the first existing file among $KUBECONFIG's colon-separated
//      entries, then $HOME/.kube/config (files are not merged).
//   4. else --master alone: that server, no credentials (kube-apiserver-lite
//      on loopback).
//   5. else an error explaining the choices.
//
// In cases 1, 3 and 4 a non-empty --master replaces the server.
//
// Thread-safety: free function without shared state.
#pragma once

#include <string>

#include "pkg/client/rest_config.h"
#include "pkg/util/status.h"

namespace ksched::client {

util::StatusOr<RestConfig> BuildConfigFromFlags(const std::string& master, const std::string& kubeconfig_path,
                                                const Environment& env);

}  // namespace ksched::client
