// TaintToleration: keeps pods off nodes with NoSchedule/NoExecute taints they
// do not tolerate, and prefers nodes with fewer untolerated PreferNoSchedule
// taints (kube's TaintToleration, v1.34 semantics).
//
// Filter: the first untolerated NoSchedule/NoExecute taint rejects the node,
// UnschedulableAndUnresolvable "node(s) had untolerated taint {key: value}".
// PreScore keeps the pod's tolerations that can tolerate PreferNoSchedule
// (empty or PreferNoSchedule effect); Score counts the node's
// PreferNoSchedule taints none of them tolerates; NormalizeScore maps the
// counts onto 0-100 reversed (fewest untolerated taints = 100).
//
// Events:
//   hints on:  Node/Add|UpdateNodeTaint -> Queue iff the node's
//                NoSchedule/NoExecute taints were not all tolerated before
//                (or the node is new) and now are;
//              Pod/UpdatePodToleration  -> Queue iff it is this pod;
//   hints off: Node/Add|UpdateNodeTaint|UpdateNodeLabel with the node hint.
// From kube 1.37 (FeatureGates::node_name_prefilter_order) it also has a
// PreFilter, which lets every node through.
//
// Thread-safety: immutable after construction; safe to call concurrently.
// Filter and Score allocate nothing on success.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>
#include <span>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_signature.h"

namespace ksched::scheduler::plugins::tainttoleration {

inline constexpr std::string_view kName = "TaintToleration";
inline constexpr std::string_view kPreScoreStateKey = "PreScoreTaintToleration";

class TaintToleration : public framework::SignPlugin,
                        public framework::FilterPlugin,
                              public framework::PreScorePlugin,
                              public framework::ScorePlugin,
                              public framework::ScoreExtensions,
                              public framework::EnqueueExtensions {
 public:
  explicit TaintToleration(bool enable_queueing_hints) : enable_queueing_hints_(enable_queueing_hints) {}

  // kube 1.37's PreFilter (helper::WithPreFilter) looks at every node.
  static framework::PreFilterResult PreFilterNodes(const api::Pod&) {
    return framework::PreFilterResult::AllNodesResult();
  }

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  void FilterNodes(framework::CycleState& state, const api::Pod& pod, std::span<const framework::NodeInfo* const> nodes,
                   uint64_t* alive, framework::Status* out) override;
  bool ReadsNodeLabels() const override { return false; }
  framework::Status PreScore(framework::CycleState& state, const api::Pod& pod,
                             const framework::NodeInfoList& nodes) override;
  std::pair<int64_t, framework::Status> Score(framework::CycleState& state, const api::Pod& pod,
                                              const framework::NodeInfo& node_info) override;
  framework::Status ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                               std::span<const framework::NodeInfo* const> nodes, framework::NodeScore* out) override;
  framework::ScoreExtensions* GetScoreExtensions() override { return this; }
  framework::Status NormalizeScore(framework::CycleState& state, const api::Pod& pod,
                                   framework::NodeScoreList& scores) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                                              const framework::EventObject& old_obj,
                                                                              const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterPodTolerationChange(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);

 private:
  bool enable_queueing_hints_;
};

std::unique_ptr<TaintToleration> New(const framework::FeatureGates& features);

}  // namespace ksched::scheduler::plugins::tainttoleration
