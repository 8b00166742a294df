// VolumeBindingArgs (kubescheduler.config.k8s.io/v1) and its codec:
// bindTimeoutSeconds defaults to 600 and must not be negative. Capacity
// scoring (the StorageCapacityScoring gate) is not supported, so any
// `shape`, even an empty one, is rejected by validation.
//
// Thread-safety: a plain value; the codec is immutable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/config/args_fields.h"
#include "pkg/config/plugin_args.h"

namespace ksched::scheduler::plugins::volumebinding {

struct VolumeBindingArgs {
  static const config::ArgsCodec& Codec();

  std::optional<int64_t> bind_timeout_seconds;  // default 600, >= 0
  std::optional<std::vector<config::UtilizationShapePoint>> shape;
};

config::ErrorList ValidateVolumeBindingArgs(const std::string& path, const VolumeBindingArgs& a);

}  // namespace ksched::scheduler::plugins::volumebinding
