// Writing a configuration back out: YAML for --write-config-to, JSON for
// /configz.
//
// The output is kubescheduler.config.k8s.io/v1 whatever version was read,
// fields in the v1 struct order, plugin args with their apiVersion and kind
// (as kube-scheduler writes them), durations as Go duration strings. Empty
// plugin sets and unset optionals are left out. Decoding the YAML (or the
// JSON) again yields the same configuration: DecodeConfig(EncodeYaml(c)) has
// ToJson equal to ToJson(c).
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pkg/config/types.h"

namespace ksched::config {

nlohmann::ordered_json ToJson(const KubeSchedulerConfiguration& c);

std::string EncodeJson(const KubeSchedulerConfiguration& c, int indent = 2);
std::string EncodeYaml(const KubeSchedulerConfiguration& c);

// JSON text (from ToJson or any JSON) as block YAML; strings that would read
// back as another type (numbers, booleans, null) are quoted.
std::string JsonToYaml(const nlohmann::ordered_json& j);

}  // namespace ksched::config
