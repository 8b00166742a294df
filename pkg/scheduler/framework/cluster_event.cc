#include "pkg/scheduler/framework/cluster_event.h"

namespace ksched::scheduler::framework {

std::string_view ActionTypeString(ActionType a) {
  switch (a) {
    case ActionType::kAdd: return "Add";
    case ActionType::kDelete: return "Delete";
    case ActionType::kUpdateNodeAllocatable: return "UpdateNodeAllocatable";
    case ActionType::kUpdateNodeLabel: return "UpdateNodeLabel";
    case ActionType::kUpdateNodeTaint: return "UpdateNodeTaint";
    case ActionType::kUpdateNodeCondition: return "UpdateNodeCondition";
    case ActionType::kUpdateNodeAnnotation: return "UpdateNodeAnnotation";
    case ActionType::kUpdateNodeDeclaredFeature: return "UpdateNodeDeclaredFeature";
    case ActionType::kUpdatePodLabel: return "UpdatePodLabel";
    case ActionType::kUpdatePodScaleDown: return "UpdatePodScaleDown";
    case ActionType::kUpdatePodToleration: return "UpdatePodToleration";
    case ActionType::kUpdatePodSchedulingGatesEliminated: return "UpdatePodSchedulingGatesEliminated";
    case ActionType::kUpdatePodGeneratedResourceClaim: return "UpdatePodGeneratedResourceClaim";
    case ActionType::kAll: return "All";
    case ActionType::kUpdate: return "Update";
    case ActionType::kNone: break;
  }
  return "";
}

std::string ClusterEvent::Label() const {
  if (!custom_label.empty()) return custom_label;
  std::string out = resource;
  out += ActionTypeString(action_type);
  return out;
}

size_t ClusterEventHash::operator()(const ClusterEvent& e) const {
  size_t h = std::hash<std::string>{}(e.resource);
  h ^= std::hash<int64_t>{}(static_cast<int64_t>(e.action_type)) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= std::hash<std::string>{}(e.custom_label) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

namespace {

bool MatchResource(const std::string& registered, const std::string& incoming) {
  if (registered == resource::kWildCard || registered == incoming) return true;
  return registered == resource::kPod &&
         (incoming == resource::kAssignedPod || incoming == resource::kUnschedulablePod);
}

}  // namespace

bool Match(const ClusterEvent& registered, const ClusterEvent& incoming) {
  if (registered.IsWildCard()) return true;
  return MatchResource(registered.resource, incoming.resource) &&
         Intersects(registered.action_type, incoming.action_type) &&
         incoming.action_type <= registered.action_type;
}

bool MatchAny(const ClusterEvent& incoming, const std::vector<ClusterEvent>& registered) {
  for (const ClusterEvent& r : registered) {
    if (Match(r, incoming)) return true;
  }
  return false;
}

std::vector<ClusterEvent> UnrollWildCardResource() {
  std::vector<ClusterEvent> out;
  for (std::string_view r :
       {resource::kPod, resource::kNode, resource::kPersistentVolume, resource::kPersistentVolumeClaim,
        resource::kCSINode, resource::kCSIDriver, resource::kCSIStorageCapacity, resource::kStorageClass,
        resource::kResourceClaim, resource::kDeviceClass}) {
    out.emplace_back(r, ActionType::kAll);
  }
  return out;
}

std::vector<std::string> AllClusterEventLabels() {
  std::vector<std::string> labels{std::string(kUnschedulableTimeout), std::string(kForceActivate)};
  for (std::string_view r :
       {resource::kPod, resource::kAssignedPod, resource::kUnschedulablePod, resource::kNode,
        resource::kPersistentVolume, resource::kPersistentVolumeClaim, resource::kCSINode, resource::kCSIDriver,
        resource::kCSIStorageCapacity, resource::kStorageClass, resource::kVolumeAttachment,
        resource::kResourceClaim, resource::kResourceSlice, resource::kDeviceClass}) {
    for (ActionType a : {ActionType::kAdd, ActionType::kDelete, ActionType::kUpdate}) {
      labels.push_back(ClusterEvent(r, a).Label());
    }
  }
  for (ActionType a : {ActionType::kUpdatePodLabel, ActionType::kUpdatePodScaleDown, ActionType::kUpdatePodToleration,
                       ActionType::kUpdatePodSchedulingGatesEliminated,
                       ActionType::kUpdatePodGeneratedResourceClaim}) {
    labels.push_back(ClusterEvent(resource::kPod, a).Label());
  }
  for (ActionType a : {ActionType::kUpdateNodeAllocatable, ActionType::kUpdateNodeLabel, ActionType::kUpdateNodeTaint,
                       ActionType::kUpdateNodeCondition, ActionType::kUpdateNodeAnnotation,
                       ActionType::kUpdateNodeDeclaredFeature}) {
    labels.push_back(ClusterEvent(resource::kNode, a).Label());
  }
  return labels;
}

}  // namespace ksched::scheduler::framework
