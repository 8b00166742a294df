#include "pkg/scheduler/informer_listers.h"

#include "pkg/scheduler/framework/in_memory_listers.h"

namespace ksched::scheduler {

InformerListers::InformerListers(informer::InformerFactory& factory, bool watch_device_taint_rules)
    : pods_(factory.Pods().GetStore()),
      pvs_(factory.PersistentVolumes().GetStore()),
      pvcs_(factory.PersistentVolumeClaims().GetStore()),
      storage_classes_(factory.StorageClasses().GetStore()),
      csi_nodes_(factory.CSINodes().GetStore()),
      csi_drivers_(factory.CSIDrivers().GetStore()),
      csi_storage_capacities_(factory.CSIStorageCapacities().GetStore()),
      volume_attachments_(factory.VolumeAttachments().GetStore()),
      namespaces_(factory.Namespaces().GetStore()),
      pdbs_(factory.PodDisruptionBudgets().GetStore()),
      services_(factory.Services().GetStore()),
      replication_controllers_(factory.ReplicationControllers().GetStore()),
      replica_sets_(factory.ReplicaSets().GetStore()),
      stateful_sets_(factory.StatefulSets().GetStore()),
      factory_(factory),
      device_classes_(factory.DeviceClasses().GetStore()),
      resource_claims_(factory.ResourceClaims().GetStore()),
      resource_claim_templates_(factory.ResourceClaimTemplates().GetStore()),
      resource_slices_(factory.ResourceSlices().GetStore()) {
  if (watch_device_taint_rules) {
    device_taint_rules_ = std::make_unique<StoreLister<api::DeviceTaintRule>>(factory.DeviceTaintRules().GetStore());
  } else {
    device_taint_rules_ = std::make_unique<framework::InMemoryLister<api::DeviceTaintRule>>();
  }
}

const framework::ObjectLister<api::PodGroup>& InformerListers::PodGroups() const {
  std::call_once(pod_groups_once_, [this] {
    pod_groups_ = std::make_unique<StoreLister<api::PodGroup>>(factory_.InformerFor<api::PodGroup>().GetStore());
  });
  return *pod_groups_;
}

}  // namespace ksched::scheduler
