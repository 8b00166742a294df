// In-tree volume plugins migrated to CSI drivers, as NodeVolumeLimits sees
// them (the part of k8s.io/csi-translation-lib v0.34 the plugin uses): which
// sources are migratable, the CSI driver each maps to, and the volume handle
// a source translates to, so an in-tree volume counts against its driver's
// attach limit under the same unique name as the driver's own volumes.
//
// Migratable sources and their drivers:
//   awsElasticBlockStore  kubernetes.io/aws-ebs         ebs.csi.aws.com
//   gcePersistentDisk     kubernetes.io/gce-pd          pd.csi.storage.gke.io
//   azureDisk             kubernetes.io/azure-disk      disk.csi.azure.com
//   cinder                kubernetes.io/cinder          cinder.csi.openstack.org
//   portworxVolume        kubernetes.io/portworx-volume pxd.portworx.com
//   azureFile             kubernetes.io/azure-file      file.csi.azure.com
//   vsphereVolume         kubernetes.io/vsphere-volume  csi.vsphere.vmware.com
// The last two are never counted (IsCSIMigrationOn is false for them), so
// their handles are not modelled; only their drivers are.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::nodevolumelimits {

inline constexpr std::string_view kAnnMigratedPlugins = "storage.alpha.kubernetes.io/migrated-plugins";

inline constexpr std::string_view kAWSEBSInTreePluginName = "kubernetes.io/aws-ebs";
inline constexpr std::string_view kGCEPDInTreePluginName = "kubernetes.io/gce-pd";
inline constexpr std::string_view kAzureDiskInTreePluginName = "kubernetes.io/azure-disk";
inline constexpr std::string_view kCinderInTreePluginName = "kubernetes.io/cinder";
inline constexpr std::string_view kPortworxInTreePluginName = "kubernetes.io/portworx-volume";
inline constexpr std::string_view kAzureFileInTreePluginName = "kubernetes.io/azure-file";
inline constexpr std::string_view kVSphereInTreePluginName = "kubernetes.io/vsphere-volume";

// A volume as its CSI driver knows it.
struct CSIVolume {
  std::string driver;
  std::string handle;
};

// The in-tree plugin of an inline pod volume or a PV; "" when the source is
// not migratable.
std::string_view InTreePluginName(const api::Volume& volume);
std::string_view InTreePluginName(const api::PersistentVolume& pv);

// The CSI driver an in-tree plugin migrated to; "" for other names.
std::string_view CSIDriverForInTreePlugin(std::string_view plugin_name);

// Whether migration counts the plugin's volumes as CSI volumes on the node
// of `csi_node` (kube's isCSIMigrationOn): never without a CSINode; always
// for EBS, GCE PD, Azure Disk and Cinder (their migration is complete);
// Portworx only when the CSINode's migrated-plugins annotation (a comma
// separated list) names it, or always with `portworx_migrated` (kube 1.36
// on); never for the rest.
bool IsCSIMigrationOn(const api::CSINode* csi_node, std::string_view plugin_name, bool portworx_migrated = false);

// The CSI volume an inline volume translates to. Errors as the translation
// library's: an EBS volumeID "aws://..." that is not a valid URL with a
// "vol-" id, an Azure Disk whose kind is not Managed. Precondition:
// InTreePluginName(volume) is not "".
util::StatusOr<CSIVolume> TranslateInlineVolume(const api::Volume& volume);

// The CSI volume a PV with a migratable in-tree source translates to. A GCE
// PD's handle carries its zone, or its region when the PV's zone label
// lists several zones ("a__b") of one region. Errors as above, plus zones
// of several regions. Precondition: InTreePluginName(pv) is not "".
util::StatusOr<CSIVolume> TranslatePersistentVolume(const api::PersistentVolume& pv);

// kube's KubernetesVolumeIDToEBSVolumeID: "aws://<zone>/<vol-id>",
// "aws:///<vol-id>" or a bare id -> the bare id.
util::StatusOr<std::string> EBSVolumeID(std::string_view kubernetes_id);

}  // namespace ksched::scheduler::plugins::nodevolumelimits
