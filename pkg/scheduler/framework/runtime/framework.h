// runtime::Framework: one scheduling profile's plugins, instantiated from
// config and run extension point by extension point (kube's
// runtime.frameworkImpl). It is also the Handle its plugins receive.
//
// Construction (New), from a defaulted config::KubeSchedulerProfile:
//   - every plugin enabled at some extension point or in multiPoint is
//     created once through the Registry with its pluginConfig args
//     (std::monostate when none) and shared by all its extension points; a
//     plugin's Name() must equal its registered name;
//   - explicit per-point `enabled` lists come first in their order; then
//     multiPoint expands each plugin to every extension point it implements
//     (dynamic_cast), except where the point disables it (by name or "*") or
//     configures it explicitly (explicit wins, keeping its position; the
//     explicitly re-configured ones are moved to the front as in kube);
//   - Score weights: the score list's weight, else multiPoint's, else 1;
//   - exactly one QueueSort plugin and at least one Bind plugin are
//     required; unknown names, duplicates and plugins enabled at a point they
//     do not implement are errors.
//
// Run methods follow kube-scheduler:
//   RunPreFilterPlugins   Skip => that plugin's Filter (and PreFilter
//                         extensions) skipped this cycle; node subsets are
//                         intersected (an empty intersection is
//                         UnschedulableAndUnresolvable "node(s) didn't
//                         satisfy plugin(s) [..] simultaneously"); an
//                         Unschedulable result runs the remaining plugins
//                         and is returned; UnschedulableAndUnresolvable
//                         stops; Error stops as Error.
//   RunFilterPlugins      in order, stopping at the first non-success,
//                         which is attributed to its plugin (non-rejections
//                         become Error).
//   RunFilterPluginsWithNominatedPods  kube's two passes: with the nominated
//                         pods of priority >= the pod's added (AddPod
//                         extensions on a cloned state and NodeInfo), then,
//                         if that passed and pods were added, without.
//   RunPostFilterPlugins  until Success, UnschedulableAndUnresolvable or
//                         Error; otherwise Unschedulable with every reason,
//                         the first rejector and the last non-noop result.
//   RunPreScorePlugins    Skip => that plugin's Score skipped.
//   RunScorePlugins       Score for each node in parallel, NormalizeScore,
//                         out-of-range check, weights; the options'
//                         CycleObserver, when set, sees raw and normalized
//                         scores.
//   RunReservePluginsReserve in order, first failure stops (the caller then
//                         calls Unreserve); Unreserve in reverse order.
//   RunPermitPlugins      a rejection stops; Wait (timeout capped at 15
//                         min) parks the pod in the waiting map;
//                         WaitOnPermit blocks the binding cycle until every
//                         waiting plugin allows, one rejects, or a timeout
//                         on the Clock.
//   RunPreBindPreFlights  all; Success when one has work, Skip when none
//                         has (each that skips is recorded in the cycle
//                         state and not run by RunPreBindPlugins), the first
//                         Error (or other code) stops.
//   RunPreBindPlugins     first failure stops; from 1.36 (ParallelPreBind)
//                         consecutive plugins that allow it run at once,
//                         and the first failure cancels the others' waits.
//                         A failure from a wait the cycle's Cancellation
//                         ended reports the cancellation's cause.
//   RunBindPlugins        until a plugin does not return Skip.
//   RunPostBindPlugins    all, informational.
// Every Run method except Filter/AddPod/RemovePod (called per node) reports
// its duration as framework_extension_point_duration_seconds. The plugins'
// own metrics (evaluations, durations in sampled cycles) are recorded by the
// instrumented wrappers New puts around every plugin of the scheduling and
// binding cycles (instrumented_plugins.h); the Run methods call plugins
// through them and measure nothing themselves.
//
// Thread-safety: immutable after New; every method may be called
// concurrently (the scheduling loop, Filter/Score workers, binding
// threads). Plugins are shared; see cycle_plugins.h.
// Lifetime: the options' dependencies (lister, parallelizer, clock, ...)
// must outlive the Framework.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/config/types.h"
#include "pkg/scheduler/framework/cycle_observer.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/metrics_recorder.h"
#include "pkg/scheduler/framework/plugin_set.h"
#include "pkg/scheduler/framework/pod_signature.h"
#include "pkg/scheduler/framework/registry.h"
#include "pkg/scheduler/framework/runtime/instrumented_plugins.h"
#include "pkg/scheduler/framework/runtime/plugin_subsets.h"
#include "pkg/scheduler/framework/runtime/thread_metrics.h"
#include "pkg/scheduler/framework/status.h"
#include "pkg/scheduler/framework/waiting_pods.h"
#include "pkg/util/clock.h"
#include "pkg/util/parallelizer.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework::runtime {

