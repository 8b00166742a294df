// HitCounter: per-topology-pair totals of what every node of the snapshot
// contributes for one incoming pod "shape", kept up to date across scheduling
// cycles; HitCounterCache: the plugin's few most recently used counters.
//
// InterPodAffinity's PreFilter needs, for the incoming pod, (a) the topology
// pairs of existing pods whose anti-affinity matches it and (b) the pairs of
// existing pods matching its own terms. kube recomputes both by visiting
// every pod in every cycle. Between cycles, though, only a few NodeInfos
// change, and NodeInfo::generation() changes exactly when one does. A
// HitCounter remembers, per position of the node list, which NodeInfo
// (address, generation) it counted and the pairs that node contributed; Sync
// re-counts only the positions whose NodeInfo differs. The result is the
// same as a full recount, provided the count function gives the same answer
// for the same NodeInfo -- the plugin guarantees it by keying counters by a
// signature of everything the function reads from the incoming pod.
//
// Pairs are interned in a PairIndex shared (copy-on-write) with the states
// built from the counter.
//
// Complexity: Sync is O(nodes) pointer comparisons plus the count function
// for changed nodes (run in parallel when many changed).
//
// Thread-safety: none; the owner serializes use.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/plugins/interpodaffinity/pair_counts.h"
#include "pkg/util/parallelizer.h"

namespace ksched::scheduler::plugins::interpodaffinity {

// `delta` added to (key, value) in table `table`, found on a node. The
// strings belong to the snapshot and are read during Sync only.
struct Hit {
  const std::string* key;
  const std::string* value;
  int32_t table;
  int64_t delta = 1;
};

class HitCounter {
 public:
  // Appends the hits of one node.
  using CountFn = std::function<void(const framework::NodeInfo&, std::vector<Hit>&)>;

  explicit HitCounter(int num_tables) : totals_(num_tables) {}

  void Sync(const framework::NodeInfoList& nodes, util::Parallelizer& parallelizer, const CountFn& count);

  // Table `table`'s totals as a PairCounts sharing the current index.
  PairCounts Table(int table) const { return PairCounts(index_, totals_[table]); }
  // Number of hits over all nodes, whatever their deltas (kube decides
  // whether scoring has anything to do by whether anything matched).
  int64_t total_hits() const { return total_hits_; }
  // Nodes re-counted by the last Sync.
  size_t last_recounted() const { return last_recounted_; }
  // Whether most interned pairs are stale (their nodes are gone): the index
  // only grows, so after much node churn the owner should start afresh.
  bool NeedsRebuild() const {
    const size_t interned = static_cast<size_t>(index_->size());
    return interned > kMinPairsToRebuild && interned > 4 * live_pairs_;
  }
  static constexpr size_t kMinPairsToRebuild = 1024;

 private:
  struct Entry {
    int32_t pair;
    int32_t table;
    int64_t count;
  };
  void Remove(size_t slot);
  int32_t Intern(const std::string& key, const std::string& value);

  std::shared_ptr<PairIndex> index_ = std::make_shared<PairIndex>();
  std::vector<std::vector<int64_t>> totals_;  // [table][pair]
  std::vector<const framework::NodeInfo*> slot_node_;
  std::vector<int64_t> slot_generation_;
  std::vector<std::vector<Entry>> slot_entries_;
  std::vector<int64_t> slot_hits_;
  int64_t total_hits_ = 0;
  // Per pair, the slots referring to it; pairs with at least one.
  std::vector<int32_t> pair_refs_;
  size_t live_pairs_ = 0;
  size_t last_recounted_ = 0;
};

// A least-recently-used set of counters by signature.
class HitCounterCache {
 public:
  explicit HitCounterCache(size_t capacity) : capacity_(capacity) {}
  // The counter for `signature` (with `num_tables` tables), created empty if
  // absent, evicting the least recently used one when full.
  HitCounter& Get(const std::string& signature, int num_tables);
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string signature;
    uint64_t last_use = 0;
    std::unique_ptr<HitCounter> counter;
  };
  const size_t capacity_;
  std::vector<Entry> entries_;
  uint64_t uses_ = 0;
};

}  // namespace ksched::scheduler::plugins::interpodaffinity
