// What the kube-system/extension-apiserver-authentication ConfigMap tells
// a delegating component (kube-apiserver writes it from its own flags):
// the client CA bundle ("client-ca-file") and the front-proxy settings
// ("requestheader-client-ca-file", and "requestheader-*-headers",
// "requestheader-extra-headers-prefix", "requestheader-allowed-names" as
// JSON lists of strings in string values).
//
// Thread-safety: a pure function.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "pkg/auth/request_header.h"

namespace ksched::auth {

struct AuthenticationConfigMap {
  std::string client_ca_pem;                // "" when absent
  std::string requestheader_client_ca_pem;  // "" when absent: no front proxy
  // The header names; a list that is absent or not a JSON list of strings
  // is empty (an empty username list authenticates no one).
  RequestHeaderOptions requestheader;
};

// `configmap`: the ConfigMap object as the API server returns it.
AuthenticationConfigMap ParseAuthenticationConfigMap(const nlohmann::json& configmap);

}  // namespace ksched::auth
