// InformerListers: framework::SharedListers backed by the informers' Stores
// (kube's informer listers), so plugins read Pods, PVs, PVCs,
// StorageClasses, CSINodes, CSIDrivers, Namespaces, PDBs, Services,
// ReplicationControllers, ReplicaSets, StatefulSets and DRA's DeviceClasses,
// ResourceClaims, ResourceClaimTemplates and ResourceSlices from the informer
// caches without API calls.
//
// The constructor creates (but does not start) the informer of every listed
// type in the factory; the caller starts the factory afterwards. PodGroups
// (framework::PodGroupListers) are the exception: their informer is created
// by the first PodGroups() call — the Coscheduling plugin's construction —
// so a scheduler without Coscheduling never watches them (a cluster without
// their CRD would answer 404). DeviceTaintRules are watched only when the
// constructor is told to (FeatureGates::dra_device_taint_rules: a server
// whose gate is off does not serve them); otherwise their lister is empty.
// Namespaced lists go through the
// kNamespaceIndex the factory installs.
//
// Thread-safety: reads are Store reads (shared lock, non-blocking).
// Lifetime: the factory must outlive the listers.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/informer/indexers.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/informer/store.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/podgroup_listers.h"

namespace ksched::scheduler {

template <class T>
class StoreLister final : public framework::ObjectLister<T> {
 public:
  explicit StoreLister(const informer::Store<T>& store) : store_(store) {}

  std::shared_ptr<const T> Get(std::string_view namespace_, std::string_view name) const override {
    std::string key = namespace_.empty() ? std::string(name) : std::string(namespace_) + "/" + std::string(name);
    return store_.Get(key);
  }

  std::vector<std::shared_ptr<const T>> List(std::string_view namespace_ = {}) const override {
    if (namespace_.empty()) return store_.List();
    auto r = store_.ByIndex(informer::kNamespaceIndex, std::string(namespace_));
    if (r.ok()) return std::move(r).value();
    // Cluster-scoped types have no namespace index: nothing is namespaced.
    return {};
  }

  bool ChangedSince(uint64_t since, std::vector<std::string>* keys, uint64_t* revision) const override {
    return store_.ChangedSince(since, keys, revision);
  }

  std::optional<uint64_t> Revision() const override { return store_.Revision(); }

 private:
  const informer::Store<T>& store_;
};

class InformerListers final : public framework::SharedListers, public framework::PodGroupListers {
 public:
  explicit InformerListers(informer::InformerFactory& factory, bool watch_device_taint_rules = false);

  const framework::ObjectLister<api::Pod>& Pods() const override { return pods_; }
  const framework::ObjectLister<api::PersistentVolume>& PersistentVolumes() const override { return pvs_; }
  const framework::ObjectLister<api::PersistentVolumeClaim>& PersistentVolumeClaims() const override {
    return pvcs_;
  }
  const framework::ObjectLister<api::StorageClass>& StorageClasses() const override { return storage_classes_; }
  const framework::ObjectLister<api::CSINode>& CSINodes() const override { return csi_nodes_; }
  const framework::ObjectLister<api::CSIDriver>& CSIDrivers() const override { return csi_drivers_; }
  const framework::ObjectLister<api::CSIStorageCapacity>& CSIStorageCapacities() const override {
    return csi_storage_capacities_;
  }
  const framework::ObjectLister<api::VolumeAttachment>& VolumeAttachments() const override {
    return volume_attachments_;
  }
  const framework::ObjectLister<api::Namespace>& Namespaces() const override { return namespaces_; }
  const framework::ObjectLister<api::PodDisruptionBudget>& PodDisruptionBudgets() const override {
    return pdbs_;
  }
  const framework::ObjectLister<api::Service>& Services() const override { return services_; }
  const framework::ObjectLister<api::ReplicationController>& ReplicationControllers() const override {
    return replication_controllers_;
  }
  const framework::ObjectLister<api::ReplicaSet>& ReplicaSets() const override { return replica_sets_; }
  const framework::ObjectLister<api::StatefulSet>& StatefulSets() const override { return stateful_sets_; }
  // Creates the PodGroup informer on the first call; call before the
  // factory starts.
  const framework::ObjectLister<api::PodGroup>& PodGroups() const override;
  // Whether PodGroups() was called (the PodGroup informer exists).
  bool WatchesPodGroups() const { return pod_groups_ != nullptr; }
  const framework::ObjectLister<api::DeviceClass>& DeviceClasses() const override { return device_classes_; }
  const framework::ObjectLister<api::ResourceClaim>& ResourceClaims() const override { return resource_claims_; }
  const framework::ObjectLister<api::ResourceClaimTemplate>& ResourceClaimTemplates() const override {
    return resource_claim_templates_;
  }
  const framework::ObjectLister<api::ResourceSlice>& ResourceSlices() const override { return resource_slices_; }
  const framework::ObjectLister<api::DeviceTaintRule>& DeviceTaintRules() const override {
    return *device_taint_rules_;
  }

 private:
  StoreLister<api::Pod> pods_;
  StoreLister<api::PersistentVolume> pvs_;
  StoreLister<api::PersistentVolumeClaim> pvcs_;
  StoreLister<api::StorageClass> storage_classes_;
  StoreLister<api::CSINode> csi_nodes_;
  StoreLister<api::CSIDriver> csi_drivers_;
  StoreLister<api::CSIStorageCapacity> csi_storage_capacities_;
  StoreLister<api::VolumeAttachment> volume_attachments_;
  StoreLister<api::Namespace> namespaces_;
  StoreLister<api::PodDisruptionBudget> pdbs_;
  StoreLister<api::Service> services_;
  StoreLister<api::ReplicationController> replication_controllers_;
  StoreLister<api::ReplicaSet> replica_sets_;
  StoreLister<api::StatefulSet> stateful_sets_;
  informer::InformerFactory& factory_;
  mutable std::once_flag pod_groups_once_;
  mutable std::unique_ptr<StoreLister<api::PodGroup>> pod_groups_;
  StoreLister<api::DeviceClass> device_classes_;
  StoreLister<api::ResourceClaim> resource_claims_;
  StoreLister<api::ResourceClaimTemplate> resource_claim_templates_;
  StoreLister<api::ResourceSlice> resource_slices_;
  std::unique_ptr<const framework::ObjectLister<api::DeviceTaintRule>> device_taint_rules_;
};

}  // namespace ksched::scheduler
