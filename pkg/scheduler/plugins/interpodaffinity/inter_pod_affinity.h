// InterPodAffinity: required and preferred pod affinity / anti-affinity
// (kube-scheduler's interpodaffinity plugin).
//
// Filter (a node fails on the first rule it breaks, in this order):
//   1. the pod's required affinity: every term's topology key must be a label
//      of the node and, for each term, some existing pod matching ALL terms
//      must run in the node's domain -- unless no pod in the cluster matches
//      and the pod matches its own terms (the first pod of a group);
//      UnschedulableAndUnresolvable "node(s) didn't match pod affinity rules";
//   2. the pod's required anti-affinity: no pod matching a term in the
//      node's domain of that term; Unschedulable "node(s) didn't match pod
//      anti-affinity rules";
//   3. symmetry: no existing pod whose required anti-affinity matches the
//      incoming pod in the node's domain; Unschedulable "node(s) didn't
//      satisfy existing pods anti-affinity rules".
// Namespace selectors of the incoming pod's terms are resolved to namespace
// names through the Handle's Namespace lister; existing pods' selectors are
// matched against the incoming pod's namespace labels.
//
// Score: for every existing pod, the incoming pod's preferred terms matching
// it (+/- weight), the existing pod's required affinity terms matching the
// incoming pod (+hardPodAffinityWeight) and its preferred terms (+/- weight)
// add to the existing pod's topology domain; a node scores the sum over its
// domains, and NormalizeScore maps [min, max] onto [0, 100].
//
// Complexity: PreFilter and PreScore keep their per-pair counts across
// cycles in HitCounters keyed by the incoming pod's shape, so each costs
// O(nodes) cheap comparisons plus re-counting (in parallel on the Handle's
// Parallelizer when many) the nodes that changed since that shape was last
// seen; Filter and Score are O(terms) hash lookups per node with no
// allocation.
//
// Thread-safety: the counter cache is guarded by a mutex; everything else is
// immutable after construction, and per-cycle data lives in CycleState
// (state.h).
#pragma once

#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/framework/affinity_term.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_signature.h"
#include "pkg/scheduler/plugins/interpodaffinity/hit_counter.h"
#include "pkg/scheduler/plugins/interpodaffinity/inter_pod_affinity_args.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::interpodaffinity {

inline constexpr std::string_view kName = "InterPodAffinity";

inline constexpr std::string_view kErrReasonExistingAntiAffinityRulesNotMatch =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr std::string_view kErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
inline constexpr std::string_view kErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules";

class InterPodAffinity final : public framework::SignPlugin,
                               public framework::PreFilterPlugin,
                               public framework::PreFilterExtensions,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ScorePlugin,
                               public framework::ScoreExtensions,
                               public framework::EnqueueExtensions {
 public:
  // How many counters (three per incoming pod shape at most: existing
  // anti-affinity, own terms, scoring) keep their counts across cycles.
  static constexpr size_t kCounterCacheSize = 24;

  // `args` must be valid (see New).
  InterPodAffinity(const InterPodAffinityArgs& args, framework::Handle& handle);

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;

  // PreFilter: Skip when the pod has no required terms and no existing
  // pod's anti-affinity matches it; UnschedulableAndUnresolvable "parsing
  // pod: ..." when a selector of the pod is malformed.
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

  // PreScore: Skip when nothing can contribute to any score.
  framework::Status PreScore(framework::CycleState& state, const api::Pod& pod,
                             const framework::NodeInfoList& nodes) override;
  std::pair<int64_t, framework::Status> Score(framework::CycleState& state, const api::Pod& pod,
                                              const framework::NodeInfo& node_info) override;
  framework::ScoreExtensions* GetScoreExtensions() override { return this; }
  framework::Status NormalizeScore(framework::CycleState& state, const api::Pod& pod,
                                   framework::NodeScoreList& scores) override;

  // Pod/Add|UpdatePodLabel|Delete and Node/Add|UpdateNodeLabel (plus
  // UpdateNodeTaint without queueing hints), with the hints below.
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  // Only assigned pods count. Add: Queue if the new pod matches all of the
  // pod's required affinity terms. Update: Queue if it starts matching all
  // affinity terms or stops matching some anti-affinity term. Delete: Queue
  // if the deleted pod matched some anti-affinity term of the pod, or one of
  // its own required anti-affinity terms matched the pod.
  util::StatusOr<framework::QueueingHint> IsSchedulableAfterPodChange(const api::Pod& pod,
                                                                      const framework::EventObject& old_obj,
                                                                      const framework::EventObject& new_obj) const;
  // Affinity terms: Queue if an added node has the term's topology key, or an
  // update gave the node the key or changed its value. Anti-affinity terms:
  // Queue for any added node, or an update that removed the key or changed
  // its value. A pod without required terms was rejected by existing pods'
  // anti-affinity: Queue for any added node or any label change.
  util::StatusOr<framework::QueueingHint> IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                                       const framework::EventObject& old_obj,
                                                                       const framework::EventObject& new_obj) const;

 private:
  // Resolves the term's namespace selector into namespace names (kube's
  // mergeAffinityTermNamespacesIfNotEmpty): afterwards the selector is
  // either Everything or Nothing.
  void MergeTermNamespaces(framework::AffinityTerm& term) const;
  // The labels of namespace `ns`, empty when it is unknown.
  api::StringMap NamespaceLabels(const std::string& ns) const;

  int32_t hard_pod_affinity_weight_;
  bool ignore_preferred_terms_of_existing_pods_;
  bool enable_queueing_hints_;
  framework::Handle& handle_;

  // PreFilter's and PreScore's counters, by signature of the incoming pod
  // (see hit_counter.h and signature.h).
  std::mutex mu_;
  HitCounterCache counters_{kCounterCacheSize};  // guarded by mu_
};

// The factory: `args` must be InterPodAffinityArgs (validated) or monostate
// (defaults).
util::StatusOr<std::shared_ptr<InterPodAffinity>> New(const config::PluginArgs& args, framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::interpodaffinity
