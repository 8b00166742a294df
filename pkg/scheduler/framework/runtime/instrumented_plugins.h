// Instrumented plugins: the wrappers a Framework puts around its plugin
// objects when it is built, one per plugin and extension point (kube's
// instrumented_plugins.go). A wrapper implements its extension point's
// interface by calling the plugin and recording what kube records about
// that call, so the framework's run loops call plugins and measure nothing:
//   - plugin_evaluation_total{plugin, extension_point, profile}: every call
//     of Filter and Score, and of PreFilter and PreScore unless the plugin
//     returned Skip (Score's calls are added per cycle: see below);
//   - plugin_execution_duration_seconds{plugin, extension_point, status}:
//     in sampled cycles (CycleState::ShouldRecordPluginMetrics(), 10 % of
//     them) every call the framework makes: PreFilter and its AddPod and
//     RemovePod, Filter, PostFilter, PreScore, Score and NormalizeScore,
//     Reserve, Unreserve, Permit, PreBind, Bind, PostBind. The status label
//     is the code the plugin returned (Success for the void methods).
// The per-node points (Filter, Score) run thousands of times a cycle on
// several threads: Filter counts into the calling thread's ThreadMetrics
// cells, both time with util::CycleClock into them, and are reported at the
// framework's next FlushMetrics. They are timed per run of nodes, the run's
// time shared evenly among its calls, where kube times each call: counts and
// sums are the same, and so are the buckets while a run takes less than the
// first bucket's 10 µs (a call takes tens of nanoseconds). Timing node by
// node made a sampled cycle cost twice an unsampled one. Their wrappers are
// final and defined here, so the loops' calls through them are direct and
// inlined (forced: measured 2 % of the in-process SchedulingBasic CPU as
// out-of-line calls): only the plugin's own call is virtual. The other
// points count on their resolved series at once and are timed with the
// injected Clock.
//
// Ownership: a wrapper refers to its plugin and to the Instrumentation,
// which must outlive it. Thread-safety: as the wrapped plugin's.
#pragma once

#include <bit>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/metrics_recorder.h"
#include "pkg/scheduler/framework/runtime/thread_metrics.h"
#include "pkg/util/clock.h"
#include "pkg/util/cycle_clock.h"

namespace ksched::scheduler::framework::runtime {

// What the wrappers of one framework record into.
struct Instrumentation {
  FrameworkMetricsRecorder* recorder = nullptr;
  const util::Clock* clock = nullptr;
  // The per-node cells; their slots are handed to the Filter and Score
  // wrappers.
  ThreadMetrics* per_node = nullptr;
  // Whether per-node durations are measured at all: false when the recorder
  // drops them, so that the CycleClock's calibration (a 5 ms busy wait) is
  // never paid (`ksched simulate` runs without metrics).
  bool time_per_node = false;
};

// Times one call with the injected clock in sampled cycles; Done reports it.
class SampledCall {
 public:
  SampledCall(const Instrumentation& in, const CycleState& state)
      : in_(in),
        state_(state),
        start_(state.ShouldRecordPluginMetrics() ? in.clock->Now() : util::TimePoint{}) {}
  void Done(std::string_view extension_point, std::string_view plugin, Code code) const {
    if (!state_.ShouldRecordPluginMetrics()) return;
    in_.recorder->ObservePluginDuration(extension_point, plugin, code,
                                        std::chrono::duration<double>(in_.clock->Now() - start_).count());
  }

 private:
  const Instrumentation& in_;
  const CycleState& state_;
  const util::TimePoint start_;
};

class InstrumentedPreFilterPlugin final : public PreFilterPlugin, public PreFilterExtensions {
 public:
  InstrumentedPreFilterPlugin(PreFilterPlugin& plugin, const Instrumentation& in, std::string_view profile);
  std::string_view Name() const override { return plugin_.Name(); }
  std::pair<PreFilterResult, Status> PreFilter(CycleState& state, const api::Pod& pod,
                                               const NodeInfoList& nodes) override;
  // This wrapper, when the plugin has extensions.
  PreFilterExtensions* GetPreFilterExtensions() override;
  Status AddPod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfoPtr& pod_info_to_add,
                const NodeInfo& node_info) override;
  Status RemovePod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfoPtr& pod_info_to_remove,
                   const NodeInfo& node_info) override;

 private:
  PreFilterPlugin& plugin_;
  const Instrumentation& in_;
  std::unique_ptr<EvaluationCounter> evaluations_;
};

