#include "pkg/scheduler/plugins/dynamicresources/pools.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "pkg/api/node_selector.h"
#include "pkg/scheduler/plugins/dynamicresources/capacity.h"

namespace ksched::scheduler::dra {

namespace {

// kube's NodeMatches over one of the three node-selection fields.
util::StatusOr<bool> NodeMatches(const api::Node& node, const std::optional<std::string>& node_name,
                                 const std::optional<bool>& all_nodes,
                                 const std::optional<api::NodeSelector>& node_selector) {
  if (node_name && !node_name->empty()) return *node_name == node.metadata.name;
  if (all_nodes.value_or(false)) return true;
  if (node_selector) {
    auto selector = api::CompiledNodeSelector::Create(*node_selector);
    if (!selector.ok()) return selector.status();
    return selector->Match(node);
  }
  return false;
}

bool SetsNodeSelection(const api::ResourceSliceSpec& spec) {
  return (spec.node_name && !spec.node_name->empty()) || spec.all_nodes.value_or(false) || spec.node_selector;
}

// Whether the slice's devices (some of them, per device) reach the node;
// nullopt for a slice this allocator does not look at.
util::StatusOr<std::optional<bool>> SliceReachesNode(const api::ResourceSlice& slice, const api::Node& node,
                                                     const GatherOptions& options) {
  const api::ResourceSliceSpec& spec = slice.spec;
  if (!options.partitionable_devices && (spec.per_device_node_selection || !spec.shared_counters.empty())) {
    return std::optional<bool>();
  }
  if (options.partitionable_devices && options.counter_slices_reach_every_node && !spec.shared_counters.empty()) {
    return std::optional<bool>(true);
  }
  if (SetsNodeSelection(spec)) {
    util::StatusOr<bool> match = NodeMatches(node, spec.node_name, spec.all_nodes, spec.node_selector);
    if (!match.ok()) {
      return util::InvalidArgument("failed to perform node selection for slice " + slice.metadata.name + ": " +
                                   match.status().message());
    }
    return std::optional<bool>(*match);
  }
  if (spec.per_device_node_selection.value_or(false)) {
    for (const api::Device& device : spec.devices) {
      util::StatusOr<bool> match = DeviceReachesNode(device, node);
      if (!match.ok()) {
        return util::InvalidArgument("failed to perform node selection for device " + device.name + " in slice " +
                                     slice.metadata.name + ": " + match.status().message());
      }
      if (*match) return std::optional<bool>(true);
    }
    return std::optional<bool>(false);
  }
  return std::optional<bool>();  // some future node-selection field
}

bool ByName(const SlicePtr& a, const SlicePtr& b) { return a->metadata.name < b->metadata.name; }

// The first reason the pool's counter sets and their consumers make it
// invalid, or "" (kube's getAndValidateCounterSets and
// validateDeviceCounterConsumption).
std::string CheckCounters(Pool& pool) {
  for (const SlicePtr& slice : pool.counter_slices) {
    for (const api::CounterSet& set : slice->spec.shared_counters) {
      if (!pool.counter_sets.emplace(set.name, &set).second) return "duplicate counter set name " + set.name;
    }
  }
  for (const std::vector<SlicePtr>* slices : {&pool.slices, &pool.slices_elsewhere}) {
    for (const SlicePtr& slice : *slices) {
      for (const api::Device& device : slice->spec.devices) {
        for (const api::DeviceCounterConsumption& consumption : device.consumes_counters) {
          auto set = pool.counter_sets.find(consumption.counter_set);
          if (set == pool.counter_sets.end()) return "counter set " + consumption.counter_set + " not found";
          for (const auto& [counter, unused] : consumption.counters) {
            if (set->second->counters.count(counter) == 0) {
              return "counter " + counter + " not found in counter set " + consumption.counter_set;
            }
          }
        }
      }
    }
  }
  return "";
}

// The first device, in slice and device order, whose name an earlier one
// has; null when the names are unique. Runs per node and pool in every
// Filter, so the common answer (unique) comes from sorted views of the
// names, without copying them.
const std::string* FirstDuplicateDeviceName(const std::vector<SlicePtr>& slices) {
  std::vector<std::string_view> sorted;
  for (const SlicePtr& slice : slices) {
    for (const api::Device& device : slice->spec.devices) sorted.push_back(device.name);
  }
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) return nullptr;
  std::set<std::string_view> seen;
  for (const SlicePtr& slice : slices) {
    for (const api::Device& device : slice->spec.devices) {
      if (!seen.insert(device.name).second) return &device.name;
    }
  }
  return nullptr;
}

// Splits the reachable slices (and, when the pool was gathered whole, the
// others) into device and counter slices, then validates the pool.
void BuildPool(Pool& pool, const std::vector<SlicePtr>& whole_pool, const GatherOptions& options) {
  std::sort(pool.slices.begin(), pool.slices.end(), ByName);
  std::vector<SlicePtr> reachable = std::move(pool.slices);
  pool.slices.clear();
  const auto is_counter_slice = [&](const SlicePtr& s) {
    return options.partitionable_devices && !s->spec.shared_counters.empty();
  };
  for (const SlicePtr& slice : reachable) (is_counter_slice(slice) ? pool.counter_slices : pool.slices).push_back(slice);
  if (whole_pool.size() > reachable.size()) {
    std::set<std::string> seen;
    for (const SlicePtr& slice : reachable) seen.insert(slice->metadata.name);
    for (const SlicePtr& slice : whole_pool) {
      if (seen.count(slice->metadata.name) != 0) continue;
      (is_counter_slice(slice) ? pool.counter_slices : pool.slices_elsewhere).push_back(slice);
    }
  }
  for (const std::vector<SlicePtr>* slices : {&pool.slices, &pool.slices_elsewhere}) {
    for (const SlicePtr& slice : *slices) {
      for (const api::Device& device : slice->spec.devices) {
        if (device.capacity.empty()) continue;
        const std::vector<api::Quantity>& values =
            pool.capacity_values.emplace(&device, CapacityValues(device)).first->second;
        pool.whole_capacity_fits = pool.whole_capacity_fits && WholeCapacityFits(device, values, /*strict=*/true);
      }
    }
  }
  pool.mark_hash = DeviceRef(pool.driver, pool.name, "").hash;
  for (const SlicePtr& slice : pool.slices) {
    std::vector<size_t>& hashes = pool.device_hashes.emplace_back();
    hashes.reserve(slice->spec.devices.size());
    for (const api::Device& device : slice->spec.devices) {
      hashes.push_back(DeviceRef(pool.driver, pool.name, device.name).hash);
    }
  }
  if (const std::string* duplicate = FirstDuplicateDeviceName(pool.slices)) {
    pool.invalid = true;
    pool.invalid_reason = "duplicate device name " + *duplicate;
    return;
  }
  if (!options.partitionable_devices) return;
  pool.invalid_reason = CheckCounters(pool);
  pool.invalid = !pool.invalid_reason.empty();
}

}  // namespace

