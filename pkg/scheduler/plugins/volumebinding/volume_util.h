// The PV/PVC matching rules VolumeBinding applies (kube's
// pkg/volume/util and component-helpers storage/volume helpers, as the
// scheduler uses them). Pure functions of their arguments; thread-safe.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::volumebinding {

inline constexpr std::string_view kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
inline constexpr std::string_view kAnnBoundByController = "pv.kubernetes.io/bound-by-controller";
inline constexpr std::string_view kAnnSelectedNode = "volume.kubernetes.io/selected-node";
inline constexpr std::string_view kAnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class";
inline constexpr std::string_view kNotSupportedProvisioner = "kubernetes.io/no-provisioner";
inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";

using PVPtr = std::shared_ptr<const api::PersistentVolume>;
using PVCPtr = std::shared_ptr<const api::PersistentVolumeClaim>;

// The claim's class: the beta annotation if present, else
// spec.storageClassName ("" when unset).
std::string ClaimClass(const api::PersistentVolumeClaim& pvc);
// The volume's class, same rule.
std::string VolumeClass(const api::PersistentVolume& pv);
// "namespace/name".
std::string ClaimKey(const api::PersistentVolumeClaim& pvc);

// spec.volumeName set and the bind-completed annotation present: the PV
// controller has finished binding.
bool IsClaimFullyBound(const api::PersistentVolumeClaim& pvc);
// The PV's claimRef names this claim (and its uid, when the ref has one).
bool IsVolumeBoundToClaim(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& pvc);
// The PV's required node affinity matches a node carrying only `labels`
// (kube checks labels, not fields). No affinity matches every node.
bool CheckNodeAffinity(const api::PersistentVolume& pv, const api::StringMap& labels);
// Every access mode the claim asks for is offered by the PV.
bool CheckAccessModes(const api::PersistentVolumeClaim& pvc, const api::PersistentVolume& pv);
// Block vs Filesystem differ (unset means Filesystem).
bool VolumeModeMismatches(const api::PersistentVolumeClaim& pvc, const api::PersistentVolume& pv);
// The claim's storage request (zero when unset).
api::Quantity RequestedStorage(const api::PersistentVolumeClaim& pvc);

// The PV for `pvc` among `volumes` (kube's FindMatchingVolume on the
// scheduler path, node set): a PV pre-bound to the claim wins (nullptr if
// its node affinity rejects `node_labels`); otherwise the smallest
// Available PV of the claim's class with enough capacity, the same volume
// mode, matching the claim's selector, the node affinity and the access
// modes. Names in `excluded` and PVs being deleted are skipped. nullptr:
// none fits. An invalid claim selector is an error.
util::StatusOr<PVPtr> FindMatchingVolume(const api::PersistentVolumeClaim& pvc, const std::vector<PVPtr>& volumes,
                                         const api::StringMap& node_labels, const std::set<std::string>& excluded);

// `pv` with its claimRef pointing at `pvc` (kube's GetBindVolumeToClaim);
// the second value says whether anything changed. A claimRef set by the
// binder (none before) also gets the bound-by-controller annotation.
std::pair<api::PersistentVolume, bool> BindVolumeToClaim(const api::PersistentVolume& pv,
                                                         const api::PersistentVolumeClaim& pvc);

// metadata.resourceVersion as a number; "" is 0, anything unparsable an
// error.
util::StatusOr<uint64_t> ObjectVersion(const api::ObjectMeta& meta);

}  // namespace ksched::scheduler::plugins::volumebinding
