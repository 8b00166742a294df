// VolumeBindingArgs (kubescheduler.config.k8s.io/v1) and its codec:
// bindTimeoutSeconds defaults to 600 and must not be negative. `shape`
// (storage capacity scoring) follows the StorageCapacityScoring gate of
// config::CurrentConfigGates(), as kube's follows its process-wide gate: on,
// an unset or empty shape defaults to {0%: 10, 100%: 0} and the shape is
// validated as NodeResourcesFit's; off, any shape, even an empty one, is
// rejected.
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

// The shape StorageCapacityScoring defaults to: an empty segment scores 10,
// a full one 0.
std::vector<config::UtilizationShapePoint> DefaultStorageCapacityShape();

config::ErrorList ValidateVolumeBindingArgs(const std::string& path, const VolumeBindingArgs& a);

}  // namespace ksched::scheduler::plugins::volumebinding
