#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"

namespace ksched::scheduler::dra {

void AddAllocatedDevices(const api::AllocationResult& allocation, std::set<DeviceId>* out) {
  for (const api::DeviceRequestAllocationResult& result : allocation.devices.results) {
    if (result.admin_access.value_or(false)) continue;
    out->insert(DeviceId{result.driver, result.pool, result.device});
  }
}

void AddAllocatedState(const api::AllocationResult& allocation, bool consumable_capacity, AllocatedState* out) {
  for (const api::DeviceRequestAllocationResult& result : allocation.devices.results) {
    if (result.admin_access.value_or(false)) continue;
    DeviceId id{result.driver, result.pool, result.device};
    if (consumable_capacity && result.share_id) {
      if (!result.consumed_capacity.empty()) {
        CapacityMap& total = out->consumed[id];
        for (const auto& [name, amount] : result.consumed_capacity) total[name] += amount;
      }
      out->shared.insert(std::move(id));
      continue;
    }
    out->devices.insert(std::move(id));
  }
}

std::set<DeviceId> AllocatedDevices(const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims) {
  std::set<DeviceId> out;
  for (const auto& claim : claims) {
    if (claim->status.allocation) AddAllocatedDevices(*claim->status.allocation, &out);
  }
  return out;
}

}  // namespace ksched::scheduler::dra
