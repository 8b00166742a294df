// GatherPools: the resource pools whose devices a node can reach (kube's
// structured GatherPools; with partitionable devices, as the incubating
// allocator of kube 1.37 gathers them).
//
// A slice counts when its nodeName is the node, its allNodes is true, or
// its nodeSelector matches the node; with `partitionable_devices`, a slice
// with perDeviceNodeSelection counts when one of its devices reaches the
// node (by the device's own nodeName, allNodes or nodeSelector). A slice
// with none of them (some future node-selection field) is skipped; without
// `partitionable_devices` so is every slice that sets
// perDeviceNodeSelection or publishes sharedCounters. Per pool (driver,
// pool name) only the slices of the highest generation are kept, sorted by
// name (the order the search takes devices in); the pool is incomplete
// when fewer than its resourceSliceCount are present, invalid when two of
// its devices share a name.
//
// With `whole_pool_counts` (kube 1.35's allocators), a pool whose reachable
// slices fall short of resourceSliceCount is counted again over all its
// slices of that generation, those for other nodes too: complete when they
// make up the count (and then, with partitionable devices, the slices for
// other nodes are kept in `slices_elsewhere`: their counter sets and the
// counters their allocated devices consume belong to the pool), dropped
// when some slice of the pool has a newer generation (the driver is
// replacing it), otherwise incomplete and not checked for validity
// (nothing is allocated from it).
//
// With `partitionable_devices`, a slice with sharedCounters contributes
// counter sets, not devices; the pool is invalid when two counter sets
// share a name, or a device consumes from a counter set or counter the
// pool does not publish ("counter set X not found", "counter Y not found
// in counter set X").
//
// Thread-safety: a free function without shared state.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/api/quantity.h"
#include "pkg/api/resource_types.h"
#include "pkg/api/types.h"
#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

using SlicePtr = std::shared_ptr<const api::ResourceSlice>;

struct GatherOptions {
  bool whole_pool_counts = false;
  bool partitionable_devices = false;
  // kube 1.35 and 1.36: a slice with sharedCounters reaches every node,
  // whatever its node selection says, so another node's pool can be
  // gathered (without devices for this node) and, when invalid, fail the
  // search with "invalid resource pools were encountered".
  bool counter_slices_reach_every_node = false;

  bool operator==(const GatherOptions&) const = default;
};

struct Pool {
  std::string driver;
  std::string name;
  bool incomplete = false;
  bool invalid = false;
  std::string invalid_reason;
  std::vector<SlicePtr> slices;            // with devices, reaching the node; by name
  std::vector<SlicePtr> slices_elsewhere;  // with devices, for other nodes (see above)
  std::vector<SlicePtr> counter_slices;    // owns what counter_sets points into
  std::map<std::string, const api::CounterSet*> counter_sets;
  // CapacityValues of the devices that declare capacity, parsed once when
  // the pool is gathered rather than on every fit check.
  std::unordered_map<const api::Device*, std::vector<api::Quantity>> capacity_values;
  // Every capacity of the pool's devices is one a request without capacity
  // requests fits whole (WholeCapacityFits, strict): the search then needs
  // no capacity_values lookup for a device nothing else consumes.
  bool whole_capacity_fits = true;
  // Searches skip the devices allocated claims are known to hold.
  HeldPrefix held_prefix;
  // Per slice of `slices`, per device: its DeviceRef's hash, computed when
  // the pool is gathered rather than for every search.
  std::vector<std::vector<size_t>> device_hashes;
  size_t mark_hash = 0;  // DeviceRef(driver, name, "").hash; 0: not computed

  // "driver/pool".
  std::string Id() const { return driver + "/" + name; }
  // The DeviceRef of device `device` of slices[slice].
  DeviceRef Ref(size_t slice, size_t device) const {
    const std::string& device_name = slices[slice]->spec.devices[device].name;
    if (slice < device_hashes.size()) return DeviceRef(driver, name, device_name, device_hashes[slice][device]);
    return DeviceRef(driver, name, device_name);
  }
  // The pool's own entry in an AllocatedState (AllocatedState::Mark).
  DeviceRef MarkRef() const {
    return mark_hash != 0 ? DeviceRef(driver, name, "", mark_hash) : DeviceRef(driver, name, "");
  }
  // capacity_values' entry for `device`; null when it declares none.
  const std::vector<api::Quantity>* CapacityValuesOf(const api::Device& device) const {
    auto it = capacity_values.find(&device);
    return it == capacity_values.end() ? nullptr : &it->second;
  }
};

// Whether a device of a perDeviceNodeSelection slice reaches `node`. A
// malformed nodeSelector is an error naming it.
util::StatusOr<bool> DeviceReachesNode(const api::Device& device, const api::Node& node);

// The slices, indexed once for gathering the pools of many nodes: a slice
// that names its node (and has no counters or per-device selection, which
// options may make reach elsewhere) is looked at only for that node; every
// other slice for every node. Immutable after construction.
class SliceIndex {
 public:
  explicit SliceIndex(std::vector<SlicePtr> slices);

  const std::vector<SlicePtr>& all() const { return all_; }
  // The slices that may reach `node`: the ones every node looks at, in
  // their order in all(), then those naming the node.
  template <class F>
  util::Status ForEachCandidate(const std::string& node, F&& f) const {
    for (const SlicePtr& s : everywhere_) {
      if (util::Status st = f(s); !st.ok()) return st;
    }
    if (auto it = by_node_.find(node); it != by_node_.end()) {
      for (const SlicePtr& s : it->second) {
        if (util::Status st = f(s); !st.ok()) return st;
      }
    }
    return util::Status::Ok();
  }

 private:
  std::vector<SlicePtr> all_;
  std::vector<SlicePtr> everywhere_;
  std::unordered_map<std::string, std::vector<SlicePtr>> by_node_;
};

// Pools sorted by (driver, name). A slice's or device's malformed
// nodeSelector is an error naming the slice. Linear in the slices that
// may reach the node (SliceIndex), and in the pool's slices for a pool
// gathered whole.
util::StatusOr<std::vector<Pool>> GatherPools(const SliceIndex& slices, const api::Node& node,
                                              GatherOptions options = {});
util::StatusOr<std::vector<Pool>> GatherPools(const std::vector<SlicePtr>& slices, const api::Node& node,
                                              GatherOptions options = {});

}  // namespace ksched::scheduler::dra
