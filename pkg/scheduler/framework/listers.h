// Read-only views plugins use to look at the cluster:
//
// - SharedLister: the scheduling cycle's snapshot of NodeInfos (kube's
//   fwk.SharedLister), implemented by cache::Snapshot. It is taken at the
//   start of each cycle and stays unchanged until the next one, so plugins
//   may keep pointers into it for the cycle. Lists are in the snapshot's
//   zone-interleaved order.
// - ObjectLister<T> / SharedListers: informer-backed listers of API objects
//   (PVs, PVCs, StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities,
//   VolumeAttachments, Namespaces, PDBs, Pods; Services,
//   ReplicationControllers, ReplicaSets, StatefulSets; DRA's DeviceClasses,
//   ResourceClaims, ResourceClaimTemplates, ResourceSlices), kube's informer
//   listers. In-memory implementations for tests are
//   in in_memory_listers.h.
//
// Thread-safety: the snapshot lister is read concurrently by Filter/Score
// workers and must not be mutated during a cycle (only the scheduling loop
// updates it, between cycles). ObjectLister implementations must be safe for
// concurrent use and non-blocking (a cache read).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/api/types.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

using NodeInfoList = std::vector<const NodeInfo*>;

class NodeInfoLister {
 public:
  virtual ~NodeInfoLister() = default;
  // Every node of the snapshot (never a ghost), in zone-interleaved order.
  virtual const NodeInfoList& List() const = 0;
  // Nodes with at least one pod that has pod (anti-)affinity.
  virtual const NodeInfoList& HavePodsWithAffinityList() const = 0;
  // Nodes with at least one pod that has required pod anti-affinity.
  virtual const NodeInfoList& HavePodsWithRequiredAntiAffinityList() const = 0;
  // NotFound "nodeinfo not found for node name \"x\"" when absent.
  virtual util::StatusOr<const NodeInfo*> Get(std::string_view node_name) const = 0;
};

class StorageInfoLister {
 public:
  virtual ~StorageInfoLister() = default;
  // Whether some pod in the snapshot uses the PVC "namespace/name".
  virtual bool IsPVCUsedByPods(std::string_view key) const = 0;
};

class SharedLister {
 public:
  virtual ~SharedLister() = default;
  virtual const NodeInfoLister& NodeInfos() const = 0;
  virtual const StorageInfoLister& StorageInfos() const = 0;
};

// An informer lister of one kind. Cluster-scoped kinds use namespace "".
template <class T>
class ObjectLister {
 public:
  virtual ~ObjectLister() = default;
  // The object, or nullptr when it does not exist.
  virtual std::shared_ptr<const T> Get(std::string_view namespace_, std::string_view name) const = 0;
  // Every object of `namespace_`; all objects when `namespace_` is "".
  virtual std::vector<std::shared_ptr<const T>> List(std::string_view namespace_ = {}) const = 0;
  // For readers that keep something derived from the objects: the keys
  // ("namespace/name", or "name") of the objects changed after revision
  // `since` into *keys, and the revision now into *revision. False when
  // the lister cannot tell (it keeps no such record, or not back to
  // `since`): the reader lists everything, having taken *revision first.
  virtual bool ChangedSince(uint64_t since, std::vector<std::string>* keys, uint64_t* revision) const {
    (void)since;
    (void)keys;
    *revision = 0;
    return false;
  }
  // A number that differs after any change to the objects, for readers
  // that keep something derived from all of them; nullopt when the lister
  // keeps none (the reader lists every time).
  virtual std::optional<uint64_t> Revision() const { return std::nullopt; }
};

class SharedListers {
 public:
  virtual ~SharedListers() = default;
  virtual const ObjectLister<api::Pod>& Pods() const = 0;
  virtual const ObjectLister<api::PersistentVolume>& PersistentVolumes() const = 0;
  virtual const ObjectLister<api::PersistentVolumeClaim>& PersistentVolumeClaims() const = 0;
  virtual const ObjectLister<api::StorageClass>& StorageClasses() const = 0;
  virtual const ObjectLister<api::CSINode>& CSINodes() const = 0;
  virtual const ObjectLister<api::CSIDriver>& CSIDrivers() const = 0;
  virtual const ObjectLister<api::CSIStorageCapacity>& CSIStorageCapacities() const = 0;
  virtual const ObjectLister<api::VolumeAttachment>& VolumeAttachments() const = 0;
  virtual const ObjectLister<api::Namespace>& Namespaces() const = 0;
  virtual const ObjectLister<api::PodDisruptionBudget>& PodDisruptionBudgets() const = 0;
  // What selects pods for PodTopologySpread's default constraints.
  virtual const ObjectLister<api::Service>& Services() const = 0;
  virtual const ObjectLister<api::ReplicationController>& ReplicationControllers() const = 0;
  virtual const ObjectLister<api::ReplicaSet>& ReplicaSets() const = 0;
  virtual const ObjectLister<api::StatefulSet>& StatefulSets() const = 0;
  // Dynamic Resource Allocation (resource.k8s.io/v1).
  virtual const ObjectLister<api::DeviceClass>& DeviceClasses() const = 0;
  virtual const ObjectLister<api::ResourceClaim>& ResourceClaims() const = 0;
  virtual const ObjectLister<api::ResourceClaimTemplate>& ResourceClaimTemplates() const = 0;
  virtual const ObjectLister<api::ResourceSlice>& ResourceSlices() const = 0;
  // Empty unless FeatureGates::dra_device_taint_rules (no informer runs).
  virtual const ObjectLister<api::DeviceTaintRule>& DeviceTaintRules() const = 0;
};

}  // namespace ksched::scheduler::framework
