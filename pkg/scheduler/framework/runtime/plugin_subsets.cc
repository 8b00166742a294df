#include "pkg/scheduler/framework/runtime/plugin_subsets.h"

#include <bit>

namespace ksched::scheduler::framework::runtime {

PluginSet PluginSubsets::Of(uint64_t bits) const {
  if (bits == 0) return PluginSet();
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [built_bits, set] : built_) {
    if (built_bits == bits) return set;
  }
  PluginSet set;
  for (uint64_t left = bits; left != 0; left &= left - 1) {
    const size_t i = static_cast<size_t>(std::countr_zero(left));
    if (i < names_.size()) set.Insert(names_[i]);
  }
  if (built_.size() < kMaxBuilt) built_.emplace_back(bits, set);
  return set;
}

}  // namespace ksched::scheduler::framework::runtime
