#include "pkg/scheduler/eventhandlers.h"

#include <chrono>
#include <utility>

#include <spdlog/spdlog.h>

#include "pkg/api/device_taints.h"
#include "pkg/api/node_selector.h"
#include "pkg/api/pod_helpers.h"
#include "pkg/api/resource_helpers.h"
#include "pkg/api/taints.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/framework/events.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/framework/resource.h"
#include "pkg/scheduler/queue/queueing_hint_map.h"
#include "pkg/util/seconds.h"

namespace ksched::scheduler {

namespace {

// scheduler-plugins' PodGroups, as Coscheduling registers them
// ("<plural>.<version>.<group>").
constexpr std::string_view kPodGroupResource = "podgroups.v1alpha1.scheduling.x-k8s.io";

using framework::ActionType;
using framework::ClusterEvent;

bool Assigned(const api::Pod& pod) { return !pod.spec.node_name.empty(); }

// Pods of priority <= `priority`: those that treated a nominated pod of
// that priority as already running.
queue::PreEnqueueCheck LowerOrEqualPriority(int32_t priority) {
  return [priority](const api::Pod& p) { return framework::PodPriority(p) <= priority; };
}

// kube's AdmissionCheck (first failure only) plus the taint check of
// preCheckForNode.
bool FitsNode(const api::Pod& pod, const framework::NodeInfo& ni) {
  const api::Node* node = ni.node();
  if (node == nullptr) return false;
  const framework::Resource& alloc = ni.allocatable();
  const framework::Resource& used = ni.requested();
  if (static_cast<int64_t>(ni.pods().size()) + 1 > alloc.allowed_pod_number) return false;
  framework::Resource req(api::PodRequests(pod));
  if (req.milli_cpu > 0 && req.milli_cpu > alloc.milli_cpu - used.milli_cpu) return false;
  if (req.memory > 0 && req.memory > alloc.memory - used.memory) return false;
  if (req.ephemeral_storage > 0 && req.ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage) {
    return false;
  }
  for (const auto& [name, quantity] : req.scalar_resources) {
    if (quantity > 0 && quantity > alloc.Scalar(name) - used.Scalar(name)) return false;
  }
  if (!pod.spec.node_name.empty() && pod.spec.node_name != node->metadata.name) return false;
  if (!api::PodMatchesNodeSelectorAndAffinityTerms(pod, *node)) return false;
  for (const api::HostPort& hp : api::PodHostPorts(pod)) {
    if (ni.used_ports().CheckConflict(hp.host_ip, hp.protocol, hp.port)) return false;
  }
  return api::FindMatchingUntoleratedTaint(node->spec.taints, pod.spec.tolerations, api::IsNoScheduleOrNoExecute) ==
         nullptr;
}

}  // namespace

EventHandlers::EventHandlers(Scheduler& sched)
    : sched_(sched), clock_(sched.Clock()), hints_(sched.Features().scheduler_queueing_hints) {
  for (const std::string& name : sched_.ProfileNames()) {
    framework::runtime::Framework* fwk = sched_.Profile(name);
    util::StatusOr<queue::QueueingHintMap> map =
        queue::BuildQueueingHintMap(fwk->EnqueueExtensionPlugins(), sched_.Features());
    // The scheduler built the same map successfully at construction.
    if (!map.ok()) continue;
    for (const queue::QueueingHintMap::Entry& e : map->entries()) {
      const std::string& r = e.event.resource;
      if (r == framework::resource::kPod || r == framework::resource::kNode || r == framework::resource::kWildCard) {
        continue;
      }
      unioned_[r] |= e.event.action_type;
    }
  }
}

void EventHandlers::Observe(const std::string& label, util::TimePoint start) const {
  metrics::SchedulerMetrics* m = sched_.Metrics();
  if (m == nullptr) return;
  m->EventHandlingDuration(label).Observe(util::Seconds(clock_.Since(start)));
}

// ---------------------------------------------------------------- assigned pods

void EventHandlers::OnAssignedPodAdd(const PodPtr& pod) {
  const util::TimePoint start = clock_.Now();
  KLOG_V(3, "Add event for scheduled pod {}", api::PodKey(*pod));
  util::Status s = sched_.Cache().AddPod(pod);
  if (!s.ok()) spdlog::error("Scheduler cache AddPod failed for pod {}: {}", api::PodKey(*pod), s.message());
  if (hints_) {
    sched_.Queue().MoveAllToActiveOrBackoffQueue(framework::kEventAssignedPodAdd, {}, pod);
  } else {
    sched_.Queue().AssignedPodAdded(pod);
  }
  Observe(framework::kEventAssignedPodAdd.Label(), start);
}

void EventHandlers::OnAssignedPodUpdate(const PodPtr& old_pod, const PodPtr& new_pod) {
  if (old_pod->metadata.resource_version == new_pod->metadata.resource_version) return;
  const util::TimePoint start = clock_.Now();
  KLOG_V(4, "Update event for scheduled pod {}", api::PodKey(*new_pod));
  util::Status s = sched_.Cache().UpdatePod(old_pod, new_pod);
  if (!s.ok()) spdlog::error("Scheduler cache UpdatePod failed for pod {}: {}", api::PodKey(*new_pod), s.message());
  const double updating = util::Seconds(clock_.Since(start));
  for (const ClusterEvent& evt : framework::PodSchedulingPropertiesChange(*new_pod, *old_pod)) {
    const util::TimePoint moving = clock_.Now();
    if (hints_) {
      sched_.Queue().MoveAllToActiveOrBackoffQueue(evt, old_pod, new_pod);
    } else {
      sched_.Queue().AssignedPodUpdated(old_pod, new_pod, evt);
    }
    if (metrics::SchedulerMetrics* m = sched_.Metrics()) {
      m->EventHandlingDuration(evt.Label())
          .Observe(updating + util::Seconds(clock_.Since(moving)));
    }
  }
}

void EventHandlers::OnAssignedPodDelete(const PodPtr& pod) {
  const util::TimePoint start = clock_.Now();
  KLOG_V(3, "Delete event for scheduled pod {}", api::PodKey(*pod));
  util::Status s = sched_.Cache().RemovePod(*pod);
  if (!s.ok()) {
    // Tombstones of pods that were never assigned land here too.
    KLOG_V(4, "Scheduler cache RemovePod failed for pod {}: {}", api::PodKey(*pod), s.message());
  }
  sched_.Queue().MoveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, pod, {});
  Observe(framework::kEventAssignedPodDelete.Label(), start);
}

