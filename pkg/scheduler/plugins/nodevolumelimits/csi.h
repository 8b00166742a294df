// NodeVolumeLimits: keeps the number of CSI volumes attached to a node within
// the per-driver limit its CSINode reports (kube's CSILimits plugin).
//
// A volume counts when it comes from a PVC (or a generic ephemeral volume's
// PVC "<pod>-<volume>", which must be controlled by the pod) that resolves
// to a CSI driver: through its bound PV's spec.csi (driver/volumeHandle), or
// a migrated in-tree source of the PV translated to its CSI driver and
// handle (csi_translation.h), or, when unbound or its PV is missing, through
// its StorageClass provisioner (an in-tree provisioner maps to its CSI
// driver; a per-plugin random handle prefix + "ns/claim" keeps such claims
// distinct). Inline in-tree volumes (awsElasticBlockStore, ...) count as
// their translated CSI volume. In-tree sources count only where
// IsCSIMigrationOn holds for the node's CSINode (never without one).
// Volumes are counted once per node however many pods share them; so are
// VolumeAttachments to the node whose PV is a CSI volume (spec.csi), which
// hold a slot until they are deleted even after their pod is gone.
// Filter: with VolumeLimitScaling (1.37), a driver of the pod's new volumes
// whose CSIDriver sets preventPodSchedulingIfMissing and that the node's
// CSINode (or a node without one) does not list => Unschedulable "<driver>
// CSI driver is not installed on the node" (the first such driver in name
// order; kube takes one in map order). Then, for every driver with CSINode
// spec.drivers[].allocatable.count, attached + new > count => Unschedulable
// kErrReasonMaxVolumeCountExceeded.
// A missing PVC of the incoming pod => UnschedulableAndUnresolvable
// "looking up PVC ns/name: persistentvolumeclaim \"name\" not found"; missing
// PVCs of pods already on the node are ignored. An inline volume that does
// not translate (a malformed EBS volume id, a non-Managed Azure Disk) is an
// error ("converting volume(name) from inline to csi: ...").
// PreFilter returns Skip for pods without PVC, ephemeral or migratable
// inline volumes.
//
// Events (kube-scheduler v1.34):
//   CSINode/Add, no hint;
//   CSINode/Update, hint: Queue iff some driver's allocatable count grew
//     (a driver without a count counts as 0);
//   Pod/Delete, hint: Queue iff the deleted pod was assigned or nominated
//     and had a PVC, ephemeral or migratable inline volume;
//   PersistentVolumeClaim/Add, hint: Queue iff same namespace and the pod
//     references it (directly or as an ephemeral volume's claim);
//   VolumeAttachment/Delete, hint: Queue iff the pod has a PVC volume, or a
//     migratable inline volume whose CSI driver is the attachment's
//     attacher (or which does not translate).
//
// Thread-safety: immutable after construction; listers must be safe for
// concurrent reads.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/pod_signature.h"

namespace ksched::scheduler::plugins::nodevolumelimits {

inline constexpr std::string_view kName = "NodeVolumeLimits";
inline constexpr std::string_view kErrReasonMaxVolumeCountExceeded = "node(s) exceed max volume count";

class CSILimits final : public framework::SignPlugin,
                        public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions {
 public:
  // `random_volume_id_prefix` namespaces the handles made up for unbound
  // claims so they never collide with real volume handles.
  // `portworx_migrated`: FeatureGates::volume_limits_portworx_migrated;
  // `volume_limit_scaling`: FeatureGates::volume_limit_scaling.
  CSILimits(const framework::SharedListers& listers, std::string random_volume_id_prefix,
            bool portworx_migrated = false, bool volume_limit_scaling = false)
      : listers_(listers),
        random_volume_id_prefix_(std::move(random_volume_id_prefix)),
        portworx_migrated_(portworx_migrated),
        volume_limit_scaling_(volume_limit_scaling) {}

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& state,
                                                                     const api::Pod& pod,
                                                                     const framework::NodeInfoList& nodes) override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterPodDeleted(const api::Pod& pod,
                                                                              const framework::EventObject& old_obj,
                                                                              const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterPVCAdded(const api::Pod& pod,
                                                                            const framework::EventObject& old_obj,
                                                                            const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterCSINodeUpdated(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterVolumeAttachmentDeleted(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);

 private:
  // Adds "driver/handle" -> driver for each CSI volume of `pod` to `result`.
  // For the incoming pod (`new_pod`) a missing PVC is an error; for pods on
  // the node it is skipped.
  util::Status FilterAttachableVolumes(const api::Pod& pod, const api::CSINode* csi_node, bool new_pod,
                                       std::map<std::string, std::string>& result) const;
  // Whether the node may take volumes of `driver` (VolumeLimitScaling): yes
  // unless its CSIDriver sets preventPodSchedulingIfMissing and the node's
  // CSINode does not list it.
  bool DriverInstalled(std::string_view driver, const api::CSINode* csi_node) const;
  // {driver, handle} of the claim; empty when it is not a CSI volume (or an
  // in-tree one not migrated on the node of `csi_node`).
  std::pair<std::string, std::string> GetCSIDriverInfo(const api::CSINode* csi_node,
                                                       const api::PersistentVolumeClaim& pvc) const;
  std::pair<std::string, std::string> GetCSIDriverInfoFromSC(const api::CSINode* csi_node,
                                                             const api::PersistentVolumeClaim& pvc) const;
  // "driver/handle" -> driver of the CSI volumes attached to `node_name`
  // by VolumeAttachments.
  std::map<std::string, std::string> NodeVolumeAttachments(std::string_view node_name) const;

  const framework::SharedListers& listers_;
  std::string random_volume_id_prefix_;
  bool portworx_migrated_;
  bool volume_limit_scaling_;
};

std::unique_ptr<CSILimits> New(framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::nodevolumelimits
