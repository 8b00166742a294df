#include "pkg/scheduler/plugins/dynamicresources/pool_cache.h"

#include <algorithm>
#include <utility>

namespace ksched::scheduler::dra {

namespace {

bool HasBindingConditions(const Pool& pool) {
  for (const SlicePtr& slice : pool.slices) {
    for (const api::Device& device : slice->spec.devices) {
      if (!device.binding_conditions.empty()) return true;
    }
  }
  return false;
}

}  // namespace

util::StatusOr<Pools> SlicePools::For(const api::Node& node, const PoolOptions& options) const {
  const std::string& version = node.metadata.resource_version;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = by_node_.find(node.metadata.name);
    // One version of a node object has one set of labels.
    if (it != by_node_.end() && it->second.options == options &&
        ((!version.empty() && it->second.resource_version == version) || it->second.labels == node.metadata.labels)) {
      return it->second.pools;
    }
  }
  util::StatusOr<std::vector<Pool>> gathered = GatherPools(index_, node, options.gather);
  if (!gathered.ok()) return gathered.status();
  if (options.binding_conditions_last) {
    std::stable_partition(gathered->begin(), gathered->end(),
                          [](const Pool& p) { return p.incomplete || !HasBindingConditions(p); });
  }
  auto pools = std::make_shared<const std::vector<Pool>>(std::move(gathered).value());
  std::lock_guard<std::shared_mutex> lock(mu_);
  by_node_[node.metadata.name] = Entry{node.metadata.labels, version, options, pools};
  return pools;
}

std::shared_ptr<const SlicePools> PoolCache::Get(std::vector<SlicePtr> slices) {
  std::lock_guard<std::mutex> lock(mu_);
  if (last_ == nullptr || slices != last_->slices()) last_ = std::make_shared<const SlicePools>(std::move(slices));
  last_revisions_.reset();
  return last_;
}

std::shared_ptr<const SlicePools> PoolCache::Get(const Revisions& revisions,
                                                 const std::function<std::vector<SlicePtr>()>& list) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (revisions && last_ != nullptr && last_revisions_ == revisions) return last_;
  }
  std::shared_ptr<const SlicePools> pools = Get(list());
  std::lock_guard<std::mutex> lock(mu_);
  if (last_ == pools) last_revisions_ = revisions;
  return pools;
}

}  // namespace ksched::scheduler::dra