// The longest a Permit plugin may make a pod wait.
inline constexpr util::Duration kMaxPermitTimeout = std::chrono::minutes(15);

struct FrameworkOptions {
  // Required: the snapshot the scheduling loop refreshes each cycle.
  const SharedLister* snapshot_lister = nullptr;
  // Required: shared by every profile.
  util::Parallelizer* parallelizer = nullptr;
  const util::Clock* clock = &util::RealClock::Get();
  FeatureGates features;
  // nullptr: empty in-memory listers.
  const SharedListers* listers = nullptr;
  // Optional.
  BindingClient* client = nullptr;
  PodNominator* nominator = nullptr;
  PodActivator* activator = nullptr;
  PreemptionWriter* preemption = nullptr;
  // Shared by every profile's framework; nullptr: the framework makes its
  // own.
  std::shared_ptr<WaitingPodsMap> waiting_pods;
  // Likewise the pods in PreBind.
  std::shared_ptr<PodsInPreBind> pods_in_pre_bind;
  // nullptr: metrics are dropped.
  FrameworkMetricsRecorder* metrics = nullptr;
  // nullptr (the daemon): nothing is observed. Else told every cycle's
  // raw and normalized scores (see cycle_observer.h).
  CycleObserver* observer = nullptr;
};

// RunPreFilterPlugins' outcome.
struct PreFilterOutcome {
  PreFilterResult result;
  Status status;
  // Plugins that returned a node subset (for the "didn't satisfy plugin(s)"
  // message of nodes outside it).
  PluginSet plugins_with_nodes;
};

// RunScorePlugins' outcome: weighted scores of every node (rows, in the
// order of the `nodes` argument) from every plugin that ran (columns).
// RunScorePlugins overwrites every field, so a caller that keeps one across
// cycles reuses its buffers instead of allocating them per cycle.
struct NodeScores {
  std::vector<std::string_view> plugins;
  // Per node, the sum of the plugins' weighted (normalized) scores.
  std::vector<int64_t> totals;
  // raw[j][i]: plugin j's Score for node i before NormalizeScore; filled
  // only when asked (keep_raw), for opportunistic batching's rescoring.
  std::vector<std::vector<int64_t>> raw;
};

class Framework final : public Handle {
 public:
  static util::StatusOr<std::unique_ptr<Framework>> New(const Registry& registry,
                                                        const config::KubeSchedulerProfile& profile,
                                                        FrameworkOptions options);
  ~Framework() override;
  Framework(const Framework&) = delete;
  Framework& operator=(const Framework&) = delete;

