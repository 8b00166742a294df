// SpreadCounter: how many matching pods every topology domain holds, for one
// set of constraints, kept up to date across scheduling cycles.
//
// kube-scheduler recounts every pod on every node in each PreFilter and
// PreScore. Between two cycles, though, only a few NodeInfos change (the node
// that received the last assumed pod, nodes whose pods were added or
// deleted), and NodeInfo::generation() changes exactly when a NodeInfo does.
// A SpreadCounter therefore remembers, per position of the snapshot's node
// list, which NodeInfo (address and generation) it counted and what that node
// contributed; Sync() re-counts only the positions whose NodeInfo differs and
// adjusts the per-domain totals. The result is identical to a full recount.
//
// Each node contributes, per constraint, either nothing (the node lacks a
// topology key that must be present, or a Honor policy excludes it) or one
// eligible node and its matching-pod count to the domain of its topology
// value. Topology values are interned per constraint into dense ids
// (ValueIndex); an index is published copy-on-write, so CycleStates that hold
// an older index keep seeing a consistent one. The counter also records, per
// node, the id of its value for every counted constraint whether or not the
// node contributes (NodeSlots, published the same way), so that Filter and
// Score need not read labels.
//
// Complexity: Sync is O(nodes) pointer comparisons plus, for changed nodes,
// O(pods on the node x constraints); many changed nodes are re-counted in
// parallel.
//
// Thread-safety: none; the owner (the plugin) serializes access. Published
// ValueIndex objects are immutable and may be read concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/plugins/podtopologyspread/constraint.h"
#include "pkg/scheduler/plugins/podtopologyspread/node_slots.h"
#include "pkg/util/parallelizer.h"

namespace ksched::scheduler::plugins::podtopologyspread {

// Topology values <-> dense ids. Copyable (a copy is independent).
class ValueIndex {
 public:
  ValueIndex() = default;
  ValueIndex(const ValueIndex& other);
  ValueIndex& operator=(const ValueIndex&) = delete;

  // The id of `value`, -1 when absent. Never allocates.
  int32_t Find(std::string_view value) const;
  // The id of `value`, added if new.
  int32_t Intern(const std::string& value);
  const std::string& Value(int32_t id) const { return *values_[id]; }
  int32_t size() const { return static_cast<int32_t>(values_.size()); }

 private:
  // Transparent, so Find(string_view) needs no temporary string.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> ids_;
  std::vector<const std::string*> values_;  // keys of ids_ (node-based, stable)
};

class SpreadCounter {
 public:
  struct Options {
    std::vector<Constraint> constraints;
    // Per constraint: false leaves it uncounted (no domain, no count).
    std::vector<bool> counted;
    // A node lacking any constraint's topology key contributes nothing; else
    // a missing key counts as the value "".
    bool require_all_topology_keys = true;
    // Only pods of this namespace count.
    std::string namespace_;
  };

  SpreadCounter(Options options, NodeInclusion inclusion);

  // Brings the totals up to date with `nodes` (see the header comment).
  void Sync(const framework::NodeInfoList& nodes, util::Parallelizer& parallelizer);

  size_t num_constraints() const { return options_.constraints.size(); }
  // The current index of constraint `c`'s values; later Syncs never change a
  // published index, they replace it.
  std::shared_ptr<const ValueIndex> index(size_t c) const { return totals_[c].index; }
  // Per domain id of constraint `c`: eligible nodes, and matching pods.
  const std::vector<int32_t>& domain_nodes(size_t c) const { return totals_[c].nodes; }
  const std::vector<int64_t>& domain_pods(size_t c) const { return totals_[c].pods; }
  // The synced list's slots: per node and constraint, the id (in index(c))
  // of the node's topology value -- also for nodes that contribute nothing
  // --, NodeSlots::kNoValue when it lacks the key, kNotInterned for an
  // uncounted constraint. Later Syncs never change a published NodeSlots,
  // they replace it.
  std::shared_ptr<const NodeSlots> slots() const { return slots_; }
  // Nodes re-counted by the last Sync (for tests and benchmarks).
  size_t last_recounted() const { return last_recounted_; }
  // Whether most interned values are stale (no eligible node has them any
  // more): indexes only grow, so after much node churn the owner should
  // start afresh.
  bool NeedsRebuild() const { return interned_ > kMinValuesToRebuild && interned_ > 4 * live_values_; }
  static constexpr size_t kMinValuesToRebuild = 1024;

 private:
  struct Totals {
    std::shared_ptr<ValueIndex> index = std::make_shared<ValueIndex>();
    std::vector<int32_t> nodes;
    std::vector<int64_t> pods;
    // Per id: slot references to it (as a node's value or domain).
    std::vector<int32_t> refs;
  };
  // What one node holds per constraint: its label value (nullptr: no such
  // label), the value of the domain it contributes to (nullptr: none) and
  // the count it contributes.
  struct Contribution {
    const std::string* label = nullptr;
    const std::string* domain = nullptr;
    int32_t count = 0;
  };

  // What node `ni` contributes; `out` has num_constraints() entries.
  void Count(const framework::NodeInfo& ni, Contribution* out) const;
  // Takes slot i's contribution and value references out of the totals
  // (leaves slots_ alone).
  void Remove(size_t slot);
  int32_t Intern(size_t c, const std::string& value);
  void Ref(size_t c, int32_t id, int32_t delta);
  // slots_, copied first if a CycleState may hold it.
  NodeSlots& MutableSlots();

  const Options options_;
  const NodeInclusion inclusion_;
  std::vector<Totals> totals_;
  // Per slot (position in the node list): the NodeInfo counted and its
  // generation, and per constraint the domain id (-1: none) and count. The
  // slot's value ids are in slots_.
  std::vector<const framework::NodeInfo*> slot_node_;
  std::vector<int64_t> slot_generation_;
  std::vector<int32_t> slot_domain_;
  std::vector<int32_t> slot_count_;
  std::shared_ptr<NodeSlots> slots_;
  size_t last_recounted_ = 0;
  // Values interned over all constraints, and those some slot refers to.
  size_t interned_ = 0;
  size_t live_values_ = 0;
};

}  // namespace ksched::scheduler::plugins::podtopologyspread
