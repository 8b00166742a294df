// VolumeRestrictions: rejects nodes where the pod's volumes would collide
// with volumes already mounted there (kube's VolumeRestrictions plugin).
//
// Two kinds of conflict:
//   - in-tree disks that allow one writer: the same GCE PD (unless every
//     mount is read-only), the same AWS EBS volume (always), the same ISCSI
//     IQN or the same RBD image (same pool and image, overlapping monitors)
//     unless both mounts are read-only => Unschedulable kErrReasonDiskConflict;
//   - a PVC with the ReadWriteOncePod access mode that some pod in the
//     snapshot already uses => Unschedulable kErrReasonReadWriteOncePodConflict
//     (the count is kept per cycle and adjusted by AddPod/RemovePod, so
//     preemption can see a victim release the claim).
// PreFilter fails with UnschedulableAndUnresolvable
// `persistentvolumeclaim "x" not found` when a referenced PVC is missing, and
// returns Skip when the pod has neither a conflict-prone volume nor a
// conflicting ReadWriteOncePod claim.
//
// Events (kube-scheduler v1.34):
//   Pod/Delete, hint: Queue iff same namespace and the deleted pod had a
//     conflicting disk or shared one of the pod's PVCs;
//   Node/Add (hints off: also UpdateNodeTaint|UpdateNodeLabel), no hint;
//   PersistentVolumeClaim/Add, hint: Queue iff same namespace and referenced.
//
// Thread-safety: immutable after construction; the listers must be safe for
// concurrent reads. Filter may run concurrently for different nodes.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/pod_signature.h"

namespace ksched::scheduler::plugins::volumerestrictions {

inline constexpr std::string_view kName = "VolumeRestrictions";
inline constexpr std::string_view kPreFilterStateKey = "PreFilterVolumeRestrictions";
inline constexpr std::string_view kErrReasonDiskConflict = "node(s) had no available disk";
inline constexpr std::string_view kErrReasonReadWriteOncePodConflict =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod";

// Whether `a` (the incoming pod's volume) and `b` (a mounted one) are the
// same single-writer disk mounted in a conflicting way.
bool IsVolumeConflict(const api::Volume& a, const api::Volume& b);
// Whether none of the pod's volumes conflicts with a pod on the node.
bool SatisfyVolumeConflicts(const api::Pod& pod, const framework::NodeInfo& node_info);

// Returns the cycle's snapshot lister (read at PreFilter).
using SnapshotFn = std::function<const framework::SharedLister&()>;

class VolumeRestrictions final : public framework::SignPlugin,
                                 public framework::PreFilterPlugin,
                                 public framework::PreFilterExtensions,
                                 public framework::FilterPlugin,
                                 public framework::EnqueueExtensions {
 public:
  VolumeRestrictions(const framework::SharedListers& listers, SnapshotFn snapshot, bool enable_queueing_hints)
      : listers_(listers), snapshot_(std::move(snapshot)), enable_queueing_hints_(enable_queueing_hints) {}

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& state,
                                                                     const api::Pod& pod,
                                                                     const framework::NodeInfoList& nodes) override;
  framework::PreFilterExtensions* GetPreFilterExtensions() override { return this; }
  framework::Status AddPod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                           const framework::PodInfoPtr& pod_info_to_add, const framework::NodeInfo& node_info) override;
  framework::Status RemovePod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                              const framework::PodInfoPtr& pod_info_to_remove,
                              const framework::NodeInfo& node_info) override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterPodDeleted(const api::Pod& pod,
                                                                              const framework::EventObject& old_obj,
                                                                              const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterPVCAdded(const api::Pod& pod,
                                                                            const framework::EventObject& old_obj,
                                                                            const framework::EventObject& new_obj);

 private:
  framework::Status UpdateWithPod(framework::CycleState& state, const api::Pod& pod, int delta);

  const framework::SharedListers& listers_;
  SnapshotFn snapshot_;
  bool enable_queueing_hints_;
};

std::unique_ptr<VolumeRestrictions> New(framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::volumerestrictions
