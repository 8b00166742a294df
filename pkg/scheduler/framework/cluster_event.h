// ClusterEvent: "resource R changed in way A", the unit the scheduling queue
// requeues pods by (kube-scheduler v1.34 semantics).
//
// ActionType is a bitmask. The numeric values match v1.34 but are an
// implementation detail: never persist them (1.35 inserts a bit).
// EventResource is a string because plugins may register dynamic resources
// ("<plural>.<version>.<group>").
//
// Matching (Match) says whether an incoming event concerns a registration:
// the registration is the wildcard, or its resource equals the incoming one
// ("Pod" also covers the internal "AssignedPod" and "UnschedulablePod"), they
// share an action bit, and the incoming mask is not wider than the
// registered one (a generic "Update" only reaches registrations covering all
// of Update). An incoming wildcard matches only a wildcard registration; the
// queue treats incoming wildcards specially.
//
// Thread-safety: value types; the predefined events are immutable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::scheduler::framework {

enum class ActionType : int64_t {
  kNone = 0,
  kAdd = 1 << 0,
  kDelete = 1 << 1,
  // Node-only update facets.
  kUpdateNodeAllocatable = 1 << 2,
  kUpdateNodeLabel = 1 << 3,
  // Taints, and spec.unschedulable becoming false.
  kUpdateNodeTaint = 1 << 4,
  kUpdateNodeCondition = 1 << 5,
  kUpdateNodeAnnotation = 1 << 6,
  // Pod-only update facets.
  kUpdatePodLabel = 1 << 7,
  // Some resource request was removed or reduced.
  kUpdatePodScaleDown = 1 << 8,
  // Tolerations were added (the API only allows additions).
  kUpdatePodToleration = 1 << 9,
  kUpdatePodSchedulingGatesEliminated = 1 << 10,
  kUpdatePodGeneratedResourceClaim = 1 << 11,
  // The node's status.declaredFeatures changed (kube 1.35+).
  kUpdateNodeDeclaredFeature = 1 << 12,
  kAll = (1 << 13) - 1,
  // Every update facet: an incoming Update means "an update none of the
  // specific facets describes".
  kUpdate = kAll & ~(kAdd | kDelete),
};

constexpr ActionType operator|(ActionType a, ActionType b) {
  return static_cast<ActionType>(static_cast<int64_t>(a) | static_cast<int64_t>(b));
}
constexpr ActionType operator&(ActionType a, ActionType b) {
  return static_cast<ActionType>(static_cast<int64_t>(a) & static_cast<int64_t>(b));
}
constexpr ActionType& operator|=(ActionType& a, ActionType b) { return a = a | b; }
// True when the masks share a bit.
constexpr bool Intersects(ActionType a, ActionType b) { return (a & b) != ActionType::kNone; }

// "Add", "UpdateNodeTaint", "All", "Update", ...; "" for other combinations.
std::string_view ActionTypeString(ActionType a);

using EventResource = std::string;

namespace resource {
inline constexpr std::string_view kPod = "Pod";
inline constexpr std::string_view kNode = "Node";
inline constexpr std::string_view kPersistentVolume = "PersistentVolume";
inline constexpr std::string_view kPersistentVolumeClaim = "PersistentVolumeClaim";
inline constexpr std::string_view kCSINode = "storage.k8s.io/CSINode";
inline constexpr std::string_view kCSIDriver = "storage.k8s.io/CSIDriver";
inline constexpr std::string_view kVolumeAttachment = "storage.k8s.io/VolumeAttachment";
inline constexpr std::string_view kCSIStorageCapacity = "storage.k8s.io/CSIStorageCapacity";
inline constexpr std::string_view kStorageClass = "storage.k8s.io/StorageClass";
inline constexpr std::string_view kResourceClaim = "resource.k8s.io/ResourceClaim";
inline constexpr std::string_view kResourceSlice = "resource.k8s.io/ResourceSlice";
inline constexpr std::string_view kDeviceClass = "resource.k8s.io/DeviceClass";
inline constexpr std::string_view kWildCard = "*";
// Incoming-only resources: a pod event is published as one of these and a
// "Pod" registration matches both. Plugins never register them.
inline constexpr std::string_view kAssignedPod = "AssignedPod";
inline constexpr std::string_view kUnschedulablePod = "UnschedulablePod";
}  // namespace resource

struct ClusterEvent {
  EventResource resource;
  ActionType action_type = ActionType::kNone;
  // Overrides Label() for special events such as UnschedulableTimeout.
  std::string custom_label;

  ClusterEvent() = default;
  ClusterEvent(std::string_view r, ActionType a, std::string_view label = {})
      : resource(r), action_type(a), custom_label(label) {}

  // For logs and metric labels: custom_label, else resource + action name
  // ("NodeAdd", "AssignedPodUpdatePodLabel", "storage.k8s.io/CSINodeAdd").
  std::string Label() const;
  bool IsWildCard() const { return resource == resource::kWildCard && action_type == ActionType::kAll; }

  bool operator==(const ClusterEvent& o) const = default;
};

struct ClusterEventHash {
  size_t operator()(const ClusterEvent& e) const;
};

// Whether `incoming` concerns a plugin that registered `registered` (see the
// header comment for the rules).
bool Match(const ClusterEvent& registered, const ClusterEvent& incoming);
// Whether `incoming` matches any of `registered`.
bool MatchAny(const ClusterEvent& incoming, const std::vector<ClusterEvent>& registered);

// Labels of events that are not ClusterEvents but still label metrics.
inline constexpr std::string_view kScheduleAttemptFailure = "ScheduleAttemptFailure";
inline constexpr std::string_view kBackoffComplete = "BackoffComplete";
inline constexpr std::string_view kPopFromBackoffQ = "PopFromBackoffQ";
inline constexpr std::string_view kForceActivate = "ForceActivate";
inline constexpr std::string_view kUnschedulableTimeout = "UnschedulableTimeout";

// Predefined events. Inline variables, so a global initialized from one of
// them in another file (after including this header) sees it initialized.
inline const ClusterEvent kEventAssignedPodAdd{resource::kAssignedPod, ActionType::kAdd};
inline const ClusterEvent kEventAssignedPodUpdate{resource::kAssignedPod, ActionType::kUpdate};
inline const ClusterEvent kEventAssignedPodDelete{resource::kAssignedPod, ActionType::kDelete};
inline const ClusterEvent kEventUnscheduledPodAdd{resource::kUnschedulablePod, ActionType::kAdd};
inline const ClusterEvent kEventUnscheduledPodUpdate{resource::kUnschedulablePod, ActionType::kUpdate};
inline const ClusterEvent kEventUnscheduledPodDelete{resource::kUnschedulablePod, ActionType::kDelete};
// Wildcards with custom labels: they move every pod they reach.
inline const ClusterEvent kEventUnschedulableTimeout{resource::kWildCard, ActionType::kAll, kUnschedulableTimeout};
inline const ClusterEvent kEventForceActivate{resource::kWildCard, ActionType::kAll, kForceActivate};
// {*, All}: label "*All".
inline const ClusterEvent kEventWildCard{resource::kWildCard, ActionType::kAll};

// What a plugin without EnqueueExtensions is assumed to care about:
// {Pod, Node, PV, PVC, CSINode, CSIDriver, CSIStorageCapacity, StorageClass,
// ResourceClaim, DeviceClass} x All.
std::vector<ClusterEvent> UnrollWildCardResource();

// Every label the queue can put on a metric (for pre-creating series).
std::vector<std::string> AllClusterEventLabels();

}  // namespace ksched::scheduler::framework
