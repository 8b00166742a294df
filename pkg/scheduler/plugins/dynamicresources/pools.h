// GatherPools: the resource pools whose devices a node can reach (kube's
// structured.GatherPools with partitionable devices off).
//
// A slice counts when its nodeName is the node, its allNodes is true, or
// its nodeSelector matches the node; a slice with none of them (some future
// node-selection field) is skipped, and so is one that uses per-device node
// selection (DRAPartitionableDevices is off). Per pool (driver, pool name)
// only the slices of the highest generation are kept; the pool is
// incomplete when fewer than its resourceSliceCount are present, invalid
// when two of its devices share a name.
//
// With `whole_pool_counts` (kube 1.35's allocators), a pool whose reachable
// slices fall short of resourceSliceCount is counted again over all its
// slices of that generation, those for other nodes too: complete when they
// make up the count, dropped when some slice of the pool has a newer
// generation (the driver is replacing it), otherwise incomplete and not
// checked for validity (nothing is allocated from it).
//
// Thread-safety: a free function without shared state.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

struct Pool {
  std::string driver;
  std::string name;
  bool incomplete = false;
  bool invalid = false;
  std::string invalid_reason;
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices;  // input order

  // "driver/pool".
  std::string Id() const { return driver + "/" + name; }
};

// Pools sorted by (driver, name). A slice's malformed nodeSelector is an
// error naming the slice.
util::StatusOr<std::vector<Pool>> GatherPools(const std::vector<std::shared_ptr<const api::ResourceSlice>>& slices,
                                              const api::Node& node, bool whole_pool_counts = false);

}  // namespace ksched::scheduler::dra
