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
// views in O(1), copying on the next change only the part a view shares,
// so a cycle does not pay for every allocation in the cluster (the claim
// tracker updates it from the claims that changed).
//
// Thread-safety: AllocatedState is immutable and may be read from any
// thread; copies share their data. AllocatedCounts is not thread-safe (its
// owner locks); the views it hands out stay valid and unchanged after it
// changes.
#pragma once

#include <atomic>
#include <compare>
#include <cstdint>
#include <memory>
#include <mutex>
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
  // With the hash the three names have (computed earlier and kept).
  DeviceRef(std::string_view driver, std::string_view pool, std::string_view device, size_t hash)
      : driver(driver), pool(pool), device(device), hash(hash) {}
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

// What allocated claims hold of one device. Each pool that ever lost a
// hold also has an entry under its name with an empty device name, which
// holds no device: its removal_stamp changes whenever a hold in the pool
// is removed (PoolMark).
struct DeviceHold {
  int whole = 0;          // results that take the device
  int shares = 0;         // results with a shareID (consumable capacity)
  CapacityMap consumed;   // what those shares consume, summed
  uint64_t removal_stamp = 0;

  bool Held() const { return whole > 0 || shares > 0; }
  bool Empty() const { return !Held() && removal_stamp == 0; }
};

using DeviceHolds = std::unordered_map<DeviceId, DeviceHold, DeviceIdHash, DeviceIdEqual>;

// Where a pool's holds stand in a tally's history. While no hold of the
// pool is removed, holds are only added: a device a search saw held whole
// under one mark is held whole under any later mark that Continues it.
struct PoolMark {
  uint64_t tally = 0;          // 0: the state is no tally's view; nothing continues it
  uint64_t removal_stamp = 0;  // of the pool's last removal; 0 for none
  uint64_t additions = 0;      // the tally's adds so far

  bool Continues(const PoolMark& earlier) const {
    return tally != 0 && tally == earlier.tally && removal_stamp == earlier.removal_stamp &&
           additions >= earlier.additions;
  }
};

// What searches learned of a pool for later cycles: how many of its
// leading devices (in search order: its slices, then each slice's devices)
// allocated claims hold whole, as of a PoolMark. A search that finds the
// mark continued skips them. Copies start knowing nothing.
// Thread-safe (Filter searches nodes in parallel, and pools can be shared).
class HeldPrefix {
 public:
  HeldPrefix() = default;
  HeldPrefix(const HeldPrefix&) {}
  HeldPrefix& operator=(const HeldPrefix&) { return *this; }

  // The leading devices known held whole under `now`; 0 when none are.
  size_t Get(const PoolMark& now) const;
  // `count` leading devices are held whole under `now`. Const: the pools
  // searches share are const, and this is a cache on them.
  void Set(const PoolMark& now, size_t count) const;

 private:
  mutable std::mutex mu_;
  mutable PoolMark mark_;
  mutable size_t count_ = 0;
};

// A device's holds with its id. While a view may see it, it is immutable
// (a change replaces it); only a tally no view shares changes it in place.
struct HeldDevice {
  DeviceId id;
  DeviceHold hold;
};
struct HoldSlot {
  size_t hash;  // DeviceRef(id).hash
  std::shared_ptr<HeldDevice> device;
};
// A shard's devices, sorted by hash: copying one copies pointers, not ids.
using HoldShard = std::vector<HoldSlot>;
// The holds split by device hash into shards, each shared by the views and
// the tally until the tally changes it (a null shard is empty).
inline constexpr size_t kHoldShards = 256;
using HoldShards = std::vector<std::shared_ptr<HoldShard>>;

// kube's AllocatedState: devices taken whole, devices with at least one
// share, and the capacity those shares consume. Lookups take a DeviceRef,
// whose hash is computed once.
class AllocatedState {
 public:
  AllocatedState() = default;
  explicit AllocatedState(DeviceHolds holds);

  // The pool's mark in the tally this view came from (a view built from
  // DeviceHolds has none).
  PoolMark Mark(std::string_view driver, std::string_view pool) const { return Mark(DeviceRef(driver, pool, "")); }
  // The same, by the pool's DeviceRef with an empty device name.
  PoolMark Mark(const DeviceRef& pool) const;