// Per node: counts into, and times into, the calling thread's cells.
class InstrumentedFilterPlugin final : public FilterPlugin {
 public:
  // `slot`: the plugin's counter and duration series in in.per_node.
  InstrumentedFilterPlugin(FilterPlugin& plugin, const Instrumentation& in, size_t slot)
      : plugin_(plugin), per_node_(*in.per_node), timed_(in.time_per_node), slot_(slot) {}
  std::string_view Name() const override { return plugin_.Name(); }
  bool ReadsNodeLabels() const override { return plugin_.ReadsNodeLabels(); }
  [[gnu::always_inline]] Status Filter(CycleState& state, const api::Pod& pod, const NodeInfo& node_info) override {
    ThreadMetrics::Block& cells = per_node_.Local();
    cells.Count(slot_);
    if (!timed_ || !state.ShouldRecordPluginMetrics()) return plugin_.Filter(state, pod, node_info);
    const int64_t start = util::CycleClock::Now();
    Status s = plugin_.Filter(state, pod, node_info);
    cells.Observe(slot_, s.code(), util::CycleClock::TicksSince(start));
    return s;
  }
  // In a sampled cycle the run is timed as a whole and its time shared
  // evenly among its calls (ThreadMetrics::Block::ObserveRun), each node
  // observed with the code it got.
  void FilterNodes(CycleState& state, const api::Pod& pod, std::span<const NodeInfo* const> nodes, uint64_t* alive,
                   Status* out) override {
    ThreadMetrics::Block& cells = per_node_.Local();
    const uint64_t visited = *alive;
    const int64_t calls = std::popcount(visited);
    cells.Count(slot_, calls);
    if (!timed_ || !state.ShouldRecordPluginMetrics() || calls == 0) {
      return plugin_.FilterNodes(state, pod, nodes, alive, out);
    }
    const int64_t start = util::CycleClock::Now();
    plugin_.FilterNodes(state, pod, nodes, alive, out);
    const int64_t ticks = util::CycleClock::TicksSince(start);
    const int64_t each = ticks / calls;
    int64_t rejected = 0;
    for (uint64_t left = visited & ~*alive; left != 0; left &= left - 1, ++rejected) {
      cells.Observe(slot_, out[std::countr_zero(left)].code(), each);
    }
    cells.ObserveRun(slot_, Code::kSuccess, calls - rejected, ticks - rejected * each);
  }

 private:
  FilterPlugin& plugin_;
  ThreadMetrics& per_node_;
  const bool timed_;
  const size_t slot_;
};

class InstrumentedPostFilterPlugin final : public PostFilterPlugin {
 public:
  InstrumentedPostFilterPlugin(PostFilterPlugin& plugin, const Instrumentation& in) : plugin_(plugin), in_(in) {}
  std::string_view Name() const override { return plugin_.Name(); }
  std::pair<PostFilterResult, Status> PostFilter(CycleState& state, const api::Pod& pod,
                                                 const NodeToStatus& filtered_node_status) override;

 private:
  PostFilterPlugin& plugin_;
  const Instrumentation& in_;
};

class InstrumentedPreScorePlugin final : public PreScorePlugin {
 public:
  InstrumentedPreScorePlugin(PreScorePlugin& plugin, const Instrumentation& in, std::string_view profile);
  std::string_view Name() const override { return plugin_.Name(); }
  Status PreScore(CycleState& state, const api::Pod& pod, const NodeInfoList& nodes) override;

 private:
  PreScorePlugin& plugin_;
  const Instrumentation& in_;
  std::unique_ptr<EvaluationCounter> evaluations_;
};