util::StatusOr<bool> DeviceReachesNode(const api::Device& device, const api::Node& node) {
  return NodeMatches(node, device.node_name, device.all_nodes, device.node_selector);
}

SliceIndex::SliceIndex(std::vector<SlicePtr> slices) : all_(std::move(slices)) {
  for (const SlicePtr& s : all_) {
    const api::ResourceSliceSpec& spec = s->spec;
    const bool one_node = spec.node_name && !spec.node_name->empty() && spec.shared_counters.empty() &&
                          !spec.per_device_node_selection.value_or(false);
    (one_node ? by_node_[*spec.node_name] : everywhere_).push_back(s);
  }
}

util::StatusOr<std::vector<Pool>> GatherPools(const std::vector<SlicePtr>& slices, const api::Node& node,
                                              GatherOptions options) {
  return GatherPools(SliceIndex(slices), node, options);
}

util::StatusOr<std::vector<Pool>> GatherPools(const SliceIndex& index, const api::Node& node,
                                              GatherOptions options) {
  const std::vector<SlicePtr>& slices = index.all();
  std::map<std::pair<std::string, std::string>, Pool> pools;
  util::Status gathered = index.ForEachCandidate(node.metadata.name, [&](const SlicePtr& slice) -> util::Status {
    util::StatusOr<std::optional<bool>> reachable = SliceReachesNode(*slice, node, options);
    if (!reachable.ok()) return reachable.status();
    if (!reachable->value_or(false)) return util::Status::Ok();
    const api::ResourceSliceSpec& spec = slice->spec;
    Pool& pool = pools[{spec.driver, spec.pool.name}];
    if (pool.slices.empty()) {
      pool.driver = spec.driver;
      pool.name = spec.pool.name;
    } else {
      const int64_t current = pool.slices.front()->spec.pool.generation;
      if (spec.pool.generation < current) return util::Status::Ok();  // outdated
      if (spec.pool.generation > current) pool.slices.clear();
    }
    pool.slices.push_back(slice);
    return util::Status::Ok();
  });
  if (!gathered.ok()) return gathered;
  std::vector<Pool> out;
  out.reserve(pools.size());
  for (auto& [id, pool] : pools) {
    const api::ResourcePool& head = pool.slices.front()->spec.pool;
    std::vector<SlicePtr> whole_pool;
    int64_t present = static_cast<int64_t>(pool.slices.size());
    if (options.whole_pool_counts && present != head.resource_slice_count) {
      bool obsolete = false;
      for (const SlicePtr& slice : slices) {
        if (slice->spec.driver != pool.driver || slice->spec.pool.name != pool.name) continue;
        if (slice->spec.pool.generation > head.generation) obsolete = true;
        if (slice->spec.pool.generation == head.generation) whole_pool.push_back(slice);
      }
      if (obsolete) continue;
      present = static_cast<int64_t>(whole_pool.size());
    }
    pool.incomplete = present != head.resource_slice_count;
    if (options.whole_pool_counts && pool.incomplete) {
      pool.slices.clear();
      out.push_back(std::move(pool));
      continue;
    }
    BuildPool(pool, whole_pool, options);
    out.push_back(std::move(pool));
  }
  return out;
}

}  // namespace ksched::scheduler::dra
