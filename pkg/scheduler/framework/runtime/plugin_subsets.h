// PluginSubsets: the PluginSet of a subset of one extension point's plugins,
// chosen by their positions in its run list. Each distinct subset is built
// once and then handed out as a shared copy (PluginSet copies share their
// names), so the skip sets a framework records in every cycle allocate
// nothing after the first cycles.
//
// Positions 64 and beyond are named by SkippedPlugins itself (a run list that
// long is not expected; it stays correct, only slower).
//
// Thread-safety: Of() may be called concurrently (a mutex guards the built
// subsets). Complexity: Of() scans the built subsets, at most kMaxBuilt.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/scheduler/framework/plugin_set.h"

namespace ksched::scheduler::framework::runtime {

class PluginSubsets {
 public:
  // Subsets remembered; past that each new subset is built on every call.
  static constexpr size_t kMaxBuilt = 64;

  PluginSubsets() = default;
  explicit PluginSubsets(std::vector<std::string> names) : names_(std::move(names)) {}

  // The names at the positions whose bits are set (bit i: names[i], i < 64).
  PluginSet Of(uint64_t bits) const;

 private:
  std::vector<std::string> names_;
  mutable std::mutex mu_;
  mutable std::vector<std::pair<uint64_t, PluginSet>> built_;
};

// The plugins of a run list one cycle skipped, by position, turned into a
// PluginSet by the list's PluginSubsets.
class SkippedPlugins {
 public:
  void Add(size_t position, std::string_view name) {
    if (position < 64) {
      bits_ |= uint64_t{1} << position;
    } else {
      beyond_.Insert(name);
    }
  }
  // The skipped positions below 64.
  uint64_t bits() const { return bits_; }
  // The names of the positions past 64.
  const PluginSet& beyond() const { return beyond_; }
  PluginSet Set(const PluginSubsets& subsets) const {
    PluginSet set = subsets.Of(bits_);
    return beyond_.empty() ? set : set.Union(beyond_);
  }

 private:
  uint64_t bits_ = 0;
  PluginSet beyond_;
};

}  // namespace ksched::scheduler::framework::runtime