// Score per node is timed as Filter above, but not counted per call: a
// cycle calls it once for every node of the list, and the framework adds
// those calls with AddEvaluations when the loop ends (a count per call cost
// 2 % of the in-process SchedulingBasic CPU). NormalizeScore is timed once
// per cycle with the clock.
class InstrumentedScorePlugin final : public ScorePlugin, public ScoreExtensions {
 public:
  // `slot`: the plugin's duration series in in.per_node; `evaluations`
  // must outlive this wrapper.
  InstrumentedScorePlugin(ScorePlugin& plugin, const Instrumentation& in, size_t slot, EvaluationCounter& evaluations)
      : plugin_(plugin),
        in_(in),
        per_node_(*in.per_node),
        evaluations_(evaluations),
        timed_(in.time_per_node),
        slot_(slot) {}
  std::string_view Name() const override { return plugin_.Name(); }
  [[gnu::always_inline]] std::pair<int64_t, Status> Score(CycleState& state, const api::Pod& pod,
                                                          const NodeInfo& node_info) override {
    if (!timed_ || !state.ShouldRecordPluginMetrics()) return plugin_.Score(state, pod, node_info);
    const int64_t start = util::CycleClock::Now();
    std::pair<int64_t, Status> out = plugin_.Score(state, pod, node_info);
    per_node_.Local().Observe(slot_, out.second.code(), util::CycleClock::TicksSince(start));
    return out;
  }
  // In a sampled cycle the run is timed as a whole, its time shared evenly
  // among its nodes (ThreadMetrics::Block::ObserveRun), all observed with
  // the run's code.
  Status ScoreNodes(CycleState& state, const api::Pod& pod, std::span<const NodeInfo* const> nodes,
                    NodeScore* out) override {
    if (!timed_ || !state.ShouldRecordPluginMetrics()) return plugin_.ScoreNodes(state, pod, nodes, out);
    const int64_t start = util::CycleClock::Now();
    Status s = plugin_.ScoreNodes(state, pod, nodes, out);
    const int64_t ticks = util::CycleClock::TicksSince(start);
    per_node_.Local().ObserveRun(slot_, s.code(), static_cast<int64_t>(nodes.size()), ticks);
    return s;
  }
  // Counts `calls` Score evaluations (plugin_evaluation_total).
  void AddEvaluations(int64_t calls) { evaluations_.Add(calls); }
  // This wrapper, when the plugin normalizes.
  ScoreExtensions* GetScoreExtensions() override;
  Status NormalizeScore(CycleState& state, const api::Pod& pod, NodeScoreList& scores) override;

 private:
  ScorePlugin& plugin_;
  const Instrumentation& in_;  // NormalizeScore's
  ThreadMetrics& per_node_;
  EvaluationCounter& evaluations_;
  const bool timed_;
  const size_t slot_;
};

class InstrumentedReservePlugin final : public ReservePlugin {
 public:
  InstrumentedReservePlugin(ReservePlugin& plugin, const Instrumentation& in) : plugin_(plugin), in_(in) {}
  std::string_view Name() const override { return plugin_.Name(); }
  Status Reserve(CycleState& state, const api::Pod& pod, std::string_view node_name) override;
  void Unreserve(CycleState& state, const api::Pod& pod, std::string_view node_name) override;

 private:
  ReservePlugin& plugin_;
  const Instrumentation& in_;
};

class InstrumentedPermitPlugin final : public PermitPlugin {
 public:
  InstrumentedPermitPlugin(PermitPlugin& plugin, const Instrumentation& in) : plugin_(plugin), in_(in) {}
  std::string_view Name() const override { return plugin_.Name(); }
  std::pair<Status, util::Duration> Permit(CycleState& state, const api::Pod& pod,
                                           std::string_view node_name) override;

 private:
  PermitPlugin& plugin_;
  const Instrumentation& in_;
};

class InstrumentedPreBindPlugin final : public PreBindPlugin {
 public:
  InstrumentedPreBindPlugin(PreBindPlugin& plugin, const Instrumentation& in) : plugin_(plugin), in_(in) {}
  std::string_view Name() const override { return plugin_.Name(); }
  Status PreBindPreFlight(CycleState& state, const api::Pod& pod, std::string_view node_name) override;
  bool AllowsParallelPreBind() const override { return plugin_.AllowsParallelPreBind(); }
  Status PreBind(CycleState& state, const api::Pod& pod, std::string_view node_name) override;

 private:
  PreBindPlugin& plugin_;
  const Instrumentation& in_;
};

class InstrumentedBindPlugin final : public BindPlugin {
 public:
  InstrumentedBindPlugin(BindPlugin& plugin, const Instrumentation& in) : plugin_(plugin), in_(in) {}
  std::string_view Name() const override { return plugin_.Name(); }
  Status Bind(CycleState& state, const api::Pod& pod, std::string_view node_name) override;

 private:
  BindPlugin& plugin_;
  const Instrumentation& in_;
};

class InstrumentedPostBindPlugin final : public PostBindPlugin {
 public:
  InstrumentedPostBindPlugin(PostBindPlugin& plugin, const Instrumentation& in) : plugin_(plugin), in_(in) {}
  std::string_view Name() const override { return plugin_.Name(); }
  void PostBind(CycleState& state, const api::Pod& pod, std::string_view node_name) override;

 private:
  PostBindPlugin& plugin_;
  const Instrumentation& in_;
};

}  // namespace ksched::scheduler::framework::runtime
