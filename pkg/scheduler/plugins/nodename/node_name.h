// NodeName: the Filter plugin that honours spec.nodeName. A pod that names a
// node fits only that node; a pod without one fits every node.
//
// Rejections are UnschedulableAndUnresolvable with kErrReason (preemption
// cannot change a node's name). Events: Node/Add (with queueing hints off
// also Node/UpdateNodeTaint|UpdateNodeLabel, which stand in for adds the
// queue's pre-check may hide), no hint: a new node always re-queues.
//
// From kube 1.37 (FeatureGates::node_name_prefilter_order) it also has a
// PreFilter that narrows Filter to spec.nodeName.
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

namespace ksched::scheduler::plugins::nodename {

inline constexpr std::string_view kName = "NodeName";
inline constexpr std::string_view kErrReason = "node(s) didn't match the requested node name";

// Whether `pod` may run on `node_info` as far as spec.nodeName is concerned.
bool Fits(const api::Pod& pod, const framework::NodeInfo& node_info);

class NodeName : public framework::SignPlugin,
                 public framework::FilterPlugin, public framework::EnqueueExtensions {
 public:
  explicit NodeName(bool enable_queueing_hints) : enable_queueing_hints_(enable_queueing_hints) {}

  // kube 1.37's PreFilter (helper::WithPreFilter): a pod that names a node
  // needs only that node looked at, so the others are unresolvable and no
  // preemption targets them.
  static framework::PreFilterResult PreFilterNodes(const api::Pod& pod);

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  void FilterNodes(framework::CycleState& state, const api::Pod& pod, std::span<const framework::NodeInfo* const> nodes,
                   uint64_t* alive, framework::Status* out) override;
  bool ReadsNodeLabels() const override { return false; }
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

 private:
  bool enable_queueing_hints_;
};

std::unique_ptr<NodeName> New(const framework::FeatureGates& features);

}  // namespace ksched::scheduler::plugins::nodename
