#include "pkg/scheduler/framework/events.h"

#include <map>
#include <string>

#include "pkg/api/resource_helpers.h"

namespace ksched::scheduler::framework {
namespace {

ActionType PodLabelsChange(const api::Pod& n, const api::Pod& o) {
  return n.metadata.labels != o.metadata.labels ? ActionType::kUpdatePodLabel : ActionType::kNone;
}

ActionType PodScaleDown(const api::Pod& n, const api::Pod& o) {
  // A resize shows in the container statuses: they count.
  const api::PodResourcesOptions opts = api::SchedulingPodRequestOptions();
  api::ResourceList new_requests = api::PodRequests(n, opts);
  api::ResourceList old_requests = api::PodRequests(o, opts);
  for (const auto& [name, old_q] : old_requests) {
    auto it = new_requests.find(name);
    if (it == new_requests.end()) return ActionType::kUpdatePodScaleDown;  // request removed
    if (old_q.MilliValue() > it->second.MilliValue()) return ActionType::kUpdatePodScaleDown;
  }
  return ActionType::kNone;
}

ActionType PodSchedulingGatesEliminated(const api::Pod& n, const api::Pod& o) {
  return n.spec.scheduling_gates.empty() && !o.spec.scheduling_gates.empty()
             ? ActionType::kUpdatePodSchedulingGatesEliminated
             : ActionType::kNone;
}

ActionType PodTolerationChange(const api::Pod& n, const api::Pod& o) {
  // The API only lets tolerations be added, so a count change is enough.
  return n.spec.tolerations.size() != o.spec.tolerations.size() ? ActionType::kUpdatePodToleration
                                                                 : ActionType::kNone;
}

// The resource-claim controller writes the names of the claims it generated
// for the pod's templates into the status.
ActionType PodGeneratedResourceClaimChange(const api::Pod& n, const api::Pod& o) {
  const auto& a = n.status.resource_claim_statuses;
  const auto& b = o.status.resource_claim_statuses;
  bool equal = a.size() == b.size();
  for (size_t i = 0; equal && i < a.size(); ++i) {
    equal = a[i].name == b[i].name && a[i].resource_claim_name == b[i].resource_claim_name;
  }
  return equal ? ActionType::kNone : ActionType::kUpdatePodGeneratedResourceClaim;
}

bool TaintsEqual(const std::vector<api::Taint>& a, const std::vector<api::Taint>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].value != b[i].value || a[i].effect != b[i].effect ||
        a[i].time_added != b[i].time_added) {
      return false;
    }
  }
  return true;
}

std::map<std::string, std::string> ConditionStatuses(const std::vector<api::NodeCondition>& conditions) {
  std::map<std::string, std::string> out;
  for (const api::NodeCondition& c : conditions) out[c.type] = c.status;
  return out;
}

}  // namespace

std::vector<ClusterEvent> PodSchedulingPropertiesChange(const api::Pod& new_pod, const api::Pod& old_pod) {
  const std::string_view r = new_pod.spec.node_name.empty() ? resource::kUnschedulablePod : resource::kAssignedPod;
  std::vector<ClusterEvent> events;
  for (ActionType a : {PodLabelsChange(new_pod, old_pod), PodScaleDown(new_pod, old_pod),
                       PodSchedulingGatesEliminated(new_pod, old_pod), PodTolerationChange(new_pod, old_pod),
                       PodGeneratedResourceClaimChange(new_pod, old_pod)}) {
    if (a != ActionType::kNone) events.emplace_back(r, a);
  }
  // Nothing specific: only registrations of the whole Update mask see it.
  if (events.empty()) events.emplace_back(r, ActionType::kUpdate);
  return events;
}

std::vector<ClusterEvent> NodeSchedulingPropertiesChange(const api::Node& new_node, const api::Node& old_node) {
  std::vector<ClusterEvent> events;
  auto add = [&](ActionType a) { events.emplace_back(resource::kNode, a); };
  // Becoming schedulable is reported as a taint change; becoming
  // unschedulable cannot help any pod.
  if (new_node.spec.unschedulable != old_node.spec.unschedulable && !new_node.spec.unschedulable) {
    add(ActionType::kUpdateNodeTaint);
  }
  if (new_node.status.allocatable.value_or_default() != old_node.status.allocatable.value_or_default()) add(ActionType::kUpdateNodeAllocatable);
  if (new_node.metadata.labels != old_node.metadata.labels) add(ActionType::kUpdateNodeLabel);
  if (!TaintsEqual(new_node.spec.taints, old_node.spec.taints)) add(ActionType::kUpdateNodeTaint);
  if (ConditionStatuses(new_node.status.conditions) != ConditionStatuses(old_node.status.conditions)) {
    add(ActionType::kUpdateNodeCondition);
  }
  if (new_node.metadata.annotations != old_node.metadata.annotations) add(ActionType::kUpdateNodeAnnotation);
  // Kept sorted by the kubelet, so a plain comparison is exact.
  if (new_node.status.declared_features != old_node.status.declared_features) {
    add(ActionType::kUpdateNodeDeclaredFeature);
  }
  return events;
}

}  // namespace ksched::scheduler::framework
