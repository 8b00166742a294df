// VolumeBinding: places pods whose PVCs are unbound (WaitForFirstConsumer)
// on nodes where a PV fits or one can be provisioned, keeps pods with bound
// PVCs on nodes their PVs reach, and binds the volumes before the pod
// (kube's VolumeBinding plugin, v1.34).
//
// PreFilter: no PVC (direct or generic ephemeral) => Skip. A missing claim,
//   a Lost or terminating one, or an ephemeral claim the pod does not own =>
//   UnschedulableAndUnresolvable with kube's message ("persistentvolumeclaim
//   \"x\" not found", ...). Claims are sorted into bound (volumeName +
//   bind-completed), unbound WaitForFirstConsumer, and unbound immediate
//   (anything else, pre-bound claims included); any of the last kind =>
//   UnschedulableAndUnresolvable "pod has unbound immediate
//   PersistentVolumeClaims". Bound local PVs narrow the nodes
//   (PreFilterResult from their hostname affinity).
// Filter: bound PVs' node affinity (kErrReasonNodeConflict), missing bound
//   PVs (kErrReasonPVNotExist); unbound claims, smallest first, each get the
//   smallest Available PV of their class that fits the node and was not
//   chosen for an earlier claim (kErrReasonBindConflict when one finds none
//   and its class cannot provision); a claim left over is provisioned when
//   the class has a provisioner and the node meets allowedTopologies; a CSI
//   driver that opted into storage capacity also needs a CSIStorageCapacity
//   of the class reaching the node with room for the claim
//   (storage_capacity.h; kErrReasonNotEnoughSpace otherwise). All reasons
//   are UnschedulableAndUnresolvable.
// Reserve: assumes the chosen PVs (claimRef set) and provisioned PVCs
//   (selected-node annotation) in the assume caches, so the next pod does not
//   pick the same PV. Unreserve drops the assumptions.
// PreBind: unless every claim was already bound, PUTs each chosen PV
//   (claimRef) and each claim to provision (selected-node), then polls every
//   second, up to bindTimeoutSeconds, until the informer shows every claim
//   bound (volumeName + bind-completed) by the PV controller; a PV or PVC
//   event checks again at once (WakeBindingWaits), where kube waits for its
//   next poll. A reset
//   claimRef, a removed selected-node annotation (provisioning failed) or a
//   deleted pod end the wait with an error; the timeout too, and
//   CancelBindingWaits (Scheduler::Stop, where kube cancels the context).
// Score (ScoringVolumeBinding, with the StorageCapacityScoring gate on):
//   per storage class, the utilization the pod's volumes would bring, through
//   VolumeBindingArgs' shape, averaged over the classes and rounded. A node
//   with PVs chosen scores them (requests against the PVs' capacity); else
//   its provisioned claims (requests summed against the capacity of the
//   CSIStorageCapacity that admitted them, claims without one left out).
//   No normalization; a pod without volumes scores 0 everywhere.
//
// Events (v1.34): StorageClass/Add|Update (hint: add => Queue, update =>
//   Queue iff allowedTopologies changed), PVC/Add|Update (Queue iff same
//   namespace and used by the pod, ephemeral claims included), PV/Add|Update
//   (no hint), Node/Add|UpdateNodeLabel (+UpdateNodeTaint with hints off; no
//   hint), CSINode/Add|Update (add => Queue, update => Queue iff the
//   migrated-plugins annotation changed), CSIDriver/Update (Queue iff a
//   driver of the pod's CSI volumes turned storageCapacity off),
//   CSIStorageCapacity/Add|Update (add => Queue, update => Queue iff the
//   volume limit, maximumVolumeSize or else capacity, grew or appeared).
//
// Thread-safety: Filter runs concurrently per node and records its result
// under the cycle state's mutex; the other points run once per pod. The
// assume caches are shared by all pods and thread-safe.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/plugins/volumebinding/volume_binding_args.h"
#include "pkg/scheduler/framework/binding_waits.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/pod_signature.h"
#include "pkg/scheduler/plugins/helper/shape_score.h"
#include "pkg/scheduler/plugins/volumebinding/assume_cache.h"
#include "pkg/scheduler/plugins/volumebinding/volume_util.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::plugins::volumebinding {

inline constexpr std::string_view kName = "VolumeBinding";
inline constexpr std::string_view kStateKey = "VolumeBinding";
inline constexpr std::string_view kErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind";
inline constexpr std::string_view kErrReasonNodeConflict = "node(s) didn't match PersistentVolume's node affinity";
inline constexpr std::string_view kErrReasonNotEnoughSpace = "node(s) did not have enough free storage";
inline constexpr std::string_view kErrReasonPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
inline constexpr std::string_view kErrUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims";
inline constexpr int64_t kDefaultBindTimeoutSeconds = 600;
// kube polls the binding outcome once a second.
inline constexpr util::Duration kBindPollInterval = std::chrono::seconds(1);

// The pod's claims, sorted as PreFilter found them.
struct PodVolumeClaims {
  std::vector<PVCPtr> bound;
  std::vector<PVCPtr> unbound_delay_binding;
  std::vector<PVCPtr> unbound_immediate;
  // Per class of an unbound WaitForFirstConsumer claim: that class's PVs.
  std::map<std::string, std::vector<PVPtr>> unbound_volumes_delay_binding;
};

// A PV chosen for a claim.
struct BindingInfo {
  PVPtr pv;
  PVCPtr pvc;
};

// A claim to provision, with the CSIStorageCapacity that admitted it on the
// node (null when capacity was not checked).
struct DynamicProvision {
  PVCPtr pvc;
  std::shared_ptr<const api::CSIStorageCapacity> node_capacity;
};

