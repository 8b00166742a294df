// NodeUnschedulable: the Filter plugin that keeps pods off nodes with
// spec.unschedulable=true (cordoned), unless the pod tolerates the
// node.kubernetes.io/unschedulable:NoSchedule taint, as DaemonSet pods do.
//
// Rejections are UnschedulableAndUnresolvable with kErrReasonUnschedulable.
// Events (kube-scheduler v1.34):
//   hints on:  Node/Add|UpdateNodeTaint  -> Queue iff the node was added
//                                           schedulable or became schedulable
//              Pod/UpdatePodToleration   -> Queue iff it is this pod and it
//                                           now tolerates the taint above
//   hints off: Node/Add|UpdateNodeTaint|UpdateNodeLabel with the node hint
//              (no pod event: the pod's own update already retries it).
//
// From kube 1.37 (FeatureGates::node_name_prefilter_order) it also has a
// PreFilter, which lets every node through.
//
// Thread-safety: immutable after construction; safe to call concurrently.
// Filter allocates nothing on success.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_signature.h"

namespace ksched::scheduler::plugins::nodeunschedulable {

inline constexpr std::string_view kName = "NodeUnschedulable";
inline constexpr std::string_view kErrReasonUnschedulable = "node(s) were unschedulable";

// Whether the tolerations tolerate node.kubernetes.io/unschedulable:NoSchedule.
bool ToleratesUnschedulable(const std::vector<api::Toleration>& tolerations);

class NodeUnschedulable : public framework::SignPlugin,
                          public framework::FilterPlugin, public framework::EnqueueExtensions {
 public:
  explicit NodeUnschedulable(bool enable_queueing_hints) : enable_queueing_hints_(enable_queueing_hints) {}

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
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                                              const framework::EventObject& old_obj,
                                                                              const framework::EventObject& new_obj);
  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterPodTolerationChange(
      const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj);

 private:
  bool enable_queueing_hints_;
};

std::unique_ptr<NodeUnschedulable> New(const framework::FeatureGates& features);

}  // namespace ksched::scheduler::plugins::nodeunschedulable