  // ---- Handle
  std::string_view ProfileName() const override { return profile_name_; }
  const SharedLister& SnapshotSharedLister() const override { return *options_.snapshot_lister; }
  const SharedListers& Listers() const override { return *options_.listers; }
  util::Parallelizer& Parallelizer() const override { return *options_.parallelizer; }
  const util::Clock& Clock() const override { return *options_.clock; }
  const FeatureGates& Features() const override { return options_.features; }
  BindingClient* Client() const override { return options_.client; }
  PreemptionWriter* Preemption() const override { return options_.preemption; }
  std::vector<PodInfoPtr> NominatedPodsForNode(std::string_view node_name) const override;
  void Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods) override;
  std::shared_ptr<WaitingPod> GetWaitingPod(std::string_view uid) const override;
  std::shared_ptr<PodInPreBind> GetPodInPreBind(std::string_view uid) const override;
  void IterateOverWaitingPods(const std::function<void(WaitingPod&)>& fn) const override;
  bool RejectWaitingPod(std::string_view uid) override;
  Status RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod_to_schedule,
                                     const PodInfoPtr& pod_info_to_add, const NodeInfo& node_info) override;
  Status RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod_to_schedule,
                                        const PodInfoPtr& pod_info_to_remove, const NodeInfo& node_info) override;
  Status RunFilterPlugins(CycleState& state, const api::Pod& pod, const NodeInfo& node_info) override;
  Status RunFilterPluginsWithNominatedPods(CycleState& state, const api::Pod& pod,
                                           const NodeInfo& node_info) override;
  // RunFilterPluginsWithNominatedPods over a run of at most 64 nodes, each
  // plugin over the whole run (FilterPlugin::FilterNodes' contract: a node
  // i whose bit in `*alive` is set and that does not pass gets its status
  // in out[i] and its bit cleared); node by node while some pod is
  // nominated anywhere.
  void RunFilterPluginsOnNodes(CycleState& state, const api::Pod& pod, std::span<const NodeInfo* const> nodes,
                               uint64_t* alive, Status* out);

  // ---- Queue integration
  // The profile's only QueueSort plugin.
  const QueueSortPlugin& QueueSort() const { return *queue_sort_; }
  // PreEnqueue plugins in order (for PriorityQueueOptions).
  const std::vector<PreEnqueuePlugin*>& PreEnqueuePlugins() const { return pre_enqueue_; }
  // Every plugin that can reject pods (PreEnqueue, PreFilter, Filter,
  // Reserve, Permit), each once in creation order: the input of
  // queue::BuildQueueingHintMap. Plugins without EnqueueExtensions are
  // included (the map registers them for every event).
  std::vector<const Plugin*> EnqueueExtensionPlugins() const;
  // The first PreEnqueue failure, attributed to its plugin; Success if all
  // pass.
  Status RunPreEnqueuePlugins(const api::Pod& pod);

  // ---- Scheduling cycle
  // signer.Sign(pod), timed as kube's Sign extension point (always labelled
  // Success, as kube's) with each plugin's SignPod time.
  std::optional<std::string> SignPod(const PodSigner& signer, const api::Pod& pod) const;
  PreFilterOutcome RunPreFilterPlugins(CycleState& state, const api::Pod& pod);
  std::pair<PostFilterResult, Status> RunPostFilterPlugins(CycleState& state, const api::Pod& pod,
                                                           const NodeToStatus& filtered_node_status);
  Status RunPreScorePlugins(CycleState& state, const api::Pod& pod, const NodeInfoList& nodes);
  // Fills `out` (every field; unspecified on failure).
  Status RunScorePlugins(CycleState& state, const api::Pod& pod, const NodeInfoList& nodes, NodeScores* out,
                         bool keep_raw = false);
  // Opportunistic batching's rescoring (kube's RunRawScorePlugins and
  // NormalizeScores): each Score plugin that PreScore did not skip, on one
  // node, before normalization (scores parallel to the plugin names); then
  // the normalized, weighted totals of `nodes` from raw scores found by
  // `raw(plugin, node index)`.
  struct RawScores {
    std::vector<std::string_view> plugins;
    std::vector<int64_t> scores;
  };
  std::pair<RawScores, Status> RunRawScorePlugins(CycleState& state, const api::Pod& pod, const NodeInfo& node);
  std::pair<std::vector<int64_t>, Status> NormalizeScores(
      CycleState& state, const api::Pod& pod, const std::vector<std::string_view>& nodes,
      const std::function<int64_t(std::string_view plugin, size_t node)>& raw);
  Status RunReservePluginsReserve(CycleState& state, const api::Pod& pod, std::string_view node_name);
  void RunReservePluginsUnreserve(CycleState& state, const api::Pod& pod, std::string_view node_name);
  // Wait when some plugin asked to wait (the pod is then in the waiting
  // map until WaitOnPermit returns).
  Status RunPermitPlugins(CycleState& state, const std::shared_ptr<const api::Pod>& pod, std::string_view node_name);

  // ---- Binding cycle
  bool WillWaitOnPermit(const api::Pod& pod) const;
  // Success at once when the pod is not waiting; else blocks (see above).
  Status WaitOnPermit(const api::Pod& pod);
  Status RunPreBindPreFlights(CycleState& state, const api::Pod& pod, std::string_view node_name);
  Status RunPreBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node_name);
  Status RunBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node_name);
  void RunPostBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node_name);

  // ---- Introspection
  bool HasFilterPlugins() const { return !filter_.empty(); }
  // Whether a Filter plugin that runs in this cycle (after PreFilter's
  // skips) may read nodes' labels (FilterPlugin::ReadsNodeLabels).
  bool FilterReadsNodeLabels(const CycleState& state) const;
  bool HasPostFilterPlugins() const { return !post_filter_.empty(); }
  bool HasScorePlugins() const { return !score_.empty(); }
  // The profile's percentageOfNodesToScore, unset when it defers to the
  // global value.
  std::optional<int32_t> PercentageOfNodesToScore() const { return percentage_of_nodes_to_score_; }
  // The plugins enabled at each extension point, in run order; score
  // entries carry their effective weight. multiPoint is left empty.
  config::Plugins ListPlugins() const;
  // The plugin instance registered as `name`, nullptr if not enabled.
  Plugin* GetPlugin(std::string_view name) const;
  // The effective weight of a score plugin (0 when not a score plugin).
  int64_t ScorePluginWeight(std::string_view name) const;
  // Reports what the per-node extension points buffered since the last
  // flush: Filter and Score evaluation counts, and their plugin durations
  // of sampled cycles. Done at the start of each RunPreFilterPlugins, i.e.
  // once per cycle.
  void FlushMetrics();

 private:
  // The enabled plugins of each extension point, in run order, unwrapped.
  struct PluginLists;

  explicit Framework(FrameworkOptions options);

  util::Status Init(const Registry& registry, const config::KubeSchedulerProfile& profile);
  util::Status ExpandMultiPoint(const config::Plugins& plugins, PluginLists* lists);
  util::Status ComputeScoreWeights(const config::Plugins& plugins, const std::vector<ScorePlugin*>& score);
  // Puts the instrumented wrappers around `lists` into the run lists below.
  void Instrument(const PluginLists& lists);
  // Calls visit(plugin) for each Filter plugin that PreFilter did not skip
  // this cycle, in order, while visit returns true.
  template <class Visit>
  void VisitFilterPluginsToRun(const CycleState& state, const Visit& visit) const;
  // kube's two filter passes over a node with `nominated` pods (not empty).
  Status RunFilterPluginsWithNominatedPods(CycleState& state, const api::Pod& pod, const NodeInfo& node_info,
                                           const std::vector<PodInfoPtr>& nominated);

  // The PreBind plugins to run, in order, grouped: consecutive plugins that
  // may run in parallel share a group, any other is alone (kube's
  // getPreBindPluginGroups).
  std::vector<std::vector<InstrumentedPreBindPlugin*>> PreBindGroups(const CycleState& state) const;
  Status RunPreBindPlugin(PreBindPlugin& pl, CycleState& state, const api::Pod& pod, std::string_view node_name,
                          const Cancellation* cancellation);
  Status RunParallelPreBindPlugins(const std::vector<InstrumentedPreBindPlugin*>& group, CycleState& state,
                                   const api::Pod& pod, std::string_view node_name);

  // Duration helpers (clock-based).
  double SecondsSince(util::TimePoint start) const;
  void ObservePoint(std::string_view point, const Status& status, util::TimePoint start) const;

  FrameworkOptions options_;
  InMemorySharedListers empty_listers_;
  NopMetricsRecorder nop_metrics_;
  std::string profile_name_;
  std::optional<int32_t> percentage_of_nodes_to_score_;

  // Instances in creation order (sorted by name), and by name.
  std::vector<std::pair<std::string, std::shared_ptr<Plugin>>> instances_;
  std::map<std::string, Plugin*, std::less<>> by_name_;

  // The queue's points, unwrapped (the queue records PreEnqueue's metrics).
  const QueueSortPlugin* queue_sort_ = nullptr;
  std::vector<PreEnqueuePlugin*> pre_enqueue_;
  std::vector<QueueSortPlugin*> queue_sort_list_;

  // What the wrappers record into: the recorder, the clock, and the
  // per-thread cells of the per-node points (Filter's and Score's
  // evaluation counters, owned here, and sampled durations).
  Instrumentation instrumentation_;
  std::vector<std::unique_ptr<EvaluationCounter>> per_node_evaluations_;
  std::unique_ptr<ThreadMetrics> per_node_metrics_;
  // The wrappers, owned; the run lists below point into them.
  std::vector<std::unique_ptr<Plugin>> wrappers_;
  std::vector<InstrumentedPreFilterPlugin*> pre_filter_;
  std::vector<InstrumentedFilterPlugin*> filter_;
  std::vector<InstrumentedPostFilterPlugin*> post_filter_;
  std::vector<InstrumentedPreScorePlugin*> pre_score_;
  std::vector<InstrumentedScorePlugin*> score_;
  std::vector<int64_t> score_weights_;  // parallel to score_
  std::vector<InstrumentedReservePlugin*> reserve_;
  std::vector<InstrumentedPermitPlugin*> permit_;
  std::vector<InstrumentedPreBindPlugin*> pre_bind_;
  std::vector<InstrumentedBindPlugin*> bind_;
  std::vector<InstrumentedPostBindPlugin*> post_bind_;
  // The skip sets PreFilter, PreScore and PreBindPreFlight record, by the
  // positions of the plugins in pre_filter_, pre_score_ and pre_bind_.
  std::unique_ptr<const PluginSubsets> pre_filter_subsets_;
  std::unique_ptr<const PluginSubsets> pre_score_subsets_;
  std::unique_ptr<const PluginSubsets> pre_bind_subsets_;
  // Per pre_filter_ position, the bit of the Filter plugin of that name in
  // filter_ order (0: none, or past 64).
  std::vector<uint64_t> pre_filter_filter_bits_;
};

}  // namespace ksched::scheduler::framework::runtime
