// The devices that allocated claims hold: what the allocator must treat as
// taken (kube's DynamicResources plugin gathers the same from its claim
// cache and its in-flight allocations).
//
// A result with adminAccess does not take its device: admin access is
// granted on top of whatever else uses it. With consumable capacity a
// result with a shareID holds a share of its device, not all of it.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <memory>
#include <set>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/scheduler/plugins/dynamicresources/allocator.h"

namespace ksched::scheduler::dra {

// Adds what `allocation` holds to *out: with `consumable_capacity`, a
// result with a shareID is a share (AllocatedState::shared, and its
// consumedCapacity added to AllocatedState::consumed); any other result,
// and every result without it, takes its device.
void AddAllocatedState(const api::AllocationResult& allocation, bool consumable_capacity, AllocatedState* out);

// Adds the devices `allocation` takes to *out.
void AddAllocatedDevices(const api::AllocationResult& allocation, std::set<DeviceId>* out);

// The devices every allocated claim of `claims` takes.
std::set<DeviceId> AllocatedDevices(const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims);

}  // namespace ksched::scheduler::dra
