// NodeResourcesFitArgs (kubescheduler.config.k8s.io/v1) and its codec.
//
// Defaults: scoring strategy LeastAllocated over cpu=1, memory=1; a
// resource's weight 0 becomes 1. Validation as kube's
// ValidateNodeResourcesFitArgs. Unlike kube-scheduler, these args are
// validated with the rest of the configuration (kube's validator table
// misspells the key, so it only rejects bad NodeResourcesFit args when the
// plugin is built; the outcome, a failed start, is the same, but ksched
// reports it with the other errors, with file:line:column).
//
// Thread-safety: plain values; the codec is immutable.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pkg/config/args_fields.h"
#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/plugins/noderesources/resource_spec_args.h"

namespace ksched::scheduler::plugins::noderesources {

inline constexpr char kLeastAllocated[] = "LeastAllocated";
inline constexpr char kMostAllocated[] = "MostAllocated";
inline constexpr char kRequestedToCapacityRatio[] = "RequestedToCapacityRatio";

struct RequestedToCapacityRatioParam {
  std::vector<config::UtilizationShapePoint> shape;
};

struct ScoringStrategy {
  std::string type;  // kLeastAllocated, kMostAllocated or kRequestedToCapacityRatio
  std::vector<ResourceSpec> resources;
  std::optional<RequestedToCapacityRatioParam> requested_to_capacity_ratio;
};

struct NodeResourcesFitArgs {
  static const config::ArgsCodec& Codec();

  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
  // Default: LeastAllocated with cpu=1, memory=1.
  std::optional<ScoringStrategy> scoring_strategy;
};

config::ErrorList ValidateNodeResourcesFitArgs(const std::string& path, const NodeResourcesFitArgs& a);

}  // namespace ksched::scheduler::plugins::noderesources