// ---------------------------------------------------------------- unassigned pods

void EventHandlers::OnUnscheduledPodAdd(const PodPtr& pod) {
  const util::TimePoint start = clock_.Now();
  KLOG_V(3, "Add event for unscheduled pod {}", api::PodKey(*pod));
  sched_.Queue().Add(pod);
  Observe(framework::kEventUnscheduledPodAdd.Label(), start);
}

void EventHandlers::OnUnscheduledPodUpdate(const PodPtr& old_pod, const PodPtr& new_pod) {
  // Identical objects (a relist) must not queue a second copy of the pod.
  if (old_pod->metadata.resource_version == new_pod->metadata.resource_version) return;
  const util::TimePoint start = clock_.Now();
  std::vector<ClusterEvent> events = framework::PodSchedulingPropertiesChange(*new_pod, *old_pod);
  if (sched_.Cache().IsAssumedPod(*new_pod)) return;
  KLOG_V(4, "Update event for unscheduled pod {}", api::PodKey(*new_pod));
  sched_.Queue().Update(old_pod, new_pod);
  const std::string& old_nominated = old_pod->status.nominated_node_name;
  if (!old_nominated.empty() && old_nominated != new_pod->status.nominated_node_name) {
    // The pod no longer holds room on its old nominated node: lower or
    // equal priority pods that counted it may fit now.
    sched_.Queue().MoveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, old_pod, {},
                                                 LowerOrEqualPriority(framework::PodPriority(*old_pod)));
  }
  const std::string generic = framework::kEventUnscheduledPodUpdate.Label();
  Observe(generic, start);
  for (const ClusterEvent& evt : events) {
    std::string label = evt.Label();
    if (label != generic) Observe(label, start);
  }
}

