// InMemoryLister<T> and InMemorySharedListers: SharedListers backed by
// plain maps, for tests, benchmarks and any caller without informers. Objects
// are keyed by (namespace, name) and replaced on Set.
//
// Thread-safety: every method is safe to call concurrently (one mutex per
// lister). Get is O(log n); List copies shared pointers, O(n); ChangedSince
// is O(changes), keeping keys from its first call on as the informer's
// store does.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/podgroup_listers.h"
#include "pkg/util/change_log.h"

namespace ksched::scheduler::framework {

template <class T>
class InMemoryLister final : public ObjectLister<T> {
 public:
  std::shared_ptr<const T> Get(std::string_view namespace_, std::string_view name) const override {
    std::lock_guard<std::mutex> l(mu_);
    auto it = objects_.find(Key(namespace_, name));
    return it == objects_.end() ? nullptr : it->second;
  }

  std::vector<std::shared_ptr<const T>> List(std::string_view namespace_ = {}) const override {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<std::shared_ptr<const T>> out;
    for (const auto& [key, obj] : objects_) {
      if (namespace_.empty() || key.first == namespace_) out.push_back(obj);
    }
    return out;
  }

  bool ChangedSince(uint64_t since, std::vector<std::string>* keys, uint64_t* revision) const override {
    std::lock_guard<std::mutex> l(mu_);
    changes_.KeepForReaders();
    return changes_.ChangedSince(since, keys, revision);
  }

  std::optional<uint64_t> Revision() const override {
    std::lock_guard<std::mutex> l(mu_);
    return changes_.revision();
  }

  // Adds or replaces the object under its metadata's namespace and name.
  void Set(std::shared_ptr<const T> obj) {
    std::lock_guard<std::mutex> l(mu_);
    auto key = Key(obj->metadata.namespace_, obj->metadata.name);
    changes_.Record(api::KeyOf(obj->metadata));
    objects_[std::move(key)] = std::move(obj);
  }
  void Delete(std::string_view namespace_, std::string_view name) {
    std::lock_guard<std::mutex> l(mu_);
    if (objects_.erase(Key(namespace_, name)) != 0) {
      changes_.Record(api::KeyOf(namespace_, name));
    }
  }

 private:
  static std::pair<std::string, std::string> Key(std::string_view ns, std::string_view name) {
    return {std::string(ns), std::string(name)};
  }

  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const T>> objects_;  // guarded by mu_
  mutable util::ChangeLog changes_;  // guarded by mu_; keeps keys from the first ChangedSince on
};

class InMemorySharedListers final : public SharedListers, public PodGroupListers {
 public:
  const ObjectLister<api::Pod>& Pods() const override { return pods; }
  const ObjectLister<api::PersistentVolume>& PersistentVolumes() const override { return persistent_volumes; }
  const ObjectLister<api::PersistentVolumeClaim>& PersistentVolumeClaims() const override {
    return persistent_volume_claims;
  }
  const ObjectLister<api::StorageClass>& StorageClasses() const override { return storage_classes; }
  const ObjectLister<api::CSINode>& CSINodes() const override { return csi_nodes; }
  const ObjectLister<api::CSIDriver>& CSIDrivers() const override { return csi_drivers; }
  const ObjectLister<api::CSIStorageCapacity>& CSIStorageCapacities() const override {
    return csi_storage_capacities;
  }
  const ObjectLister<api::VolumeAttachment>& VolumeAttachments() const override { return volume_attachments; }
  const ObjectLister<api::Namespace>& Namespaces() const override { return namespaces; }
  const ObjectLister<api::PodDisruptionBudget>& PodDisruptionBudgets() const override {
    return pod_disruption_budgets;
  }
  const ObjectLister<api::Service>& Services() const override { return services; }
  const ObjectLister<api::ReplicationController>& ReplicationControllers() const override {
    return replication_controllers;
  }
  const ObjectLister<api::ReplicaSet>& ReplicaSets() const override { return replica_sets; }
  const ObjectLister<api::StatefulSet>& StatefulSets() const override { return stateful_sets; }
  const ObjectLister<api::PodGroup>& PodGroups() const override { return pod_groups; }
  const ObjectLister<api::DeviceClass>& DeviceClasses() const override { return device_classes; }
  const ObjectLister<api::ResourceClaim>& ResourceClaims() const override { return resource_claims; }
  const ObjectLister<api::ResourceClaimTemplate>& ResourceClaimTemplates() const override {
    return resource_claim_templates;
  }
  const ObjectLister<api::ResourceSlice>& ResourceSlices() const override { return resource_slices; }
  const ObjectLister<api::DeviceTaintRule>& DeviceTaintRules() const override { return device_taint_rules; }

  // Filled directly by tests.
  InMemoryLister<api::Pod> pods;
  InMemoryLister<api::PersistentVolume> persistent_volumes;
  InMemoryLister<api::PersistentVolumeClaim> persistent_volume_claims;
  InMemoryLister<api::StorageClass> storage_classes;
  InMemoryLister<api::CSINode> csi_nodes;
  InMemoryLister<api::CSIDriver> csi_drivers;
  InMemoryLister<api::CSIStorageCapacity> csi_storage_capacities;
  InMemoryLister<api::VolumeAttachment> volume_attachments;
  InMemoryLister<api::Namespace> namespaces;
  InMemoryLister<api::PodDisruptionBudget> pod_disruption_budgets;
  InMemoryLister<api::Service> services;
  InMemoryLister<api::ReplicationController> replication_controllers;
  InMemoryLister<api::ReplicaSet> replica_sets;
  InMemoryLister<api::StatefulSet> stateful_sets;
  InMemoryLister<api::PodGroup> pod_groups;
  InMemoryLister<api::DeviceClass> device_classes;
  InMemoryLister<api::ResourceClaim> resource_claims;
  InMemoryLister<api::ResourceClaimTemplate> resource_claim_templates;
  InMemoryLister<api::ResourceSlice> resource_slices;
  InMemoryLister<api::DeviceTaintRule> device_taint_rules;
};

}  // namespace ksched::scheduler::framework
