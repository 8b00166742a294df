// Opportunistic batching (kube 1.35+, gate OpportunisticBatching): when a
// pod follows, in the very next scheduling cycle and within 500 ms, a pod of
// the same signature (framework/pod_signature.h) that was placed by a full
// cycle, it is offered the next node of that pod's ranking (a "hint")
// instead of filtering and scoring every node. The scheduling cycle checks
// the hint with Filter, as it checks a nominated node, and takes it when it
// passes.
//
// The ranking is only valid while nothing but the previous pod changed: so
// the previous pod's node must now reject the new pod (1.35, 1.36); from
// 1.37 (switch BatchRescoresChosenNode) a previous node that still fits is
// scored again for the new pod and put back into the ranking, and a pod with
// a nominated node does not batch.
//
// With the default profile nothing batches: PodTopologySpread's
// system-default constraints make every pod unsignable. Profiles without
// them (or without PodTopologySpread) batch runs of alike pods.
//
// SortedScoredNodes: kube's ranking, a max-heap of nodes by total score
// built and popped as Go's container/heap does. Every node's tie-breaker is
// 0 (kube sets one only for extenders' nodes), so equal totals come out in
// the heap's own order: deterministic for a given input order.
//
// Thread-safety: one OpportunisticBatch per profile, used only by the
// scheduling thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/metrics/scheduler_metrics.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/runtime/framework.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler {

class SortedScoredNodes {
 public:
  struct Entry {
    std::string name;
    int64_t total = 0;
    // Raw scores by plugin (parallel to the ranking's plugin names), for
    // rescoring.
    std::vector<int64_t> raw;
  };

  // Builds the heap (Go's heap.Init). O(n).
  explicit SortedScoredNodes(std::vector<Entry> entries);

  // The best node, removed (Go's heap.Pop). Len() > 0. O(log n).
  Entry Pop();
  size_t Len() const { return heap_.size(); }
  // The entries in heap order.
  const std::vector<Entry>& Unordered() const { return heap_; }

 private:
  // Go's heap.down, a higher total above.
  void Down(size_t i, size_t n);

  std::vector<Entry> heap_;
};

// kube's flush reasons and attempt results (label values).
namespace batch {
inline constexpr std::string_view kNoHint = "no_hint";
inline constexpr std::string_view kHint = "hint";  // get_node_hint_duration_seconds
inline constexpr std::string_view kHintUsed = "hint_used";
inline constexpr std::string_view kHintNotUsed = "hint_not_used";
inline constexpr std::string_view kFlushPodSkipped = "pod_skipped";
inline constexpr std::string_view kFlushPodNominated = "pod_nominated";
inline constexpr std::string_view kFlushNodeMissing = "node_missing";
inline constexpr std::string_view kFlushNodeNotFull = "node_not_full";
inline constexpr std::string_view kFlushEmptyList = "empty_list";
inline constexpr std::string_view kFlushExpired = "expired";
inline constexpr std::string_view kFlushPodIncompatible = "pod_incompatible";
inline constexpr std::string_view kFlushPodNotBatchable = "pod_not_batchable";
inline constexpr std::string_view kFlushFilterError = "filter_error";
inline constexpr std::string_view kFlushPreScoreError = "prescore_error";
inline constexpr std::string_view kFlushRescoreError = "rescore_error";
inline constexpr std::string_view kFlushNormalizeError = "normalize_error";
inline constexpr util::Duration kMaxAge = std::chrono::milliseconds(500);
}  // namespace batch

class OpportunisticBatch {
 public:
  // `fwk`, `clock` and `metrics` (may be null) outlive the batch.
  OpportunisticBatch(framework::runtime::Framework& fwk, const util::Clock& clock, metrics::SchedulerMetrics* metrics);

  // The hint for `pod` in scheduling cycle `cycle` (after PreFilter ran on
  // `state`), or "" when the ranking cannot serve it. `signature`: the
  // pod's, nullopt when unsignable.
  std::string GetNodeHint(framework::CycleState& state, const api::Pod& pod,
                          const std::optional<std::string>& signature, int64_t cycle);

  // After a successful scheduling cycle: `chosen` was picked (`hinted` is
  // GetNodeHint's answer) and `others_len` other nodes were scored;
  // `others` is their ranking with its plugin names, built only for a
  // signed pod (nullopt otherwise).
  void StoreScheduleResults(const std::optional<std::string>& signature, std::string_view hinted,
                            std::string_view chosen, size_t others_len, std::optional<SortedScoredNodes> others,
                            std::vector<std::string> plugins, int64_t cycle);

  // Pods placed on a hint so far (tests).
  int64_t BatchedPods() const { return batched_pods_; }

 private:
  bool StateEmpty() const { return !state_ || state_->nodes.Len() == 0; }
  // Whether the ranking may serve this pod; flushes (and counts why) when not.
  bool Compatible(const api::Pod& pod, const std::optional<std::string>& signature, int64_t cycle);
  // Filter on the previous pod's node: rejected, the ranking stands; from
  // 1.37 still fitting, that node is rescored into the ranking.
  bool RefreshCandidates(framework::CycleState& state, const api::Pod& pod);
  bool Rescore(framework::CycleState& state, const api::Pod& pod, const framework::NodeInfo& last);
  void Flush(std::string_view reason);

  struct State {
    std::string signature;
    SortedScoredNodes nodes;
    std::vector<std::string> plugins;  // the Score plugins of Entry::raw
    util::TimePoint created;
  };
  // The last cycle that stored results (kube never records a failed one:
  // a cycle in between breaks the chain).
  struct LastCycle {
    int64_t cycle = -1;
    std::string chosen_node;
  };

  framework::runtime::Framework& fwk_;
  const util::Clock& clock_;
  metrics::SchedulerMetrics* metrics_;
  const bool rescores_;
  std::optional<State> state_;
  LastCycle last_;
  int64_t batched_pods_ = 0;
};

}  // namespace ksched::scheduler