  // Whether the device is held whole or by any share (kube's
  // IsDeviceAllocated).
  bool Holds(const DeviceRef& id) const { return Find(id) != nullptr; }
  bool TakenWhole(const DeviceRef& id) const;
  bool HasShares(const DeviceRef& id) const;
  // What the device's shares consume; null when no share consumes any.
  const CapacityMap* Consumed(const DeviceRef& id) const;

 private:
  friend class AllocatedCounts;
  AllocatedState(std::shared_ptr<const HoldShards> shards, uint64_t tally, uint64_t additions)
      : shards_(std::move(shards)), tally_(tally), additions_(additions) {}
  // The entry for `id`, whether it holds anything or not.
  const DeviceHold* Entry(const DeviceRef& id) const;
  // The entry for `id` when it holds the device.
  const DeviceHold* Find(const DeviceRef& id) const;

  std::shared_ptr<const HoldShards> shards_;  // null: nothing held; else kHoldShards of them
  uint64_t tally_ = 0;
  uint64_t additions_ = 0;
};

// A running tally of allocations. Add and Remove are O(results); State()
// is O(1). Views never see later changes: while any view of the tally is
// alive, the first change copies the shard table (kHoldShards pointers)
// and each shard it changes (about held devices / kHoldShards pointers),
// and replaces each device's hold it changes. Once every view is gone
// (the scheduler drops a cycle's view when its pod is reserved), changes
// write in place and copy nothing.
class AllocatedCounts {
 public:
  AllocatedCounts();
  AllocatedCounts(const AllocatedCounts&) = delete;
  AllocatedCounts& operator=(const AllocatedCounts&) = delete;

  // Counts what `allocation` holds: with `consumable_capacity`, a result
  // with a shareID is a share (its consumedCapacity added to the device's);
  // any other result, and every result without it, takes its device.
  void Add(const api::AllocationResult& allocation, bool consumable_capacity);
  // Undoes an Add of the same allocation.
  void Remove(const api::AllocationResult& allocation, bool consumable_capacity);
  AllocatedState State();
  // The copies of the shard table changes have made so far.
  uint64_t TableCopies() const { return table_generation_ - 1; }

 private:
  void Apply(const api::AllocationResult& allocation, bool consumable_capacity, int sign);
  // Called before each change: after State(), decides whether views may
  // still see the table (copy on write) or all are gone (write in place).
  void BeginChange();
  // The shard of `id`, writable: copied first if a view may hold it.
  HoldShard& WritableShard(const DeviceRef& id);
  // Applies `change` to the device's hold (empty when it has none), dropping
  // the device once its hold is Empty.
  template <class Change>
  void Update(const DeviceRef& id, Change&& change);

  std::shared_ptr<HoldShards> shards_;  // kHoldShards of them
  bool table_shared_ = false;           // State() handed shards_ out since the last change
  // No view is alive: shards and devices are written in place.
  bool exclusive_ = true;
  // The views alive, as ViewLease counts them; shared with the leases,
  // which may outlive the tally.
  std::shared_ptr<std::atomic<uint64_t>> live_views_;
  // Counts the copies of the table; a shard made under an earlier one may
  // be in a view's table.
  uint64_t table_generation_ = 1;
  std::vector<uint64_t> shard_generation_;  // per shard: the table it was made under
  const uint64_t id_;       // unique among tallies (PoolMark::tally)
  uint64_t additions_ = 0;  // results added so far
};

// Whether `a` and `b` hold the same devices the same way, as
// AllocatedCounts::Add counts them (results compared in order).
bool SameHolds(const api::AllocationResult& a, const api::AllocationResult& b, bool consumable_capacity);

// Adds the devices `allocation` takes to *out.
void AddAllocatedDevices(const api::AllocationResult& allocation, std::set<DeviceId>* out);

// The devices every allocated claim of `claims` takes.
std::set<DeviceId> AllocatedDevices(const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims);

}  // namespace ksched::scheduler::dra
