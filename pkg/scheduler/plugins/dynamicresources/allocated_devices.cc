#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"

namespace ksched::scheduler::dra {

void AddAllocatedDevices(const api::AllocationResult& allocation, std::set<DeviceId>* out) {
  for (const api::DeviceRequestAllocationResult& result : allocation.devices.results) {
    if (result.admin_access.value_or(false)) continue;
    out->insert(DeviceId{result.driver, result.pool, result.device});
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
