#include "pkg/scheduler/plugins/nodename/node_name.h"

#include <bit>

#include "pkg/scheduler/plugins/helper/with_prefilter.h"

namespace ksched::scheduler::plugins::nodename {

using framework::ActionType;

bool Fits(const api::Pod& pod, const framework::NodeInfo& node_info) {
  return pod.spec.node_name.empty() || pod.spec.node_name == node_info.node_name();
}

framework::PreFilterResult NodeName::PreFilterNodes(const api::Pod& pod) {
  if (pod.spec.node_name.empty()) return framework::PreFilterResult::AllNodesResult();
  return framework::PreFilterResult::Nodes({pod.spec.node_name});
}

namespace {

// Inline: FilterNodes runs it per node.
[[gnu::always_inline]] inline framework::Status FilterOne(const api::Pod& pod, const framework::NodeInfo& node_info) {
  if (node_info.node() == nullptr) return framework::Status::Error("node not found");
  if (Fits(pod, node_info)) return framework::Status();
  static const framework::Status kRejected =
      framework::Rejection(framework::Code::kUnschedulableAndUnresolvable, kErrReason, kName);
  return kRejected;
}

}  // namespace

framework::Status NodeName::Filter(framework::CycleState& /*state*/, const api::Pod& pod,
                                   const framework::NodeInfo& node_info) {
  return FilterOne(pod, node_info);
}

void NodeName::FilterNodes(framework::CycleState& /*state*/, const api::Pod& pod,
                           std::span<const framework::NodeInfo* const> nodes, uint64_t* alive, framework::Status* out) {
  // A pod that names no node fits every node that has one: the common case
  // costs a load per node, not a call.
  if (pod.spec.node_name.empty()) {
    bool all_have_nodes = true;
    for (uint64_t left = *alive; left != 0; left &= left - 1) {
      all_have_nodes &= nodes[static_cast<size_t>(std::countr_zero(left))]->node() != nullptr;
    }
    if (all_have_nodes) return;
  }
  framework::FilterEachAlive(nodes, alive, out,
                             [&pod](const framework::NodeInfo& node) { return FilterOne(pod, node); });
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> NodeName::EventsToRegister() const {
  // Without hints the queue's node pre-check can swallow a Node/Add, so label
  // and taint updates are registered too (kubernetes#109437).
  ActionType node_actions = ActionType::kAdd;
  if (!enable_queueing_hints_) node_actions |= ActionType::kUpdateNodeTaint | ActionType::kUpdateNodeLabel;
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back({framework::ClusterEvent(framework::resource::kNode, node_actions), nullptr});
  return events;
}

std::unique_ptr<NodeName> New(const framework::FeatureGates& features) {
  if (features.node_name_prefilter_order) {
    return std::make_unique<helper::WithPreFilter<NodeName>>(features.scheduler_queueing_hints);
  }
  return std::make_unique<NodeName>(features.scheduler_queueing_hints);
}

framework::Status NodeName::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  out.push_back({framework::signer::kNodeName, pod.spec.node_name});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::nodename