void EventHandlers::OnUnscheduledPodDelete(const PodPtr& pod) {
  const util::TimePoint start = clock_.Now();
  KLOG_V(3, "Delete event for unscheduled pod {}", api::PodKey(*pod));
  sched_.Queue().Delete(*pod);
  framework::runtime::Framework* fwk = sched_.FrameworkForPod(*pod);
  if (fwk != nullptr && fwk->RejectWaitingPod(pod->metadata.uid)) {
    // It was assumed and held at Permit: its room is free again.
    sched_.Queue().MoveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, pod, {});
  } else if (!pod->status.nominated_node_name.empty()) {
    sched_.Queue().MoveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, pod, {},
                                                 LowerOrEqualPriority(framework::PodPriority(*pod)));
  }
  sched_.ForgetPendingPod(*pod);
  Observe(framework::kEventUnscheduledPodDelete.Label(), start);
}

// ---------------------------------------------------------------- nodes

queue::PreEnqueueCheck EventHandlers::PreCheckForNode(const std::string& node_name) const {
  // With hints the plugins' hint functions decide; this check only knows
  // in-tree plugins.
  if (hints_) return nullptr;
  util::StatusOr<framework::NodeInfo> ni = sched_.Cache().GetNodeInfo(node_name);
  if (!ni.ok()) return nullptr;
  auto info = std::make_shared<const framework::NodeInfo>(std::move(ni).value());
  return [info](const api::Pod& pod) { return FitsNode(pod, *info); };
}

void EventHandlers::OnNodeAdd(const NodePtr& node) {
  const ClusterEvent evt(framework::resource::kNode, ActionType::kAdd);
  const util::TimePoint start = clock_.Now();
  KLOG_V(3, "Add event for node {}", node->metadata.name);
  sched_.Cache().AddNode(node);
  sched_.Queue().MoveAllToActiveOrBackoffQueue(evt, {}, node, PreCheckForNode(node->metadata.name));
  Observe(evt.Label(), start);
}

void EventHandlers::OnNodeUpdate(const NodePtr& old_node, const NodePtr& new_node) {
  if (old_node->metadata.resource_version == new_node->metadata.resource_version) return;
  const util::TimePoint start = clock_.Now();
  KLOG_V(4, "Update event for node {}", new_node->metadata.name);
  sched_.Cache().UpdateNode(old_node, new_node);
  std::vector<ClusterEvent> events = framework::NodeSchedulingPropertiesChange(*new_node, *old_node);
  const double updating = util::Seconds(clock_.Since(start));
  if (events.empty()) return;
  queue::PreEnqueueCheck check = PreCheckForNode(new_node->metadata.name);
  for (const ClusterEvent& evt : events) {
    const util::TimePoint moving = clock_.Now();
    sched_.Queue().MoveAllToActiveOrBackoffQueue(evt, old_node, new_node, check);
    if (metrics::SchedulerMetrics* m = sched_.Metrics()) {
      m->EventHandlingDuration(evt.Label())
          .Observe(updating + util::Seconds(clock_.Since(moving)));
    }
  }
}

void EventHandlers::OnNodeDelete(const NodePtr& node) {
  const ClusterEvent evt(framework::resource::kNode, ActionType::kDelete);
  const util::TimePoint start = clock_.Now();
  sched_.Queue().MoveAllToActiveOrBackoffQueue(evt, node, {});
  KLOG_V(3, "Delete event for node {}", node->metadata.name);
  util::Status s = sched_.Cache().RemoveNode(*node);
  if (!s.ok()) spdlog::error("Scheduler cache RemoveNode failed for node {}: {}", node->metadata.name, s.message());
  Observe(evt.Label(), start);
}

// ---------------------------------------------------------------- other resources

