// Kubernetes name rules used by config validation, with the messages of
// k8s.io/apimachinery/pkg/util/validation (so errors read like kube's).
//
// Each function returns the list of problems (empty when the name is valid).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ksched::config {

// A label key / qualified name: an optional DNS-subdomain prefix and "/",
// then a name of at most 63 alphanumerics, '-', '_' or '.', starting and
// ending alphanumeric.
std::vector<std::string> IsQualifiedName(std::string_view value);

// A label value: empty, or at most 63 characters of the name alphabet.
std::vector<std::string> IsValidLabelValue(std::string_view value);

// A lowercase RFC 1123 subdomain of at most 253 characters.
std::vector<std::string> IsDNS1123Subdomain(std::string_view value);

}  // namespace ksched::config
