// PluginSet: a small set of plugin names (kube's sets.Set[string] for
// UnschedulablePlugins / PendingPlugins).
//
// Kept as a sorted vector: a pod is rejected by a handful of plugins at
// most, so lookups are a short scan, iteration order is deterministic, and
// copies are cheap.
//
// Thread-safety: a value type.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::scheduler::framework {

class PluginSet {
 public:
  PluginSet() = default;
  PluginSet(std::initializer_list<std::string_view> names) {
    for (std::string_view n : names) Insert(n);
  }

  void Insert(std::string_view name) {
    auto it = std::lower_bound(names_.begin(), names_.end(), name);
    if (it == names_.end() || *it != name) names_.insert(it, std::string(name));
  }
  // A linear scan (string_view equality compares lengths first): cheaper
  // than a binary search's ordered compares over the one to three names a
  // pod carries, and the queueing-hint pass asks for every hint of every
  // event.
  bool Has(std::string_view name) const { return std::find(names_.begin(), names_.end(), name) != names_.end(); }
  void Erase(std::string_view name) {
    auto it = std::lower_bound(names_.begin(), names_.end(), name);
    if (it != names_.end() && *it == name) names_.erase(it);
  }
  PluginSet Union(const PluginSet& o) const {
    PluginSet out;
    out.names_.reserve(names_.size() + o.names_.size());
    std::set_union(names_.begin(), names_.end(), o.names_.begin(), o.names_.end(), std::back_inserter(out.names_));
    return out;
  }
  void Clear() { names_.clear(); }

  size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  std::vector<std::string>::const_iterator begin() const { return names_.begin(); }
  std::vector<std::string>::const_iterator end() const { return names_.end(); }
  const std::vector<std::string>& names() const { return names_; }

  bool operator==(const PluginSet& o) const = default;

 private:
  std::vector<std::string> names_;  // sorted, unique
};

}  // namespace ksched::scheduler::framework
