// PoolCache: the pools each node reaches (GatherPools), gathered once per
// node for as long as the informers hand out the same ResourceSlices.
//
// A node's pools depend on the slices and on the node's name and labels
// (the node selections match nothing else), so between slice changes a
// cycle looks them up instead of gathering them on every node it filters,
// which costs a pool map, a sort of the slices and of every device name
// per node and cycle. kube's allocator gathers them afresh per node.
//
// Thread-safety: PoolCache::Get and SlicePools::For may be called
// concurrently (Filter runs in parallel over nodes).
// Memory: the newest slice list, and per node that was asked for its
// pools; an entry is replaced when the node's labels change and dropped
// with the list.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/plugins/dynamicresources/pools.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

using Pools = std::shared_ptr<const std::vector<Pool>>;

// How the allocator wants a node's pools.
struct PoolOptions {
  GatherOptions gather;
  // Pools with a device that has binding conditions go after the others
  // (kube's rule is per pool and leaves incomplete pools where they are):
  // such devices make the pod wait in PreBind and are the last resort.
  bool binding_conditions_last = false;

  bool operator==(const PoolOptions&) const = default;
};

// One slice list and the pools gathered from it so far, per node.
class SlicePools {
 public:
  explicit SlicePools(std::vector<SlicePtr> slices) : index_(std::move(slices)) {}

  const std::vector<SlicePtr>& slices() const { return index_.all(); }

  // The pools `node` reaches, in the allocator's search order: gathered on
  // the first call for the node's name, labels and `options`, then
  // remembered. Errors (a malformed node selector) are not remembered.
  // O(1) expected; the node's labels are compared only when its
  // resourceVersion is not the one remembered.
  util::StatusOr<Pools> For(const api::Node& node, const PoolOptions& options) const;

 private:
  struct Entry {
    api::StringMap labels;
    std::string resource_version;  // of a node object that had `labels`
    PoolOptions options;
    Pools pools;
  };

  SliceIndex index_;
  mutable std::shared_mutex mu_;
  mutable std::unordered_map<std::string, Entry> by_node_;
};

class PoolCache {
 public:
  // The pools of `slices`: the previous call's when `slices` holds the
  // same objects in the same order (informer objects are replaced on every
  // change), else a fresh SlicePools. O(slices).
  std::shared_ptr<const SlicePools> Get(std::vector<SlicePtr> slices);

  // What the slices are made of: the ResourceSlice and DeviceTaintRule
  // listers' framework::ObjectLister::Revision; nullopt when one keeps none.
  using Revisions = std::optional<std::array<uint64_t, 2>>;
  // The previous call's pools, without calling `list`, when `revisions` is
  // set and equal to the previous call's: nothing the slices are made of
  // changed. Else Get(list()). O(1) then; listing every slice for every
  // pod was a twelfth of the scheduler's CPU at 5,000 nodes. The caller
  // reads the revisions before `list` runs, so a change in between is
  // listed now and seen again next time.
  std::shared_ptr<const SlicePools> Get(const Revisions& revisions, const std::function<std::vector<SlicePtr>()>& list);

 private:
  std::mutex mu_;
  std::shared_ptr<const SlicePools> last_;
  Revisions last_revisions_;  // of last_ when the Get that made it had them
};

}  // namespace ksched::scheduler::dra
