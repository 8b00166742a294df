// The devices that allocated claims hold: what the allocator must treat as
// taken (kube's DynamicResources plugin gathers the same from its claim
// cache and its in-flight allocations, as an AllocatedState).
//
// A result with adminAccess does not take its device: admin access is
// granted on top of whatever else uses it. With consumable capacity a
// result with a shareID holds a share of its device, not all of it.
//
// AllocatedState is the immutable view one scheduling cycle reads;
// AllocatedCounts keeps the same tally as claims come and go and hands out
// views without rebuilding them, so a cycle does not pay for every
// allocation in the cluster (the claim tracker updates it from the claims
// that changed).
//
// Thread-safety: AllocatedState is immutable and may be read from any
// thread; copies share their data. AllocatedCounts is not thread-safe (its
// owner locks); the views it hands out stay valid and unchanged after it
// changes.
#pragma once

#include <compare>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/scheduler/plugins/dynamicresources/capacity.h"

namespace ksched::scheduler::dra {

struct DeviceId {
  std::string driver;
  std::string pool;
  std::string device;

  auto operator<=>(const DeviceId&) const = default;
  // "driver/pool/device".
  std::string String() const { return driver + "/" + pool + "/" + device; }
};

struct DeviceIdHash {
  size_t operator()(const DeviceId& id) const {
    const std::hash<std::string_view> hash;
    return (hash(id.driver) * 31 + hash(id.pool)) * 31 + hash(id.device);
  }
};

// What allocated claims hold of one device.
struct DeviceHold {
  int whole = 0;          // results that take the device
  int shares = 0;         // results with a shareID (consumable capacity)
  CapacityMap consumed;   // what those shares consume, summed

  bool Empty() const { return whole == 0 && shares == 0; }
};

using DeviceHolds = std::unordered_map<DeviceId, DeviceHold, DeviceIdHash>;

// kube's AllocatedState: devices taken whole, devices with at least one
// share, and the capacity those shares consume. Lookups hash the device's
// three names once or twice.
class AllocatedState {
 public:
  AllocatedState() = default;
  explicit AllocatedState(DeviceHolds holds);

  // Whether the device is held whole or by any share (kube's
  // IsDeviceAllocated).
  bool Holds(const DeviceId& id) const { return Find(id) != nullptr; }
  bool TakenWhole(const DeviceId& id) const;
  bool HasShares(const DeviceId& id) const;
  // What the device's shares consume; null when no share consumes any.
  const CapacityMap* Consumed(const DeviceId& id) const;

 private:
  friend class AllocatedCounts;
  AllocatedState(std::shared_ptr<const DeviceHolds> base, std::shared_ptr<const DeviceHolds> changes)
      : base_(std::move(base)), changes_(std::move(changes)) {}
  const DeviceHold* Find(const DeviceId& id) const;

  // `changes_` overrides `base_` entry by entry (an Empty entry: the device
  // is no longer held); either may be null.
  std::shared_ptr<const DeviceHolds> base_;
  std::shared_ptr<const DeviceHolds> changes_;
};

// A running tally of allocations. Add and Remove are O(results); State()
// copies only the entries changed since the tally last folded them into
// its base, and folds once they pass about 2·sqrt(held devices) (a fold
// copies everything once), so a view costs O(sqrt(held devices)) amortized
// when a few allocations change between views.
class AllocatedCounts {
 public:
  // Counts what `allocation` holds: with `consumable_capacity`, a result
  // with a shareID is a share (its consumedCapacity added to the device's);
  // any other result, and every result without it, takes its device.
  void Add(const api::AllocationResult& allocation, bool consumable_capacity);
  // Undoes an Add of the same allocation.
  void Remove(const api::AllocationResult& allocation, bool consumable_capacity);
  AllocatedState State();

 private:
  void Apply(const api::AllocationResult& allocation, bool consumable_capacity, int sign);

  std::shared_ptr<const DeviceHolds> base_ = std::make_shared<const DeviceHolds>();
  DeviceHolds changes_;  // full entries that differ from (or are absent in) base_
  std::shared_ptr<const DeviceHolds> frozen_changes_;  // changes_ as the last State() saw them
};

// Adds the devices `allocation` takes to *out.
void AddAllocatedDevices(const api::AllocationResult& allocation, std::set<DeviceId>* out);

// The devices every allocated claim of `claims` takes.
std::set<DeviceId> AllocatedDevices(const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims);

}  // namespace ksched::scheduler::dra
