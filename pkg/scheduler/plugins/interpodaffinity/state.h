// The CycleState entries of InterPodAffinity: what PreFilter computes once per
// pod for Filter (and PreFilterExtensions update), and what PreScore computes
// for Score and NormalizeScore.
//
// PreFilterState's three tables are copy-on-write: Clone() shares them, and
// the first AddPod/RemovePod on a clone copies the table it changes, so the
// framework can clone the state for every node with nominated pods without
// copying thousands of entries.
//
// Thread-safety: Filter/Score read a state concurrently; only the thread that
// owns a (cloned) state mutates it, as CycleState requires.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/affinity_term.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/plugins/interpodaffinity/pair_counts.h"

namespace ksched::scheduler::plugins::interpodaffinity {

inline constexpr std::string_view kPreFilterStateKey = "PreFilterInterPodAffinity";
inline constexpr std::string_view kPreScoreStateKey = "PreScoreInterPodAffinity";

// The incoming pod's required terms, with namespace selectors already
// resolved into namespace names (so matching never needs namespace labels).
struct IncomingRequiredTerms {
  std::vector<framework::AffinityTerm> affinity;
  std::vector<framework::AffinityTerm> anti_affinity;
  // Per term, the index of its topology key in PreFilterState::keys.
  std::vector<size_t> affinity_key_slots;
  std::vector<size_t> anti_affinity_key_slots;
};

// The namespace labels to match a term against when they cannot matter: the
// incoming pod's terms, whose namespace selectors are already resolved.
inline const api::StringMap& NoNamespaceLabels() {
  static const api::StringMap empty;
  return empty;
}

class PreFilterState final : public framework::StateData {
 public:
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreFilterState>(*this);
  }
  // Filter reads it (preemption's Filter runs too), sized by the cluster.
  bool ReadAfterSchedulingCycle() const override { return false; }

  // (topology pair) -> number of existing pods whose required anti-affinity
  // terms match the incoming pod.
  const PairCounts& existing_anti_affinity_counts() const { return *existing_anti_affinity_counts_; }
  // (topology pair) -> existing pods matching all the incoming pod's
  // required affinity terms, counted once per term.
  const PairCounts& affinity_counts() const { return *affinity_counts_; }
  // (topology pair) -> existing pods matching each of the incoming pod's
  // required anti-affinity terms.
  const PairCounts& anti_affinity_counts() const { return *anti_affinity_counts_; }
  PairCounts& mutable_existing_anti_affinity_counts() { return Own(existing_anti_affinity_counts_); }
  PairCounts& mutable_affinity_counts() { return Own(affinity_counts_); }
  PairCounts& mutable_anti_affinity_counts() { return Own(anti_affinity_counts_); }
  void set_existing_anti_affinity_counts(PairCounts c) { existing_anti_affinity_counts_ = Make(std::move(c)); }
  void set_affinity_counts(PairCounts c) { affinity_counts_ = Make(std::move(c)); }
  void set_anti_affinity_counts(PairCounts c) { anti_affinity_counts_ = Make(std::move(c)); }

  // Shared, immutable across clones.
  std::shared_ptr<const IncomingRequiredTerms> terms;
  // The incoming pod's namespace labels (for existing pods' namespace
  // selectors).
  std::shared_ptr<const api::StringMap> namespace_labels;
  // Whether the incoming pod matches all of its own required affinity terms
  // (the first-pod-of-a-group exception).
  bool matches_own_affinity = false;
  // The distinct topology keys Filter reads from a node -- the terms' keys,
  // then the keys of the existing anti-affinity table -- so each node label
  // is looked up once per node.
  std::vector<std::string> keys;

  // The index of `key` in `keys`, appended if absent.
  size_t KeySlot(const std::string& key) {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return i;
    }
    keys.push_back(key);
    return keys.size() - 1;
  }

 private:
  static std::shared_ptr<PairCounts> Make(PairCounts c) { return std::make_shared<PairCounts>(std::move(c)); }
  static PairCounts& Own(std::shared_ptr<PairCounts>& t) {
    // Unique ownership cannot change under us: another holder would need a
    // reference to this state to make a new copy.
    if (t.use_count() != 1) t = std::make_shared<PairCounts>(*t);
    return *t;
  }

  std::shared_ptr<PairCounts> existing_anti_affinity_counts_ = std::make_shared<PairCounts>();
  std::shared_ptr<PairCounts> affinity_counts_ = std::make_shared<PairCounts>();
  std::shared_ptr<PairCounts> anti_affinity_counts_ = std::make_shared<PairCounts>();
};

// Read-only after PreScore; clones share it. Create with std::make_shared.
class PreScoreState final : public framework::StateData, public std::enable_shared_from_this<PreScoreState> {
 public:
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<PreScoreState>(shared_from_this());
  }
  // Score reads it, sized by the cluster.
  bool ReadAfterSchedulingCycle() const override { return false; }

  // (topology pair) -> summed weights; positive attracts, negative repels.
  PairCounts topology_score;
};

}  // namespace ksched::scheduler::plugins::interpodaffinity
