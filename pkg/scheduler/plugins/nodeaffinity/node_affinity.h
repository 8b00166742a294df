// NodeAffinity: spec.nodeSelector and node affinity (kube's NodeAffinity,
// v1.34 semantics), plus the profile's addedAffinity (NodeAffinityArgs),
// which applies to every pod of the profile.
//
// PreFilter returns Skip when there is nothing to check (no nodeSelector, no
// required node affinity, no addedAffinity). Otherwise it compiles the pod's
// required selector once into the CycleState and, when every required term
// pins metadata.name with an In requirement, returns that node-name subset
// (union over terms, intersection within a term); an empty subset rejects
// the pod, UnschedulableAndUnresolvable "pod affinity terms conflict".
// Filter (UnschedulableAndUnresolvable):
//   "node(s) didn't match scheduler-enforced node affinity"  (addedAffinity)
//   "node(s) didn't match Pod's node affinity/selector"
// PreScore compiles the preferred terms (Skip when neither the pod nor
// addedAffinity has any); Score sums the weights of matching terms;
// NormalizeScore scales by the highest score onto 0-100.
//
// Events: Node/Add|UpdateNodeLabel (hints off: also UpdateNodeTaint), hint:
// QueueSkip unless the node matches addedAffinity and the pod's required
// selector; an added node then queues, an updated one only if it did not
// match before.
//
// Filter keeps its verdict for a node in the node's memo (node_memo.h), keyed
// by the way the pod selects nodes (its nodeSelector and node affinity):
// until the node changes, pods that select alike read one byte for it.
//
// Thread-safety: safe to call concurrently (the memo's keys are guarded;
// the rest is immutable after construction). Filter and Score allocate
// nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/node_selector.h"
#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/plugins/nodeaffinity/node_affinity_args.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/node_memo.h"
#include "pkg/scheduler/framework/pod_signature.h"

namespace ksched::scheduler::plugins::nodeaffinity {

inline constexpr std::string_view kName = "NodeAffinity";
inline constexpr std::string_view kPreFilterStateKey = "PreFilterNodeAffinity";
inline constexpr std::string_view kPreScoreStateKey = "PreScoreNodeAffinity";
inline constexpr std::string_view kErrReasonPod = "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view kErrReasonEnforced = "node(s) didn't match scheduler-enforced node affinity";
inline constexpr std::string_view kErrReasonConflict = "pod affinity terms conflict";

class NodeAffinity final : public framework::SignPlugin,
                           public framework::PreFilterPlugin,
                           public framework::FilterPlugin,
                           public framework::PreScorePlugin,
                           public framework::ScorePlugin,
                           public framework::ScoreExtensions,
                           public framework::EnqueueExtensions {
 public:
  // From already-compiled addedAffinity parts (either may be unset).
  NodeAffinity(std::optional<api::CompiledNodeSelector> added_node_selector,
               std::optional<api::PreferredSchedulingTerms> added_preferred_terms, bool enable_queueing_hints);

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& state, const api::Pod& pod,
                                                                     const framework::NodeInfoList& nodes) override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  framework::Status PreScore(framework::CycleState& state, const api::Pod& pod,
                             const framework::NodeInfoList& nodes) override;
  std::pair<int64_t, framework::Status> Score(framework::CycleState& state, const api::Pod& pod,
                                              const framework::NodeInfo& node_info) override;
  framework::ScoreExtensions* GetScoreExtensions() override { return this; }
  framework::Status NormalizeScore(framework::CycleState& state, const api::Pod& pod,
                                   framework::NodeScoreList& scores) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  util::StatusOr<framework::QueueingHint> IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                                       const framework::EventObject& old_obj,
                                                                       const framework::EventObject& new_obj) const;

 private:
  std::optional<api::CompiledNodeSelector> added_node_selector_;
  std::optional<api::PreferredSchedulingTerms> added_preferred_terms_;
  bool enable_queueing_hints_;
  // Keys of Filter's verdicts in the nodes' memo (node_memo.h), per way of
  // selecting nodes.
  framework::NodeMemoKeys memo_keys_;
};

// The plugin from its profile args (std::monostate: no addedAffinity).
// Malformed addedAffinity terms are InvalidArgument errors.
util::StatusOr<std::unique_ptr<NodeAffinity>> New(const config::PluginArgs& args,
                                                  const framework::FeatureGates& features);

}  // namespace ksched::scheduler::plugins::nodeaffinity