void EventHandlers::OnResourceEvent(const ClusterEvent& event, const framework::EventObject& old_obj,
                                    const framework::EventObject& new_obj) {
  const util::TimePoint start = clock_.Now();
  if (!hints_ && event.resource == framework::resource::kStorageClass && event.action_type == ActionType::kAdd) {
    // A new Immediate class cannot help pods with unbound immediate PVCs;
    // only a late-binding one can.
    const api::StorageClass* sc = new_obj.As<api::StorageClass>();
    if (sc == nullptr || sc->volume_binding_mode.value_or("") != "WaitForFirstConsumer") {
      Observe(event.Label(), start);
      return;
    }
  }
  sched_.Queue().MoveAllToActiveOrBackoffQueue(event, old_obj, new_obj);
  sched_.WakeBindingWaits(event);
  Observe(event.Label(), start);
}

template <class T>
void EventHandlers::RegisterResource(informer::SharedInformer<T>& informer, std::string_view resource,
                                     ActionType actions,
                                     std::vector<std::shared_ptr<const informer::HandlerRegistration>>& out) {
  using Ptr = std::shared_ptr<const T>;
  informer::ResourceEventHandlerFuncs<T> funcs;
  const std::string res(resource);
  if (framework::Intersects(actions, ActionType::kAdd)) {
    funcs.on_add = [this, res](const Ptr& obj, bool) {
      OnResourceEvent(ClusterEvent(res, ActionType::kAdd), {}, obj);
    };
  }
  if (framework::Intersects(actions, ActionType::kUpdate)) {
    funcs.on_update = [this, res](const Ptr& old_obj, const Ptr& new_obj) {
      if (old_obj->metadata.resource_version == new_obj->metadata.resource_version) return;
      OnResourceEvent(ClusterEvent(res, ActionType::kUpdate), old_obj, new_obj);
    };
  }
  if (framework::Intersects(actions, ActionType::kDelete)) {
    funcs.on_delete = [this, res](const Ptr& obj, bool) {
      OnResourceEvent(ClusterEvent(res, ActionType::kDelete), obj, {});
    };
  }
  out.push_back(informer.AddEventHandler(std::move(funcs)));
}

