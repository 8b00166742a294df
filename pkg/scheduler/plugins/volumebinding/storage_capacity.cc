#include "pkg/scheduler/plugins/volumebinding/storage_capacity.h"

#include "pkg/api/labels.h"

namespace ksched::scheduler::plugins::volumebinding {

const api::Quantity* VolumeLimit(const api::CSIStorageCapacity& capacity) {
  if (capacity.maximum_volume_size) return &*capacity.maximum_volume_size;
  if (capacity.capacity) return &*capacity.capacity;
  return nullptr;
}

bool CapacitySufficient(const api::CSIStorageCapacity& capacity, int64_t size_bytes) {
  const api::Quantity* limit = VolumeLimit(capacity);
  return limit != nullptr && limit->Value() >= size_bytes;
}

bool NodeHasAccess(const api::Node& node, const api::CSIStorageCapacity& capacity) {
  if (!capacity.node_topology) return false;
  util::StatusOr<api::Selector> selector = api::Selector::FromLabelSelector(*capacity.node_topology);
  // The API server validates the selector; one that still does not parse
  // reaches nothing.
  if (!selector.ok()) return false;
  return selector->Matches(node.metadata.labels);
}

CapacityCheck HasEnoughCapacity(const framework::SharedListers& listers, const api::PersistentVolumeClaim& claim,
                                const api::StorageClass& storage_class, const api::Node& node) {
  auto request = claim.spec.resources.requests.find("storage");
  if (request == claim.spec.resources.requests.end()) return {true, nullptr};
  auto driver = listers.CSIDrivers().Get("", storage_class.provisioner);
  if (driver == nullptr || !driver->spec.storage_capacity.value_or(false)) return {true, nullptr};
  const int64_t size = request->second.Value();
  for (auto& capacity : listers.CSIStorageCapacities().List()) {
    if (capacity->storage_class_name == storage_class.metadata.name && CapacitySufficient(*capacity, size) &&
        NodeHasAccess(node, *capacity)) {
      return {true, std::move(capacity)};
    }
  }
  return {false, nullptr};
}

}  // namespace ksched::scheduler::plugins::volumebinding
