// YAML to JSON, the way kubectl and sigs.k8s.io/yaml read manifests.
//
// Plain scalars are typed by the YAML 1.2 core schema plus the YAML 1.1
// booleans Kubernetes still accepts (true/false/yes/no/on/off in their usual
// casings, and y/Y/n/N as go-yaml v2 has them, become booleans only when
// unquoted); quoted scalars stay strings;
// `~`, `null` and empty values become null. Mapping keys are strings.
// Anchors and aliases are resolved by yaml-cpp.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::api {

// Converts a single YAML document. Errors carry line and column.
util::StatusOr<nlohmann::json> YamlToJson(std::string_view yaml);

// Converts a multi-document stream ("---" separated); empty documents are
// skipped, as kubectl does.
util::StatusOr<std::vector<nlohmann::json>> YamlDocumentsToJson(std::string_view yaml);

}  // namespace ksched::api
