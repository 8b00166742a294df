// SharedDRAManager: what plugins other than DynamicResources read of DRA
// (kube's fwk.SharedDRAManager, as NodeResourcesFit and
// NodeResourcesBalancedAllocation use it for extended resources that a
// DeviceClass serves, DRAExtendedResource):
//   - ExtendedResources(): which class serves which extended resource name;
//   - GatherDeviceCapacity(): once per cycle, the ResourceSlices and the
//     devices that allocated claims and in-flight allocations hold, from
//     which Totals() counts a node's devices of a class.
// The implementation lives with the DynamicResources plugin
// (plugins/dynamicresources/dra_manager.h), which owns the claim tracker.
//
// Thread-safety: every method may be called from any thread; a
// DeviceCapacityView is immutable and Totals() may run concurrently (Score
// calls it from the parallel workers).
#pragma once

#include <cstdint>
#include <memory>

#include "pkg/api/resource_types.h"
#include "pkg/api/types.h"
#include "pkg/scheduler/framework/device_class_resolver.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

// A node's devices of one class: how many there are and how many of them
// are allocated (whole or in part).
struct DeviceTotals {
  int64_t capacity = 0;
  int64_t allocated = 0;
};

// The ResourceSlices and allocated devices as one cycle saw them.
class DeviceCapacityView {
 public:
  virtual ~DeviceCapacityView() = default;
  // kube's calculateDRAResourceTotals: the devices that reach `node` (their
  // slice's, or with perDeviceNodeSelection their own, nodeName, allNodes
  // or nodeSelector) and that every CEL selector of `device_class` selects;
  // allocated counts those a claim holds whole or shares. Every slice
  // counts, whatever its pool's generation, as in kube. An error when a
  // node selector or a class selector cannot be evaluated.
  virtual util::StatusOr<DeviceTotals> Totals(const api::Node& node, const api::DeviceClass& device_class) const = 0;
};

class SharedDRAManager {
 public:
  virtual ~SharedDRAManager() = default;
  // The extended-resource mapping over the current DeviceClasses.
  virtual std::shared_ptr<const ExtendedResourceClasses> ExtendedResources() const = 0;
  // O(claims + slices); the view then answers per node in O(devices that
  // may reach it).
  virtual std::shared_ptr<const DeviceCapacityView> GatherDeviceCapacity() const = 0;
};

}  // namespace ksched::scheduler::framework
