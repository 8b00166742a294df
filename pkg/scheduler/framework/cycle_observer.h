// CycleObserver: an optional listener to what a scheduling cycle decided
// for each node — Filter's verdicts, every Score plugin's raw and
// normalized scores — for tools that explain placements (`ksched simulate
// --explain`, the daemon's attempt record). Without one, each call site is
// one null check: the framework keeps no raw score unless one is set.
//
// Calls come from the scheduling thread, after the parallel loops ended,
// once per cycle and extension point; the arguments live only for the
// call. A pod retried in a later cycle is reported again. The daemon sets
// one only with --explain-record-size > 0 (scheduler/attempt_record.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/listers.h"

namespace ksched::scheduler::framework {

class CycleObserver {
 public:
  virtual ~CycleObserver() = default;

  // Filter's outcome for `pod`: the nodes found feasible, and the statuses
  // of the rejected ones (explicit per node; the absent-nodes status covers
  // nodes PreFilter rejected or left out of its node subset). Nodes in
  // neither were not evaluated (Filter stops at numFeasibleNodesToFind; a
  // feasible nominated node is tried alone).
  virtual void ObserveFilter(const api::Pod& pod, const NodeInfoList& feasible, const NodeToStatus& rejected) = 0;

  // Score's outcome for `pod` over `nodes`, read through a view: an
  // observer reads only what it keeps (the attempt record: the raw and
  // normalized scores of its top nodes, chosen from the totals), so no
  // per-plugin list is copied for it. Valid only during the call.
  struct ScoreView {
    const NodeInfoList& nodes;
    // Per plugin that ran (profile order): name and weight.
    const std::vector<std::string_view>& plugins;
    const std::vector<int64_t>& weights;
    // normalized[j][i]: plugin j's score for node i after its NormalizeScore
    // (its raw score without one).
    const std::vector<NodeScoreList>& normalized;
    // raw_normalized[j]: plugin j's scores before its NormalizeScore, one per
    // node; empty for a plugin without one (raw == normalized).
    const std::vector<std::vector<int64_t>>& raw_normalized;
    // Node i's sum of normalized * weight, as host selection sees it.
    const std::vector<int64_t>& totals;

    int64_t Raw(size_t j, size_t i) const {
      return raw_normalized[j].empty() ? normalized[j][i].score : raw_normalized[j][i];
    }
    int64_t Normalized(size_t j, size_t i) const { return normalized[j][i].score; }
  };
  virtual void ObserveScores(const api::Pod& pod, const ScoreView& scores) = 0;

  // How the scheduling cycle of `pod` ended, after PostFilter: the last
  // call for the cycle, from the scheduling thread. Default: ignored.
  struct Outcome {
    int64_t cycle = 0;
    std::string_view profile;
    // Assumed on `node` (Permit may still hold it); else the failure.
    bool scheduled = false;
    std::string_view node;
    // Unschedulable (a rejection) rather than an internal error.
    bool unschedulable = false;
    // The FailedScheduling message ("0/5 nodes are available: ...").
    std::string_view message;
    // Nodes in the snapshot (0 when the cycle failed before Filter).
    int num_all_nodes = 0;
    int evaluated_nodes = 0;
    int feasible_nodes = 0;
    // PostFilter (preemption) nominated this node; empty: none.
    std::string_view nominated_node;
  };
  virtual void ObserveOutcome(const api::Pod& /*pod*/, const Outcome& /*outcome*/) {}

  // A victim evicted for `preemptor` on `node`. Any thread (asynchronous
  // preemption evicts after the cycle). Default: ignored.
  virtual void ObservePreemptionVictim(const api::Pod& /*preemptor*/, const api::Pod& /*victim*/,
                                       std::string_view /*node*/) {}

  // The binding cycle of a pod assumed by its latest cycle failed (Permit
  // rejected it, PreBind or Bind failed) with `message`. A binding
  // thread. Default: ignored.
  virtual void ObserveBindingFailure(const api::Pod& /*pod*/, std::string_view /*message*/) {}
};

}  // namespace ksched::scheduler::framework
