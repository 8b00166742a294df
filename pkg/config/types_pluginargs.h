// Typed arguments of the in-tree plugins that take arguments
// (kubescheduler.config.k8s.io/v1 `<PluginName>Args`).
//
// Fields mirror the v1 API; `std::optional` marks a v1 pointer field whose
// "unset" differs from its zero value. After SetDefaults (defaults.h) every
// optional that has a default is engaged, so plugins may read them with `*`.
// Plugins find their args with GetPluginArgs<T>(profile, name) (types.h).
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pkg/api/types.h"

namespace ksched::config {

struct DefaultPreemptionArgs {
  std::optional<int32_t> min_candidate_nodes_percentage;  // default 10, in [0, 100]
  std::optional<int32_t> min_candidate_nodes_absolute;    // default 100, >= 0
};

struct InterPodAffinityArgs {
  std::optional<int32_t> hard_pod_affinity_weight;  // default 1, in [0, 100]
  bool ignore_preferred_terms_of_existing_pods = false;
};

inline constexpr char kLeastAllocated[] = "LeastAllocated";
inline constexpr char kMostAllocated[] = "MostAllocated";
inline constexpr char kRequestedToCapacityRatio[] = "RequestedToCapacityRatio";

struct ResourceSpec {
  std::string name;
  int64_t weight = 0;  // 0 is defaulted to 1
};

struct UtilizationShapePoint {
  int32_t utilization = 0;  // [0, 100]
  int32_t score = 0;        // [0, 10]
};

struct RequestedToCapacityRatioParam {
  std::vector<UtilizationShapePoint> shape;
};

struct ScoringStrategy {
  std::string type;  // kLeastAllocated, kMostAllocated or kRequestedToCapacityRatio
  std::vector<ResourceSpec> resources;
  std::optional<RequestedToCapacityRatioParam> requested_to_capacity_ratio;
};

struct NodeResourcesFitArgs {
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
  // Default: LeastAllocated with cpu=1, memory=1.
  std::optional<ScoringStrategy> scoring_strategy;
};

struct NodeResourcesBalancedAllocationArgs {
  std::vector<ResourceSpec> resources;  // default cpu=1, memory=1
};

inline constexpr char kSystemDefaulting[] = "System";
inline constexpr char kListDefaulting[] = "List";

struct PodTopologySpreadArgs {
  // Only with defaulting_type "List"; constraints carry no labelSelector.
  std::vector<api::TopologySpreadConstraint> default_constraints;
  std::string defaulting_type;  // default "System"
};

// The constraints kube-scheduler applies under defaultingType "System":
// hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway.
std::vector<api::TopologySpreadConstraint> SystemDefaultTopologySpreadConstraints();

struct NodeAffinityArgs {
  std::optional<api::NodeAffinity> added_affinity;
};

struct VolumeBindingArgs {
  std::optional<int64_t> bind_timeout_seconds;  // default 600, >= 0
  // Capacity scoring (StorageCapacityScoring gate) is not supported, so any
  // shape, even an empty one, is rejected by validation.
  std::optional<std::vector<UtilizationShapePoint>> shape;
};

// Non-empty args given to a plugin that takes none (or whose args type ksched
// does not know); kept as written so validation can reject them precisely.
struct UntypedArgs {
  nlohmann::json raw;
};

// std::monostate: no args (absent, null or `{}`).
using PluginArgs = std::variant<std::monostate, DefaultPreemptionArgs, InterPodAffinityArgs, NodeResourcesFitArgs,
                                NodeResourcesBalancedAllocationArgs, PodTopologySpreadArgs, NodeAffinityArgs,
                                VolumeBindingArgs, UntypedArgs>;

// Plugins with an args type, by plugin name: "DefaultPreemption",
// "InterPodAffinity", "NodeResourcesFit", "NodeResourcesBalancedAllocation",
// "PodTopologySpread", "NodeAffinity", "VolumeBinding".
bool PluginHasArgsType(std::string_view plugin_name);
// The plugin's args with every default applied; monostate for plugins
// without an args type.
PluginArgs DefaultPluginArgs(std::string_view plugin_name);
// "NodeResourcesFitArgs" for a typed alternative, "" for monostate/untyped.
std::string_view ArgsKind(const PluginArgs& args);

}  // namespace ksched::config