// What the pod needs on one node: PVs to bind and claims to provision.
struct PodVolumes {
  std::vector<BindingInfo> static_bindings;
  std::vector<DynamicProvision> dynamic_provisions;
};

// The plugin's cycle state; clones share it (kube does the same).
class StateData final : public framework::StateData, public std::enable_shared_from_this<StateData> {
 public:
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<StateData>(shared_from_this());
  }

  bool skip = false;
  PodVolumeClaims claims;
  // Set by Reserve: nothing to write at PreBind.
  bool all_bound = false;

  std::mutex mu;
  std::map<std::string, PodVolumes, std::less<>> volumes_by_node;  // guarded by mu (Filter)
};

class VolumeBinding : public framework::SignPlugin,
                      public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::ReservePlugin,
                            public framework::PreBindPlugin,
                            public framework::EnqueueExtensions,
                            public framework::BindingWaitCanceller,
                            public framework::BindingWaitWaker {
 public:
  // `volumes` may be nullptr (PreBind then fails when it has writes to do).
  VolumeBinding(const framework::SharedListers& listers, framework::VolumeClient* volumes, const util::Clock& clock,
                util::Duration bind_timeout, bool enable_queueing_hints);

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& state,
                                                                     const api::Pod& pod,
                                                                     const framework::NodeInfoList& nodes) override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  framework::Status Reserve(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) override;
  void Unreserve(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) override;
  // Skip when Reserve found every claim bound; an error when Filter left
  // no volumes for the node.
  framework::Status PreBindPreFlight(framework::CycleState& state, const api::Pod& pod,
                                     std::string_view node_name) override;
  bool AllowsParallelPreBind() const override { return true; }
  framework::Status PreBind(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;
  // Ends PreBind waits in flight and later ones with "binding volumes:
  // context canceled" (the scheduler is stopping).
  void CancelBindingWaits() override { waits_.Cancel(); }
  void WakeBindingWaits(const framework::ClusterEvent& event) override;

  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterPVCChange(const api::Pod& pod,
                                                                             const framework::EventObject& old_obj,
                                                                             const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterStorageClassChange(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterCSINodeChange(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterCSIDriverChange(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterCSIStorageCapacityChange(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);

  // The shared assume caches (for tests).
  PVAssumeCache& PVCache() { return pv_cache_; }
  PVCAssumeCache& PVCCache() { return pvc_cache_; }

 private:
  // Whether the pod uses a PVC; an error message when one is unusable.
  util::StatusOr<bool> PodHasPVCs(const api::Pod& pod) const;
  util::StatusOr<PodVolumeClaims> GetPodVolumeClaims(const api::Pod& pod) const;
  util::StatusOr<bool> IsDelayBindingMode(const api::PersistentVolumeClaim& pvc) const;
  // The node's PodVolumes and the reasons it does not fit (empty: fits).
  util::StatusOr<std::pair<PodVolumes, std::vector<std::string>>> FindPodVolumes(const PodVolumeClaims& claims,
                                                                                const api::Node& node) const;
  // Checks a claim-to-provision list (kube's checkVolumeProvisions).
  struct ProvisionCheck {
    bool satisfied = false;
    bool sufficient_storage = false;
    std::vector<DynamicProvision> provisions;  // when both hold
  };
  util::StatusOr<ProvisionCheck> CheckVolumeProvisions(const std::vector<PVCPtr>& claims, const api::Node& node) const;
  // True when all binding is complete, false to keep waiting, error to
  // give up.
  util::StatusOr<bool> CheckBindings(const api::Pod& pod, const PodVolumes& volumes) const;
  void RevertAssumed(const PodVolumes& volumes);

  const framework::SharedListers& listers_;
  framework::VolumeClient* const volumes_;
  const util::Clock& clock_;
  const util::Duration bind_timeout_;
  const bool enable_queueing_hints_;
  PVAssumeCache pv_cache_;
  PVCAssumeCache pvc_cache_;
  framework::BindingWaits waits_;
};

// VolumeBinding with Score: the plugin as kube builds it with the
// StorageCapacityScoring gate on. `shape` is VolumeBindingArgs' (scores
// 0-10).
class ScoringVolumeBinding final : public VolumeBinding, public framework::ScorePlugin {
 public:
  ScoringVolumeBinding(const framework::SharedListers& listers, framework::VolumeClient* volumes,
                       const util::Clock& clock, util::Duration bind_timeout, bool enable_queueing_hints,
                       const std::vector<config::UtilizationShapePoint>& shape);
  std::pair<int64_t, framework::Status> Score(framework::CycleState& state, const api::Pod& pod,
                                              const framework::NodeInfo& node_info) override;
  // A pod without claims (most pods) scores 0 everywhere: that is found
  // once per run.
  framework::Status ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                               std::span<const framework::NodeInfo* const> nodes,
                               framework::NodeScore* out) override;

 private:
  const std::vector<helper::ShapePoint> shape_;
};

// Builds the plugin from VolumeBindingArgs (or defaults), the handle's
// listers, Volumes() client, clock and features (ScoringVolumeBinding with
// storage_capacity_scoring).
util::StatusOr<std::unique_ptr<VolumeBinding>> New(const config::PluginArgs& args, framework::Handle& handle);
// The same with PreBind polling on `wait_clock` (which must outlive the
// plugin) instead of the handle's clock.
util::StatusOr<std::unique_ptr<VolumeBinding>> New(const config::PluginArgs& args, framework::Handle& handle,
                                                   const util::Clock& wait_clock);

}  // namespace ksched::scheduler::plugins::volumebinding
