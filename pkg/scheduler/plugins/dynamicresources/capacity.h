// Consumable capacity arithmetic of the DRA allocator (kube's
// structured/internal/incubating/consumable_capacity.go, integer path: the
// DRAFractionalCapacityRange gate, off by default in 1.37, is not
// modelled).
//
// One allocation of a device consumes, per capacity the device declares:
//   - no amount requested: the request policy's default, else the whole
//     capacity;
//   - an amount requested and no policy: that amount;
//   - a valid range with a min: at least min, rounded up to min + k*step
//     (any amount from min when there is no step);
//   - valid values: the smallest valid value >= the amount (the amount
//     itself when none is, which then violates the policy).
// The request fits the device when it names no capacity the device lacks,
// every consumption obeys the policy (at most max, on a step, one of the
// valid values; the default always obeys) and, per capacity, what
// allocated claims consumed + what this search consumed + this
// consumption <= the capacity.
//
// Thread-safety: free functions over values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pkg/api/quantity.h"
#include "pkg/api/resource_types.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

// Capacity name -> amount.
using CapacityMap = std::map<std::string, api::Quantity>;

// The device's capacity values, parsed, in the order of device.capacity
// (zero for a value that does not parse; the codec refuses such slices).
std::vector<api::Quantity> CapacityValues(const api::Device& device);

// What one allocation for `request` (null: no capacity requests) consumes
// of each capacity of `device`. With `strict` (kube 1.37), a request whose
// rounding passes int64 or a negative consumption is an error
// (InvalidArgument naming the capacity); kube 1.36 computed on.
// `values`: CapacityValues(device) when the caller keeps them (a Pool
// does), else null and they are parsed here.
util::StatusOr<CapacityMap> ConsumedCapacity(const api::CapacityRequirements* request, const api::Device& device,
                                             bool strict, const std::vector<api::Quantity>* values = nullptr);

// Whether `request` fits `device` on top of `allocated` (claims already
// allocated or in flight) and `allocating` (this search's earlier shares);
// either may be null. Errors and `values` as ConsumedCapacity's.
util::StatusOr<bool> CapacityFits(const api::CapacityRequirements* request, const api::Device& device,
                                  const CapacityMap* allocated, const CapacityMap* allocating, bool strict,
                                  const std::vector<api::Quantity>* values = nullptr);

// Whether one allocation without capacity requests fits `device` whenever
// nothing else consumes it, told without building its consumption: no
// capacity has a request policy (each is then consumed whole, which fits)
// and, when `strict`, none has a negative value (an error then). False:
// ask CapacityFits. `values`: CapacityValues(device).
bool WholeCapacityFits(const api::Device& device, const std::vector<api::Quantity>& values, bool strict);

// The device's capacity `name` as a quantity (zero when it does not parse;
// the codec refuses such slices).
api::Quantity CapacityValue(const api::DeviceCapacity& capacity);

}  // namespace ksched::scheduler::dra
