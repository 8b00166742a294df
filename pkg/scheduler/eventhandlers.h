// EventHandlers: turns informer notifications into cache updates, queue
// operations and ClusterEvents (kube-scheduler 1.34's eventhandlers.go).
//
// Pods go through two filtered handlers (filter transitions as
// SharedInformer defines them: an update that stops passing a filter is a
// delete for that handler, one that starts passing is an add):
//   - assigned pods (spec.nodeName set), of every scheduler, since they all
//     take node resources: Cache.AddPod/UpdatePod/RemovePod, then the
//     AssignedPod ClusterEvents (one per changed facet on update) through
//     MoveAllToActiveOrBackoffQueue, or, with SchedulerQueueingHints off,
//     AssignedPodAdded/AssignedPodUpdated. Deletions the informer inferred
//     (tombstones) always reach this handler: the stale object cannot say
//     whether the pod was assigned.
//   - unassigned pods of one of our profiles: queue Add / Update / Delete.
//     Updates that carry the same resourceVersion (relists) and updates of
//     pods this scheduler already assumed are dropped. A nominated node that
//     changed or a deleted nominated pod frees room for pods of lower or
//     equal priority (AssignedPodDelete with that pre-check); deleting a pod
//     waiting at Permit rejects it and fires AssignedPodDelete.
//   Pods of other schedulers never enter the queue.
// Nodes: Cache.AddNode/UpdateNode/RemoveNode and NodeAdd / NodeDelete / one
// event per changed facet (framework::NodeSchedulingPropertiesChange), each
// dispatched separately. With SchedulerQueueingHints off a node event only
// moves pods that pass a quick fit check on that node (resources, node
// name, node affinity, host ports, NoSchedule/NoExecute taints).
// PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes,
// CSIDrivers, CSIStorageCapacities, VolumeAttachments and DRA's
// ResourceClaims, ResourceSlices and DeviceClasses: a ClusterEvent
// {resource, Add|Update|Delete}, with handlers
// only for the actions some profile's plugins registered (kube's
// unionedGVKs); with hints off a StorageClass add only matters for
// WaitForFirstConsumer classes.
// Every handler observes scheduler_event_handling_duration_seconds{event}.
//
// The On* methods are public so tests can drive them without informers.
//
// Thread-safety: handlers are called from the informers' delivery threads
// (one per informer); everything they touch (cache, queue, framework) is
// thread-safe.
// Lifetime: the Scheduler must outlive the handlers and the informers they
// are registered on.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/informer/shared_informer.h"
#include "pkg/scheduler/framework/cluster_event.h"
#include "pkg/scheduler/framework/queueing_hint.h"
#include "pkg/scheduler/queue/priority_queue.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler {

using PodPtr = std::shared_ptr<const api::Pod>;
using NodePtr = std::shared_ptr<const api::Node>;

class EventHandlers {
 public:
  explicit EventHandlers(Scheduler& sched);

  // Registers the handlers on the factory's informers (creating the pod,
  // node and storage informers as needed). Returns the registrations, whose
  // HasSynced says the handler received its informer's first list.
  std::vector<std::shared_ptr<const informer::HandlerRegistration>> Register(informer::InformerFactory& factory);

  // Resource -> the action types some profile registered for it, from the
  // profiles' queueing-hint maps (Pod and Node excluded: always handled).
  const std::map<std::string, framework::ActionType>& UnionedResources() const { return unioned_; }

  // ---- Assigned pods (cache)
  void OnAssignedPodAdd(const PodPtr& pod);
  void OnAssignedPodUpdate(const PodPtr& old_pod, const PodPtr& new_pod);
  void OnAssignedPodDelete(const PodPtr& pod);
  // ---- Unassigned pods of our profiles (queue)
  void OnUnscheduledPodAdd(const PodPtr& pod);
  void OnUnscheduledPodUpdate(const PodPtr& old_pod, const PodPtr& new_pod);
  void OnUnscheduledPodDelete(const PodPtr& pod);
  // ---- Nodes
  void OnNodeAdd(const NodePtr& node);
  void OnNodeUpdate(const NodePtr& old_node, const NodePtr& new_node);
  void OnNodeDelete(const NodePtr& node);
  // ---- Other resources: {resource, action} with the event's objects.
  void OnResourceEvent(const framework::ClusterEvent& event, const framework::EventObject& old_obj,
                       const framework::EventObject& new_obj);

  // Which pods a node event may move when hints are off (nullptr: all).
  queue::PreEnqueueCheck PreCheckForNode(const std::string& node_name) const;

 private:
  template <class T>
  void RegisterResource(informer::SharedInformer<T>& informer, std::string_view resource,
                        framework::ActionType actions,
                        std::vector<std::shared_ptr<const informer::HandlerRegistration>>& out);
  // With FeatureGates::dra_device_taint_rules: a DeviceTaintRule change is
  // a ResourceSlice update of each slice it taints (or tainted).
  void RegisterDeviceTaintRules(informer::InformerFactory& factory,
                                std::vector<std::shared_ptr<const informer::HandlerRegistration>>& out);
  void Observe(const std::string& label, util::TimePoint start) const;

  Scheduler& sched_;
  const util::Clock& clock_;
  const bool hints_;
  std::map<std::string, framework::ActionType> unioned_;
};

}  // namespace ksched::scheduler
