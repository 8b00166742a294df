#include "pkg/scheduler/opportunistic_batch.h"

#include <utility>

#include "pkg/api/pod_helpers.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/node_selection.h"
#include "pkg/util/seconds.h"

namespace ksched::scheduler {

namespace rt = framework::runtime;

// ---------------------------------------------------------------- SortedScoredNodes

SortedScoredNodes::SortedScoredNodes(std::vector<Entry> entries) : heap_(std::move(entries)) {
  const size_t n = heap_.size();
  for (size_t i = n / 2; i-- > 0;) Down(i, n);
}

void SortedScoredNodes::Down(size_t i, size_t n) {
  GoHeapDown(
      i, n, [this](size_t a, size_t b) { return heap_[a].total > heap_[b].total; },
      [this](size_t a, size_t b) { std::swap(heap_[a], heap_[b]); });
}

SortedScoredNodes::Entry SortedScoredNodes::Pop() {
  const size_t n = heap_.size() - 1;
  std::swap(heap_[0], heap_[n]);
  Down(0, n);
  Entry top = std::move(heap_.back());
  heap_.pop_back();
  return top;
}

// ---------------------------------------------------------------- OpportunisticBatch

OpportunisticBatch::OpportunisticBatch(rt::Framework& fwk, const util::Clock& clock, metrics::SchedulerMetrics* metrics)
    : fwk_(fwk), clock_(clock), metrics_(metrics), rescores_(fwk.Features().batch_rescores_chosen_node) {}

void OpportunisticBatch::Flush(std::string_view reason) {
  if (metrics_ != nullptr && metrics_->BatchCacheFlushed() != nullptr) {
    metrics_->BatchCacheFlushed()->With({fwk_.ProfileName(), reason}).Increment();
  }
  KLOG_V(4, "OpportunisticBatch found unusable state: profile {}, reason {}", fwk_.ProfileName(), reason);
}

std::string OpportunisticBatch::GetNodeHint(framework::CycleState& state, const api::Pod& pod,
                                            const std::optional<std::string>& signature, int64_t cycle) {
  const util::TimePoint start = clock_.Now();
  std::string hint;
  if (Compatible(pod, signature, cycle) && RefreshCandidates(state, pod)) hint = state_->nodes.Pop().name;
  if (metrics_ != nullptr && metrics_->GetNodeHintDuration() != nullptr) {
    if (hint.empty()) metrics_->BatchAttempts()->With({fwk_.ProfileName(), batch::kNoHint}).Increment();
    metrics_->GetNodeHintDuration()
        ->With({hint.empty() ? batch::kNoHint : batch::kHint, fwk_.ProfileName()})
        .Observe(util::Seconds(clock_.Since(start)));
  }
  if (!hint.empty()) {
    KLOG_V(3, "OpportunisticBatch provided node hint {} for pod {} (profile {}, {} nodes remain)", hint,
           api::PodKey(pod), fwk_.ProfileName(), state_->nodes.Len());
  }
  return hint;
}

bool OpportunisticBatch::Compatible(const api::Pod& pod, const std::optional<std::string>& signature, int64_t cycle) {
  if (StateEmpty()) return false;
  // Another pod (of any profile) was attempted in between.
  if (cycle != last_.cycle + 1) {
    Flush(batch::kFlushPodSkipped);
    return false;
  }
  if (rescores_ && !pod.status.nominated_node_name.empty()) {
    Flush(batch::kFlushPodNominated);
    return false;
  }
  if (!signature || *signature != state_->signature) {
    Flush(batch::kFlushPodIncompatible);
    return false;
  }
  if (clock_.Now() > state_->created + batch::kMaxAge) {
    Flush(batch::kFlushExpired);
    return false;
  }
  return true;
}

bool OpportunisticBatch::RefreshCandidates(framework::CycleState& state, const api::Pod& pod) {
  util::StatusOr<const framework::NodeInfo*> last = fwk_.SnapshotSharedLister().NodeInfos().Get(last_.chosen_node);
  if (!last.ok() || *last == nullptr) {
    Flush(batch::kFlushNodeMissing);
    return false;
  }
  // The ranking stays valid only while the previous pod's node cannot take
  // this one: every other node is as it was when it was scored.
  framework::Status s = fwk_.RunFilterPlugins(state, pod, **last);
  if (s.IsRejected()) return true;
  if (!rescores_) {
    Flush(batch::kFlushNodeNotFull);
    return false;
  }
  if (!s.IsSuccess()) {
    Flush(batch::kFlushFilterError);
    return false;
  }
  return Rescore(state, pod, **last);
}

bool OpportunisticBatch::Rescore(framework::CycleState& state, const api::Pod& pod, const framework::NodeInfo& last) {
  const util::TimePoint start = clock_.Now();
  if (metrics_ != nullptr && metrics_->BatchRescoreAttempts() != nullptr) {
    metrics_->BatchRescoreAttempts()->With({fwk_.ProfileName()}).Increment();
  }
  struct ObserveDuration {
    OpportunisticBatch& b;
    util::TimePoint start;
    ~ObserveDuration() {
      if (b.metrics_ != nullptr && b.metrics_->BatchRescoreDuration() != nullptr) {
        b.metrics_->BatchRescoreDuration()->With({b.fwk_.ProfileName()}).Observe(util::Seconds(b.clock_.Since(start)));
      }
    }
  } observe{*this, start};

  // The ranked nodes as they are now, the previous pod's node last.
  const std::vector<SortedScoredNodes::Entry>& cached = state_->nodes.Unordered();
  framework::NodeInfoList infos;
  infos.reserve(cached.size() + 1);
  for (const SortedScoredNodes::Entry& e : cached) {
    util::StatusOr<const framework::NodeInfo*> ni = fwk_.SnapshotSharedLister().NodeInfos().Get(e.name);
    if (!ni.ok() || *ni == nullptr) {
      Flush(batch::kFlushNodeMissing);
      return false;
    }
    infos.push_back(*ni);
  }
  infos.push_back(&last);

  std::unique_ptr<framework::CycleState> rescore_state = state.Clone();
  if (!fwk_.RunPreScorePlugins(*rescore_state, pod, infos).IsSuccess()) {
    Flush(batch::kFlushPreScoreError);
    return false;
  }
  auto [fresh, st] = fwk_.RunRawScorePlugins(*rescore_state, pod, last);
  if (!st.IsSuccess()) {
    Flush(batch::kFlushRescoreError);
    return false;
  }
  std::vector<std::string_view> names;
  names.reserve(infos.size());
  for (const SortedScoredNodes::Entry& e : cached) names.push_back(e.name);
  names.push_back(last.node_name());
  // A plugin absent from a node's raw scores counts 0, as in kube's lookup
  // by plugin name.
  auto raw = [&](std::string_view plugin, size_t node) -> int64_t {
    if (node == cached.size()) {
      for (size_t j = 0; j < fresh.plugins.size(); ++j) {
        if (fresh.plugins[j] == plugin) return fresh.scores[j];
      }
      return 0;
    }
    for (size_t j = 0; j < state_->plugins.size(); ++j) {
      if (state_->plugins[j] == plugin) return cached[node].raw[j];
    }
    return 0;
  };
  auto [totals, nst] = fwk_.NormalizeScores(*rescore_state, pod, names, raw);
  if (!nst.IsSuccess()) {
    Flush(batch::kFlushNormalizeError);
    return false;
  }
  std::vector<SortedScoredNodes::Entry> entries;
  entries.reserve(infos.size());
  for (size_t i = 0; i < cached.size(); ++i) {
    entries.push_back(SortedScoredNodes::Entry{cached[i].name, totals[i], cached[i].raw});
  }
  // The rescored node's raw scores, in the ranking's plugin order.
  std::vector<int64_t> last_raw(state_->plugins.size(), 0);
  for (size_t j = 0; j < state_->plugins.size(); ++j) last_raw[j] = raw(state_->plugins[j], cached.size());
  entries.push_back(SortedScoredNodes::Entry{std::string(last.node_name()), totals.back(), std::move(last_raw)});
  state_->nodes = SortedScoredNodes(std::move(entries));
  return true;
}

void OpportunisticBatch::StoreScheduleResults(const std::optional<std::string>& signature, std::string_view hinted,
                                              std::string_view chosen, size_t others_len,
                                              std::optional<SortedScoredNodes> others, std::vector<std::string> plugins,
                                              int64_t cycle) {
  const util::TimePoint start = clock_.Now();
  last_ = LastCycle{cycle, std::string(chosen)};
  auto observe = [&] {
    if (metrics_ != nullptr && metrics_->StoreScheduleResultsDuration() != nullptr) {
      metrics_->StoreScheduleResultsDuration()->With({fwk_.ProfileName()}).Observe(util::Seconds(clock_.Since(start)));
    }
  };
  auto count = [&](std::string_view result) {
    if (metrics_ != nullptr && metrics_->BatchAttempts() != nullptr) {
      metrics_->BatchAttempts()->With({fwk_.ProfileName(), result}).Increment();
    }
  };
  if (!hinted.empty() && hinted == chosen) {
    // Placed on the hint: the rest of the ranking serves the next pod.
    count(batch::kHintUsed);
    ++batched_pods_;
    observe();
    return;
  }
  if (!hinted.empty()) count(batch::kHintNotUsed);
  if (signature && others && others->Len() > 0) {
    state_ = State{*signature, std::move(*others), std::move(plugins), clock_.Now()};
  } else {
    Flush(others_len == 0 ? batch::kFlushEmptyList : batch::kFlushPodNotBatchable);
    state_.reset();
  }
  observe();
}

}  // namespace ksched::scheduler
