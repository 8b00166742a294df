#include "pkg/scheduler/plugins/volumebinding/volume_binding_args.h"

#include "pkg/config/config_gates.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::scheduler::plugins::volumebinding {
namespace {

using config::Value;

std::string Int(int64_t v) { return std::to_string(v); }

void Decode(config::YamlReader* r, config::MapReader& m, std::string_view, VolumeBindingArgs* a) {
  config::ReadField(m, "bindTimeoutSeconds", [&](const Value& x) { a->bind_timeout_seconds = r->Int64(x); });
  // `shape: []` counts as set (a non-nil empty slice in Go); null does not.
  config::ReadField(m, "shape", [&](const Value& x) { a->shape = config::DecodeShape(r, x); });
}

void SetDefaults(VolumeBindingArgs* a) {
  if (!a->bind_timeout_seconds) a->bind_timeout_seconds = 600;
  // An empty shape counts as unset here, as kube's len(Shape) == 0 does.
  if ((!a->shape || a->shape->empty()) && config::CurrentConfigGates().storage_capacity_scoring) {
    a->shape = DefaultStorageCapacityShape();
  }
}

void Encode(const VolumeBindingArgs& a, nlohmann::ordered_json* out) {
  if (a.bind_timeout_seconds) (*out)["bindTimeoutSeconds"] = *a.bind_timeout_seconds;
  if (a.shape) (*out)["shape"] = config::ShapeJson(*a.shape);
}

}  // namespace

std::vector<config::UtilizationShapePoint> DefaultStorageCapacityShape() {
  return {{0, config::kMaxCustomPriorityScore}, {100, 0}};
}

config::ErrorList ValidateVolumeBindingArgs(const std::string& path, const VolumeBindingArgs& a) {
  config::ErrorList errs;
  int64_t timeout = a.bind_timeout_seconds.value_or(0);
  if (timeout < 0) {
    errs.push_back(config::Invalid(config::ChildPath(path, "bindTimeoutSeconds"), Int(timeout),
                                   "invalid BindTimeoutSeconds, should not be a negative value"));
  }
  if (config::CurrentConfigGates().storage_capacity_scoring) {
    config::ValidateShape(config::ChildPath(path, "shape"), a.shape.value_or(std::vector<config::UtilizationShapePoint>{}),
                          &errs);
  } else if (a.shape) {
    std::string points = "[";
    for (size_t i = 0; i < a.shape->size(); ++i) {
      if (i > 0) points += ", ";
      points += "{utilization: " + Int((*a.shape)[i].utilization) + ", score: " + Int((*a.shape)[i].score) + "}";
    }
    points += "]";
    errs.push_back(config::Invalid(config::ChildPath(path, "shape"), points,
                                   "unexpected field `shape`, remove it or turn on the feature gate "
                                   "StorageCapacityScoring"));
  }
  return errs;
}

const config::ArgsCodec& VolumeBindingArgs::Codec() {
  static const auto* const kCodec = new config::TypedArgsCodec<VolumeBindingArgs>(
      {"VolumeBindingArgs", &Decode, &SetDefaults, &ValidateVolumeBindingArgs, &Encode});
  return *kCodec;
}

}  // namespace ksched::scheduler::plugins::volumebinding
