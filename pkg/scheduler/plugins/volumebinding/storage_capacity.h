// Storage capacity tracking for dynamic provisioning (kube's
// hasEnoughCapacity in volumebinding/binder.go, v1.34): a CSI driver whose
// CSIDriver object sets storageCapacity: true publishes CSIStorageCapacity
// objects, one per storage class and topology segment, and a claim can only
// be provisioned for a node that some such object of the claim's class both
// reaches (its nodeTopology selector matches the node's labels) and has room
// in (maximumVolumeSize if set, else capacity, at least the claim's storage
// request). Drivers without a CSIDriver object or that did not opt in, and
// claims without a storage request, are not checked.
//
// Pure functions of their arguments and the listers (read concurrently by
// Filter workers, which the listers allow). Each check lists every
// CSIStorageCapacity: O(objects) per claim and node, as in kube.
#pragma once

#include <cstdint>
#include <memory>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::volumebinding {

// The largest volume the object admits: maximumVolumeSize when set (the more
// precise figure), else capacity; nullptr when neither is set.
const api::Quantity* VolumeLimit(const api::CSIStorageCapacity& capacity);

// A volume of `size_bytes` fits the object's limit (no limit: it does not).
bool CapacitySufficient(const api::CSIStorageCapacity& capacity, int64_t size_bytes);

// The node is in the object's topology segment. An unset nodeTopology
// reaches no node; an invalid selector reaches none either.
bool NodeHasAccess(const api::Node& node, const api::CSIStorageCapacity& capacity);

// Whether the class's provisioner can create the volume of `claim` for
// `node` as far as published capacity goes, and the object that admits it
// (the first the lister returns; null when no object had to: the driver does
// not track capacity or the claim requests no storage). Storage capacity
// scoring reads that object's capacity.
struct CapacityCheck {
  bool sufficient = false;
  std::shared_ptr<const api::CSIStorageCapacity> capacity;
};
CapacityCheck HasEnoughCapacity(const framework::SharedListers& listers, const api::PersistentVolumeClaim& claim,
                                const api::StorageClass& storage_class, const api::Node& node);

}  // namespace ksched::scheduler::plugins::volumebinding
