// Decoding a pluginConfig entry's args, strictly and with positions, for
// decode.cc: the codec the plugin registered (known_plugins.h) reads the
// fields; an `apiVersion`/`kind` inside args must name the document's
// version and the codec's kind. Args of a plugin without a codec are kept as
// UntypedArgs for validation to judge.
//
// Thread-safety: pure functions over the given reader.
#pragma once

#include <string_view>

#include "pkg/config/known_plugins.h"
#include "pkg/config/plugin_args.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::config {

// Decodes `args` (which may be null) for plugin `plugin_name`, read from a
// document of `api_version`.
PluginArgs DecodePluginArgs(YamlReader* r, std::string_view plugin_name, std::string_view api_version,
                            const Value& args, const KnownPlugins& known);

}  // namespace ksched::config
