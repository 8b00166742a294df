// Loading the scheduler configuration: read, decode, default, validate.
//
// LoadConfigFile is the daemon's single entry point for --config and
// --write-config-to. Its error lists every problem of the file, one per line,
// each as "file:line:column: field.path: detail". Warnings (validate.h) are
// logged with spdlog::warn and do not fail the load.
//
// The daemon applies its flags between the steps when it needs to (kube's
// flags override the file): DecodeConfig, then SetDefaults, then the flag
// overrides, then Validate with the DecodeResult's source.
//
// Thread-safety: pure functions (apart from logging).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pkg/config/errors.h"
#include "pkg/config/known_plugins.h"
#include "pkg/config/types.h"
#include "pkg/util/status.h"

namespace ksched::config {

struct LoadResult {
  std::optional<KubeSchedulerConfiguration> config;  // set when errors is empty
  ErrorList errors;
  ErrorList warnings;
};

// Decodes, defaults and validates `text` with the plugins (names, args
// codecs, default set) in `known`; `source_name` names it in errors
// (a file path, or e.g. "configmap.yaml:data[scheduler-config.yaml]").
// Validation errors and warnings come sorted by file position.
LoadResult LoadConfig(std::string_view text, std::string_view source_name, const KnownPlugins& known);

// Reads `path` and loads it. InvalidArgument with every error, one per line;
// NotFound when the file cannot be read.
util::StatusOr<KubeSchedulerConfiguration> LoadConfigFile(const std::string& path, const KnownPlugins& known);

}  // namespace ksched::config
