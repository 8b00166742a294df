// The CycleState entries of PodTopologySpread.
//
// PreFilterState holds, per DoNotSchedule constraint, the matching-pod count
// of every eligible domain (DomainMatches) and the global minimum. The
// minimum stays exact under AddPod/RemovePod (one pod at a time, +-1) thanks
// to a histogram "count -> number of domains", built on the first update
// only: most cycles never update. DomainMatches are copy-on-write across
// Clone(), so cloning the state for nodes with nominated pods is O(constraints).
//
// PreScoreState is read-only after PreScore and shared by clones.
//
// Thread-safety: Filter/Score read concurrently; only the owner of a (cloned)
// state mutates it.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/plugins/podtopologyspread/constraint.h"
#include "pkg/scheduler/plugins/podtopologyspread/node_slots.h"
#include "pkg/scheduler/plugins/podtopologyspread/spread_counter.h"

namespace ksched::scheduler::plugins::podtopologyspread {

inline constexpr std::string_view kPreFilterStateKey = "PreFilterPodTopologySpread";
inline constexpr std::string_view kPreScoreStateKey = "PreScorePodTopologySpread";

// Matching pods per eligible topology domain of one constraint.
class DomainMatches {
 public:
  // No domains: the minimum is "infinite" (kube's MaxInt32), so no node is
  // skewed.
  static constexpr int64_t kNoMinimum = std::numeric_limits<int32_t>::max();

  DomainMatches() = default;
  // The domains with at least one eligible node in `counter`'s totals for
  // constraint `c`.
  DomainMatches(const SpreadCounter& counter, size_t c);

  // The domain's count; 0 when it is not an eligible domain.
  int64_t Count(std::string_view value) const;
  // The same by the value's id in the counter's index this was built from
  // (NodeSlots' ids; Add keeps them).
  int64_t CountById(int32_t id) const {
    return id < 0 || static_cast<size_t>(id) >= count_.size() || !eligible_[id] ? 0 : count_[id];
  }
  int32_t num_domains() const { return num_domains_; }
  // The smallest count over eligible domains; kNoMinimum when none.
  int64_t min_match() const { return min_; }
  // Adds `delta` to the domain of `value`, making it eligible if it was not.
  void Add(const std::string& value, int64_t delta);
  // value -> count of every eligible domain (tests, debugging).
  std::map<std::string, int64_t> Entries() const;

 private:
  void BuildHistogram();

  std::shared_ptr<const ValueIndex> index_ = std::make_shared<ValueIndex>();
  std::vector<int64_t> count_;
  std::vector<uint8_t> eligible_;
  int32_t num_domains_ = 0;
  int64_t min_ = kNoMinimum;
  bool histogram_built_ = false;
  std::unordered_map<int64_t, int32_t> histogram_;  // count -> domains
};

class PreFilterState final : public framework::StateData {
 public:
  std::shared_ptr<framework::StateData> Clone() const override { return std::make_shared<PreFilterState>(*this); }
  // Filter reads it (preemption's Filter runs too), sized by the cluster.
  bool ReadAfterSchedulingCycle() const override { return false; }

  // Shared, immutable.
  std::shared_ptr<const std::vector<Constraint>> constraints;
  // Per constraint: whether it selects the incoming pod itself.
  std::shared_ptr<const std::vector<uint8_t>> self_match;
  // The value ids of the nodes PreFilter counted (ids of the DomainMatches'
  // indexes), so Filter reads no labels for them.
  std::shared_ptr<const NodeSlots> slots;

  const DomainMatches& domains(size_t c) const { return *domains_[c]; }
  DomainMatches& mutable_domains(size_t c) {
    // Nobody else can start sharing it: that needs a reference to this state.
    if (domains_[c].use_count() != 1) domains_[c] = std::make_shared<DomainMatches>(*domains_[c]);
    return *domains_[c];
  }
  void AddDomains(DomainMatches d) { domains_.push_back(std::make_shared<DomainMatches>(std::move(d))); }

 private:
  std::vector<std::shared_ptr<DomainMatches>> domains_;
};

// Create with std::make_shared.
class PreScoreState final : public framework::StateData, public std::enable_shared_from_this<PreScoreState> {
 public:
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<PreScoreState>(shared_from_this());
  }
  // Score reads it, sized by the cluster.
  bool ReadAfterSchedulingCycle() const override { return false; }

  // Whether the scored node `slot` (a slot of `slots`) lacks a required
  // topology key.
  bool IgnoredSlot(int32_t slot) const { return !ignored_slots.empty() && ignored_slots[slot] != 0; }
  // The matching pods of the domain `id` (an id of indexes[c]) of a
  // per-domain constraint; 0 for a domain without eligible nodes.
  int64_t CountById(size_t c, int32_t id) const {
    return id < 0 || static_cast<size_t>(id) >= value_counts[c].size() ? 0 : value_counts[c][id];
  }
  // The same by value (tests, and nodes that are not in `slots`).
  int64_t Count(size_t c, std::string_view value) const {
    return indexes[c] == nullptr ? 0 : CountById(c, indexes[c]->Find(value));
  }

  std::vector<Constraint> constraints;
  // Per constraint: 1 when counted per domain; 0 for hostname constraints,
  // counted per node in Score.
  std::vector<uint8_t> per_domain;
  // Names of the scored nodes lacking a required topology key; they score 0.
  // Views of the snapshot's node names, valid for the cycle.
  std::unordered_set<std::string_view> ignored_nodes;
  // The same by slot of `slots` (empty when no node is ignored).
  std::vector<uint8_t> ignored_slots;
  // The nodes' value ids, from the counter PreScore synced.
  std::shared_ptr<const NodeSlots> slots;
  // Per constraint (null for per-node constraints): the counter's index of
  // values, and matching pods by value id.
  std::vector<std::shared_ptr<const ValueIndex>> indexes;
  std::vector<std::vector<int64_t>> value_counts;
  // Per constraint: topology domains among the scored nodes (kube's topoSize;
  // for per-node constraints, the scored nodes).
  std::vector<size_t> scored_domains;
  // Per constraint: log(domains + 2), so that counts in small topologies are
  // not watered down by big ones.
  std::vector<double> normalizing_weights;
  // The incoming pod's namespace, for counting on hostname constraints.
  std::string namespace_;
};

}  // namespace ksched::scheduler::plugins::podtopologyspread
