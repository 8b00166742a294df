// Loading a RestConfig from inside a pod (client-go's InClusterConfig).
//
// The server is https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
// (IPv6 hosts are bracketed); the token, CA and namespace come from the
// service-account directory (Environment::service_account_dir, by default
// /var/run/secrets/kubernetes.io/serviceaccount). The token is referenced by
// file so that RestClient re-reads it as the kubelet rotates it.
//
// Thread-safety: free function without shared state.
#pragma once

#include "pkg/client/rest_config.h"
#include "pkg/util/status.h"

namespace ksched::client {

// True when the environment looks like a pod: both service variables set.
bool InClusterEnvironmentPresent(const Environment& env);

util::StatusOr<RestConfig> InClusterConfig(const Environment& env);

}  // namespace ksched::client
