// Decoding of plugin args and of the core/v1 objects they embed
// (TopologySpreadConstraint, LabelSelector, NodeAffinity), strictly and with
// positions, for decode.cc.
//
// Thread-safety: pure functions over the given reader.
#pragma once

#include <string_view>

#include "pkg/config/types_pluginargs.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::config {

// Decodes `args` (which may be null) for plugin `plugin_name`, read from a
// document of `api_version`.
PluginArgs DecodePluginArgs(YamlReader* r, std::string_view plugin_name, std::string_view api_version,
                            const Value& args);

}  // namespace ksched::config
