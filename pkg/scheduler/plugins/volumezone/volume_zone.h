// VolumeZone: keeps a pod on nodes in the zone/region of the PVs its bound
// PVCs use (kube's VolumeZone plugin).
//
// PreFilter resolves each PVC of the pod to its PV and collects the PV's
// zone/region labels (failure-domain.beta.kubernetes.io/{zone,region},
// topology.kubernetes.io/{zone,region}; a value may list several zones
// joined by "__"). Unbound claims of a WaitForFirstConsumer class are
// skipped (VolumeBinding places them). Missing objects or an unbound claim
// of any other class fail with UnschedulableAndUnresolvable (the lister's
// "x \"name\" not found", "PersistentVolumeClaim had no pv name and
// storageClass name", "VolumeBindingMode not set for StorageClass \"x\"",
// "PersistentVolume had no name"). No labelled PV => Skip.
// Filter: a node with none of the four labels fits (single-zone clusters);
// otherwise every PV label must be matched by the node's value of the same
// key (a beta PV key may match the node's GA key), else
// UnschedulableAndUnresolvable kErrReasonConflict.
//
// Events (kube-scheduler v1.34):
//   StorageClass/Add, hint: Queue iff WaitForFirstConsumer;
//   Node/Add|UpdateNodeLabel (hints off: also UpdateNodeTaint), no hint;
//   PersistentVolumeClaim/Add|Update, hint: Queue iff same namespace and
//     referenced by the pod;
//   PersistentVolume/Add|Update, hint: add => Queue, update => Queue iff
//     the zone/region labels changed.
//
// Thread-safety: immutable after construction; listers must be safe for
// concurrent reads.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/pod_signature.h"

namespace ksched::scheduler::plugins::volumezone {

inline constexpr std::string_view kName = "VolumeZone";
inline constexpr std::string_view kPreFilterStateKey = "PreFilterVolumeZone";
inline constexpr std::string_view kErrReasonConflict = "node(s) had no available volume zone";

// One topology label of one PV: key and the set of zones/regions it allows.
struct PVTopology {
  std::string pv_name;
  std::string key;
  std::set<std::string> values;
  bool operator==(const PVTopology&) const = default;
};

// The PV's topology labels, in kube's fixed key order; unparsable values
// (an empty element between "__") are ignored.
std::vector<PVTopology> GetPVTopologies(const api::PersistentVolume& pv);

class VolumeZone final : public framework::SignPlugin,
                         public framework::PreFilterPlugin,
                         public framework::FilterPlugin,
                         public framework::EnqueueExtensions {
 public:
  VolumeZone(const framework::SharedListers& listers, bool enable_queueing_hints)
      : listers_(listers), enable_queueing_hints_(enable_queueing_hints) {}

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& state,
                                                                     const api::Pod& pod,
                                                                     const framework::NodeInfoList& nodes) override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterStorageClassAdded(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterPVCChange(const api::Pod& pod,
                                                                             const framework::EventObject& old_obj,
                                                                             const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterPVChange(const api::Pod& pod,
                                                                            const framework::EventObject& old_obj,
                                                                            const framework::EventObject& new_obj);

 private:
  // The pod's PV topologies, or a rejection/error status.
  std::pair<std::vector<PVTopology>, framework::Status> GetPVByPod(const api::Pod& pod) const;

  const framework::SharedListers& listers_;
  bool enable_queueing_hints_;
};

std::unique_ptr<VolumeZone> New(framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::volumezone
