#include "pkg/scheduler/plugins/dynamicresources/pools.h"

#include <map>
#include <set>
#include <utility>

#include "pkg/api/node_selector.h"

namespace ksched::scheduler::dra {

util::StatusOr<std::vector<Pool>> GatherPools(const std::vector<std::shared_ptr<const api::ResourceSlice>>& slices,
                                              const api::Node& node, bool whole_pool_counts) {
  std::map<std::pair<std::string, std::string>, Pool> pools;
  for (const auto& slice : slices) {
    const api::ResourceSliceSpec& spec = slice->spec;
    bool reachable = false;
    if (spec.node_name && !spec.node_name->empty()) {
      reachable = *spec.node_name == node.metadata.name;
    } else if (spec.all_nodes.value_or(false)) {
      reachable = true;
    } else if (spec.node_selector) {
      auto selector = api::CompiledNodeSelector::Create(*spec.node_selector);
      if (!selector.ok()) {
        return util::InvalidArgument("failed to perform node selection for slice " + slice->metadata.name + ": " +
                                     selector.status().message());
      }
      reachable = selector->Match(node);
    }
    if (!reachable) continue;
    Pool& pool = pools[{spec.driver, spec.pool.name}];
    if (pool.slices.empty()) {
      pool.driver = spec.driver;
      pool.name = spec.pool.name;
    } else {
      const int64_t current = pool.slices.front()->spec.pool.generation;
      if (spec.pool.generation < current) continue;  // outdated
      if (spec.pool.generation > current) pool.slices.clear();
    }
    pool.slices.push_back(slice);
  }
  std::vector<Pool> out;
  out.reserve(pools.size());
  for (auto& [id, pool] : pools) {
    const api::ResourcePool& head = pool.slices.front()->spec.pool;
    int64_t present = static_cast<int64_t>(pool.slices.size());
    if (whole_pool_counts && present != head.resource_slice_count) {
      bool obsolete = false;
      present = 0;
      for (const auto& slice : slices) {
        if (slice->spec.driver != pool.driver || slice->spec.pool.name != pool.name) continue;
        if (slice->spec.pool.generation > head.generation) obsolete = true;
        if (slice->spec.pool.generation == head.generation) ++present;
      }
      if (obsolete) continue;
    }
    pool.incomplete = present != head.resource_slice_count;
    if (whole_pool_counts && pool.incomplete) {
      out.push_back(std::move(pool));
      continue;
    }
    std::set<std::string> names;
    for (const auto& slice : pool.slices) {
      for (const api::Device& device : slice->spec.devices) {
        if (!pool.invalid && !names.insert(device.name).second) {
          pool.invalid = true;
          pool.invalid_reason = "duplicate device name " + device.name;
        }
      }
    }
    out.push_back(std::move(pool));
  }
  return out;
}

}  // namespace ksched::scheduler::dra