std::vector<std::shared_ptr<const informer::HandlerRegistration>> EventHandlers::Register(
    informer::InformerFactory& factory) {
  std::vector<std::shared_ptr<const informer::HandlerRegistration>> regs;
  Scheduler& sched = sched_;

  informer::ResourceEventHandlerFuncs<api::Pod> assigned;
  assigned.filter = [](const api::Pod& p) { return Assigned(p); };
  // A tombstone's object may be stale: try to remove it from the cache
  // whatever it says.
  assigned.tombstone_filter = [](const api::Pod&) { return true; };
  assigned.on_add = [this](const PodPtr& p, bool) { OnAssignedPodAdd(p); };
  assigned.on_update = [this](const PodPtr& o, const PodPtr& n) { OnAssignedPodUpdate(o, n); };
  assigned.on_delete = [this](const PodPtr& p, bool) { OnAssignedPodDelete(p); };
  regs.push_back(factory.Pods().AddEventHandler(std::move(assigned)));

  informer::ResourceEventHandlerFuncs<api::Pod> unassigned;
  unassigned.filter = [&sched](const api::Pod& p) { return !Assigned(p) && sched.IsResponsibleFor(p); };
  unassigned.tombstone_filter = [&sched](const api::Pod& p) { return sched.IsResponsibleFor(p); };
  unassigned.on_add = [this](const PodPtr& p, bool) { OnUnscheduledPodAdd(p); };
  unassigned.on_update = [this](const PodPtr& o, const PodPtr& n) { OnUnscheduledPodUpdate(o, n); };
  unassigned.on_delete = [this](const PodPtr& p, bool) { OnUnscheduledPodDelete(p); };
  regs.push_back(factory.Pods().AddEventHandler(std::move(unassigned)));

  informer::ResourceEventHandlerFuncs<api::Node> nodes;
  nodes.on_add = [this](const NodePtr& n, bool) { OnNodeAdd(n); };
  nodes.on_update = [this](const NodePtr& o, const NodePtr& n) { OnNodeUpdate(o, n); };
  nodes.on_delete = [this](const NodePtr& n, bool) { OnNodeDelete(n); };
  regs.push_back(factory.Nodes().AddEventHandler(std::move(nodes)));

  for (const auto& [resource, actions] : unioned_) {
    if (resource == framework::resource::kPersistentVolume) {
      RegisterResource(factory.PersistentVolumes(), resource, actions, regs);
    } else if (resource == framework::resource::kPersistentVolumeClaim) {
      RegisterResource(factory.PersistentVolumeClaims(), resource, actions, regs);
    } else if (resource == framework::resource::kStorageClass) {
      RegisterResource(factory.StorageClasses(), resource, actions, regs);
    } else if (resource == framework::resource::kCSINode) {
      RegisterResource(factory.CSINodes(), resource, actions, regs);
    } else if (resource == framework::resource::kCSIDriver) {
      RegisterResource(factory.CSIDrivers(), resource, actions, regs);
    } else if (resource == framework::resource::kCSIStorageCapacity) {
      RegisterResource(factory.CSIStorageCapacities(), resource, actions, regs);
    } else if (resource == framework::resource::kVolumeAttachment) {
      RegisterResource(factory.VolumeAttachments(), resource, actions, regs);
    } else if (resource == kPodGroupResource) {
      RegisterResource(factory.InformerFor<api::PodGroup>(), resource, actions, regs);
    } else if (resource == framework::resource::kResourceClaim) {
      RegisterResource(factory.ResourceClaims(), resource, actions, regs);
    } else if (resource == framework::resource::kResourceSlice) {
      RegisterResource(factory.ResourceSlices(), resource, actions, regs);
    } else if (resource == framework::resource::kDeviceClass) {
      RegisterResource(factory.DeviceClasses(), resource, actions, regs);
    } else {
      KLOG_V(2, "Not watching {}: no informer for it", resource);
    }
  }
  auto slices = unioned_.find(std::string(framework::resource::kResourceSlice));
  if (sched.Features().dra_device_taint_rules && slices != unioned_.end() &&
      framework::Intersects(slices->second, ActionType::kUpdate)) {
    RegisterDeviceTaintRules(factory, regs);
  }
  return regs;
}

void EventHandlers::RegisterDeviceTaintRules(informer::InformerFactory& factory,
                                             std::vector<std::shared_ptr<const informer::HandlerRegistration>>& out) {
  using RulePtr = std::shared_ptr<const api::DeviceTaintRule>;
  const informer::Store<api::ResourceSlice>& slices = factory.ResourceSlices().GetStore();
  // kube's ResourceSlice tracker reports an update of each slice whose
  // devices' taints the rule changes; so does this.
  auto changed = [this, &slices](const RulePtr& old_rule, const RulePtr& new_rule) {
    const ClusterEvent event(std::string(framework::resource::kResourceSlice), ActionType::kUpdate);
    for (const std::shared_ptr<const api::ResourceSlice>& slice : slices.List()) {
      if ((old_rule && api::DeviceTaintRuleSelectsAny(*old_rule, *slice)) ||
          (new_rule && api::DeviceTaintRuleSelectsAny(*new_rule, *slice))) {
        OnResourceEvent(event, slice, slice);
      }
    }
  };
  informer::ResourceEventHandlerFuncs<api::DeviceTaintRule> funcs;
  funcs.on_add = [changed](const RulePtr& rule, bool) { changed(nullptr, rule); };
  funcs.on_update = [changed](const RulePtr& old_rule, const RulePtr& new_rule) {
    if (old_rule->spec != new_rule->spec) changed(old_rule, new_rule);
  };
  funcs.on_delete = [changed](const RulePtr& rule, bool) { changed(rule, nullptr); };
  out.push_back(factory.DeviceTaintRules().AddEventHandler(std::move(funcs)));
}

}  // namespace ksched::scheduler
