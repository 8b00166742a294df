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

// A device's three names without owning them, hashed once: what a search
// holds per candidate device (the slice it reads them from owns them), so
// looking the device up allocates nothing and hashes nothing again.
struct DeviceRef {
  std::string_view driver;
  std::string_view pool;
  std::string_view device;
  size_t hash;

  DeviceRef(std::string_view driver, std::string_view pool, std::string_view device);
  DeviceRef(const DeviceId& id) : DeviceRef(id.driver, id.pool, id.device) {}  // NOLINT: a lookup key
  DeviceId Id() const { return DeviceId{std::string(driver), std::string(pool), std::string(device)}; }
  std::string String() const { return Id().String(); }
};

// Hash and equality for containers keyed by DeviceId that are looked up
// by DeviceRef too (heterogeneous lookup).
struct DeviceIdHash {
  using is_transparent = void;
  size_t operator()(const DeviceRef& ref) const { return ref.hash; }
  size_t operator()(const DeviceId& id) const { return DeviceRef(id).hash; }
};
struct DeviceIdEqual {
  using is_transparent = void;
  // A template, so that a DeviceId is compared as it is (converting it to
  // a DeviceRef would hash it).
  template <typename A, typename B>
  static bool Same(const A& a, const B& b) {
    return std::string_view(a.device) == std::string_view(b.device) &&
           std::string_view(a.pool) == std::string_view(b.pool) &&
           std::string_view(a.driver) == std::string_view(b.driver);
  }
  bool operator()(const DeviceRef& a, const DeviceRef& b) const { return Same(a, b); }
  bool operator()(const DeviceId& a, const DeviceRef& b) const { return Same(a, b); }
  bool operator()(const DeviceRef& a, const DeviceId& b) const { return Same(a, b); }
  bool operator()(const DeviceId& a, const DeviceId& b) const { return a == b; }
};

// What allocated claims hold of one device.
struct DeviceHold {
  int whole = 0;          // results that take the device
  int shares = 0;         // results with a shareID (consumable capacity)
  CapacityMap consumed;   // what those shares consume, summed

  bool Empty() const { return whole == 0 && shares == 0; }
};

using DeviceHolds = std::unordered_map<DeviceId, DeviceHold, DeviceIdHash, DeviceIdEqual>;

// kube's AllocatedState: devices taken whole, devices with at least one
// share, and the capacity those shares consume. Lookups take a DeviceRef,
// whose hash is computed once.
class AllocatedState {
 public:
  AllocatedState() = default;
  explicit AllocatedState(DeviceHolds holds);

  // Whether the device is held whole or by any share (kube's
  // IsDeviceAllocated).
  bool Holds(const DeviceRef& id) const { return Find(id) != nullptr; }
  bool TakenWhole(const DeviceRef& id) const;
  bool HasShares(const DeviceRef& id) const;
  // What the device's shares consume; null when no share consumes any.
  const CapacityMap* Consumed(const DeviceRef& id) const;

 private:
  friend class AllocatedCounts;
  AllocatedState(std::shared_ptr<const DeviceHolds> base, std::shared_ptr<const DeviceHolds> changes)
      : base_(std::move(base)), changes_(std::move(changes)) {}
  const DeviceHold* Find(const DeviceRef& id) const;

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
