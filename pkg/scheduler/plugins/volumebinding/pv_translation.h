// An in-tree PV as VolumeBinding checks it against a node (kube's
// tryTranslatePVToCSI): when the PV's in-tree plugin has migrated to CSI
// (EBS, GCE PD, Azure Disk, Cinder; Portworx with CSIMigrationPortworx, on
// by default) and the node's CSINode names the plugin in its
// migrated-plugins annotation, the PV's node affinity is the CSI driver's:
// zone requirements (from the node affinity, else from the PV's zone
// label, "a__b" listing several) move to the driver's topology key
// (topology.ebs.csi.aws.com/zone, topology.gke.io/zone,
// topology.cinder.csi.openstack.org/zone; Azure Disk and Portworx keep
// theirs), and a beta region requirement becomes
// topology.kubernetes.io/region. The translation's errors (nodevolumelimits'
// csi_translation.h: a malformed EBS id, an unmanaged Azure disk, a GCE PD
// labelled with zones of several regions) are the caller's error.
//
// Pure function; thread-safe.
#pragma once

#include <memory>

#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::volumebinding {

// `pv` itself when nothing is translated; else a copy with the translated
// node affinity (the part VolumeBinding reads). `csi_node` may be null (no
// CSINode: nothing is migrated).
util::StatusOr<std::shared_ptr<const api::PersistentVolume>> TranslatePVForNode(
    const std::shared_ptr<const api::PersistentVolume>& pv, const api::CSINode* csi_node);

}  // namespace ksched::scheduler::plugins::volumebinding
