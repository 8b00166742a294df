// PluginSet: a small set of plugin names (kube's sets.Set[string] for
// UnschedulablePlugins / PendingPlugins).
//
// Kept as a sorted vector: a pod is rejected by a handful of plugins at
// most, so lookups are a short scan, iteration order is deterministic.
// Copies share the vector until one of them changes (copy on write), so a
// framework can hand the same skip set to every cycle without allocating.
//
// Thread-safety: a value type. Copies that share a vector may be read and
// destroyed on different threads; each copy has one writer at a time.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <memory>
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
    const std::vector<std::string>& names = this->names();
    auto it = std::lower_bound(names.begin(), names.end(), name);
    if (it != names.end() && *it == name) return;
    const auto at = it - names.begin();
    std::vector<std::string>& own = Own();
    own.insert(own.begin() + at, std::string(name));
  }
  // A linear scan (string_view equality compares lengths first): cheaper
  // than a binary search's ordered compares over the one to three names a
  // pod carries, and the queueing-hint pass asks for every hint of every
  // event.
  bool Has(std::string_view name) const {
    return std::find(names().begin(), names().end(), name) != names().end();
  }
  void Erase(std::string_view name) {
    const std::vector<std::string>& names = this->names();
    auto it = std::lower_bound(names.begin(), names.end(), name);
    if (it == names.end() || *it != name) return;
    const auto at = it - names.begin();
    std::vector<std::string>& own = Own();
    own.erase(own.begin() + at);
  }
  PluginSet Union(const PluginSet& o) const {
    if (o.empty()) return *this;
    if (empty()) return o;
    PluginSet out;
    std::vector<std::string>& names = out.Own();
    names.reserve(size() + o.size());
    std::set_union(begin(), end(), o.begin(), o.end(), std::back_inserter(names));
    return out;
  }
  void Clear() { names_.reset(); }

  size_t size() const { return names().size(); }
  bool empty() const { return names().empty(); }
  std::vector<std::string>::const_iterator begin() const { return names().begin(); }
  std::vector<std::string>::const_iterator end() const { return names().end(); }
  const std::vector<std::string>& names() const { return names_ ? *names_ : Empty(); }

  bool operator==(const PluginSet& o) const { return names() == o.names(); }

 private:
  static const std::vector<std::string>& Empty() {
    static const std::vector<std::string> empty;
    return empty;
  }
  // The vector to change, copied first when another PluginSet shares it. A
  // count of one cannot rise under us: another holder would need this
  // object to copy from, and it has one writer.
  std::vector<std::string>& Own() {
    if (!names_) {
      names_ = std::make_shared<std::vector<std::string>>();
    } else if (names_.use_count() != 1) {
      names_ = std::make_shared<std::vector<std::string>>(*names_);
    }
    return *names_;
  }

  std::shared_ptr<std::vector<std::string>> names_;  // sorted, unique; null: empty
};

}  // namespace ksched::scheduler::framework
