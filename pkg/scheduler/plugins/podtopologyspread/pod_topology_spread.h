// PodTopologySpread: spreads pods over topology domains according to
// spec.topologySpreadConstraints (kube-scheduler's podtopologyspread plugin).
//
// Filter (DoNotSchedule constraints): for each constraint, the node must
// carry the topology key (else UnschedulableAndUnresolvable "node(s) didn't
// match pod topology spread constraints (missing required label)") and
//   matching pods in the node's domain + (1 if the pod matches itself)
//     - global minimum <= maxSkew
// (else Unschedulable "node(s) didn't match pod topology spread
// constraints"). The global minimum is over eligible domains -- those of
// nodes that have every constraint's key and pass the node inclusion
// policies -- and counts as 0 while there are fewer than minDomains of them.
//
// Score (ScheduleAnyway constraints, or the default constraints for pods
// without any): a node scores sum(count * log(domains + 2) + maxSkew - 1)
// over constraints, where count is the matching pods of its domain
// (of the node itself for kubernetes.io/hostname); NormalizeScore maps a raw
// score s to 100 * (max + min - s) / max -- fewest matching pods best -- and
// nodes missing a required key to 0.
//
// Default constraints (args defaultingType System: hostname maxSkew 3 and zone
// maxSkew 5, ScheduleAnyway; or List) apply only to pods without constraints
// and select the pods that the Services, ReplicationControllers, ReplicaSets
// and StatefulSets selecting the pod select (default_selector.h), read from
// the handle's listers.
//
// Complexity: domain counts are kept per constraint set across cycles by
// SpreadCounter, so PreFilter/PreScore cost O(nodes) cheap comparisons plus
// the re-counting of nodes that changed since the last cycle. Filter finds a
// snapshot node's topology value ids by its address (NodeSlots) and reads
// no labels: O(constraints) array reads per node without allocation (a
// NodeInfo copy, e.g. with nominated pods, takes a label and hash lookup per
// constraint instead).
//
// Thread-safety: the counter cache is guarded by a mutex (PreFilter and
// PreScore run on the scheduling thread); Filter/Score only read CycleState.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread_args.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_signature.h"
#include "pkg/scheduler/plugins/podtopologyspread/constraint.h"
#include "pkg/scheduler/plugins/podtopologyspread/spread_counter.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::podtopologyspread {

inline constexpr std::string_view kName = "PodTopologySpread";

inline constexpr std::string_view kErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view kErrReasonNodeLabelNotMatch =
    "node(s) didn't match pod topology spread constraints (missing required label)";

class PodTopologySpread final : public framework::SignPlugin,
                                public framework::PreFilterPlugin,
                                public framework::PreFilterExtensions,
                                public framework::FilterPlugin,
                                public framework::PreScorePlugin,
                                public framework::ScorePlugin,
                                public framework::ScoreExtensions,
                                public framework::EnqueueExtensions {
 public:
  // How many constraint sets keep their counts across cycles.
  static constexpr size_t kCounterCacheSize = 16;

  // `args` must be valid (see New).
  PodTopologySpread(const PodTopologySpreadArgs& args, framework::Handle& handle);

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  // With default constraints (the system defaults included) no pod is signed.
  bool NeverSigns() const override { return !default_constraints_.empty(); }

  // Skip when the pod has no DoNotSchedule constraint.
  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& state,
                                                                     const api::Pod& pod,
                                                                     const framework::NodeInfoList& nodes) override;
  framework::PreFilterExtensions* GetPreFilterExtensions() override { return this; }
  framework::Status AddPod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                           const framework::PodInfoPtr& pod_info_to_add,
                           const framework::NodeInfo& node_info) override;
  framework::Status RemovePod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                              const framework::PodInfoPtr& pod_info_to_remove,
                              const framework::NodeInfo& node_info) override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;

  // Skip when the pod has no ScheduleAnyway (or default) constraint.
  framework::Status PreScore(framework::CycleState& state, const api::Pod& pod,
                             const framework::NodeInfoList& nodes) override;
  std::pair<int64_t, framework::Status> Score(framework::CycleState& state, const api::Pod& pod,
                                              const framework::NodeInfo& node_info) override;
  framework::ScoreExtensions* GetScoreExtensions() override { return this; }
  framework::Status NormalizeScore(framework::CycleState& state, const api::Pod& pod,
                                   framework::NodeScoreList& scores) override;

  // Pod/Add|UpdatePodLabel|Delete (+UpdatePodToleration with queueing hints)
  // and Node/Add|Delete|UpdateNodeLabel|UpdateNodeTaint, with the hints below.
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  // Skip unless the other pod is the pod itself or an assigned pod of its
  // namespace. Own toleration change with a NodeTaintsPolicy Honor
  // constraint: Queue. Label update: Queue if some constraint's match
  // flipped. Add/delete: Queue if some constraint selects the pod.
  util::StatusOr<framework::QueueingHint> IsSchedulableAfterPodChange(const api::Pod& pod,
                                                                      const framework::EventObject& old_obj,
                                                                      const framework::EventObject& new_obj) const;
  // Add/delete: Queue if the node has every topology key. Update: Queue if
  // that flipped, or (still having them) a topology value or the taints
  // changed.
  util::StatusOr<framework::QueueingHint> IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                                       const framework::EventObject& old_obj,
                                                                       const framework::EventObject& new_obj) const;

 private:
  // The pod's constraints for `action` ("DoNotSchedule"/"ScheduleAnyway").
  util::StatusOr<std::vector<Constraint>> Constraints(const api::Pod& pod, std::string_view action) const;
  // The counter for these constraints, created on first use (LRU of
  // kCounterCacheSize), synced with `nodes`. Call with mu_ held.
  SpreadCounter& SyncedCounter(const api::Pod& pod, const std::vector<Constraint>& constraints,
                               std::vector<bool> counted, bool require_all_topology_keys, std::string_view tag,
                               const framework::NodeInfoList& nodes);

  const std::vector<api::TopologySpreadConstraint> default_constraints_;
  const bool system_defaulted_;
  const bool enable_queueing_hints_;
  framework::Handle& handle_;

  struct CachedCounter {
    std::string signature;
    uint64_t last_use = 0;
    std::unique_ptr<SpreadCounter> counter;
  };
  std::mutex mu_;
  std::vector<CachedCounter> counters_;  // guarded by mu_
  uint64_t uses_ = 0;                    // guarded by mu_
};

// The factory: `args` must be PodTopologySpreadArgs (validated) or monostate
// (System defaulting).
util::StatusOr<std::shared_ptr<PodTopologySpread>> New(const config::PluginArgs& args, framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::podtopologyspread
