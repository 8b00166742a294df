#include "pkg/scheduler/plugins/nodeunschedulable/node_unschedulable.h"

#include "pkg/scheduler/plugins/helper/with_prefilter.h"

#include <string>

#include "pkg/api/taints.h"

namespace ksched::scheduler::plugins::nodeunschedulable {

using framework::ActionType;
using framework::QueueingHint;

namespace {

// The taint a cordoned node is treated as carrying.
const api::Taint& UnschedulableTaint() {
  static const api::Taint* taint = [] {
    auto* t = new api::Taint();
    t->key = std::string(api::kTaintNodeUnschedulable);
    t->effect = std::string(api::kTaintEffectNoSchedule);
    return t;
  }();
  return *taint;
}

}  // namespace

bool ToleratesUnschedulable(const std::vector<api::Toleration>& tolerations) {
  return api::TolerationsTolerateTaint(tolerations, UnschedulableTaint());
}

namespace {

// Inline: FilterNodes runs it per node.
[[gnu::always_inline]] inline framework::Status FilterOne(const api::Pod& pod, const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  if (!node->spec.unschedulable || ToleratesUnschedulable(pod.spec.tolerations)) return framework::Status();
  static const framework::Status kRejected =
      framework::Rejection(framework::Code::kUnschedulableAndUnresolvable, kErrReasonUnschedulable, kName);
  return kRejected;
}

}  // namespace

framework::Status NodeUnschedulable::Filter(framework::CycleState& /*state*/, const api::Pod& pod,
                                            const framework::NodeInfo& node_info) {
  return FilterOne(pod, node_info);
}

void NodeUnschedulable::FilterNodes(framework::CycleState& /*state*/, const api::Pod& pod,
                                    std::span<const framework::NodeInfo* const> nodes, uint64_t* alive,
                                    framework::Status* out) {
  framework::FilterEachAlive(nodes, alive, out, [&pod](const framework::NodeInfo& node) {
    // Most nodes are schedulable: told without reading their Node.
    if (!node.node_unschedulable() && node.node() != nullptr) return framework::Status();
    return FilterOne(pod, node);
  });
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> NodeUnschedulable::EventsToRegister() const {
  std::vector<framework::ClusterEventWithHint> events;
  if (!enable_queueing_hints_) {
    // Label updates stand in for node adds hidden by the queue's pre-check
    // (kubernetes#109437); the pod's own update retries it without hints.
    events.push_back(
        {framework::ClusterEvent(framework::resource::kNode,
                                 ActionType::kAdd | ActionType::kUpdateNodeTaint | ActionType::kUpdateNodeLabel),
         &NodeUnschedulable::IsSchedulableAfterNodeChange});
    return events;
  }
  events.push_back(
      {framework::ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint),
       &NodeUnschedulable::IsSchedulableAfterNodeChange});
  events.push_back({framework::ClusterEvent(framework::resource::kPod, ActionType::kUpdatePodToleration),
                    &NodeUnschedulable::IsSchedulableAfterPodTolerationChange});
  return events;
}

util::StatusOr<QueueingHint> NodeUnschedulable::IsSchedulableAfterNodeChange(const api::Pod& /*pod*/,
                                                                             const framework::EventObject& old_obj,
                                                                             const framework::EventObject& new_obj) {
  const api::Node* original = old_obj.As<api::Node>();
  const api::Node* modified = new_obj.As<api::Node>();
  if (modified == nullptr || (!old_obj.empty() && original == nullptr)) {
    return util::InvalidArgument("NodeUnschedulable: unexpected objects in a node event: want Nodes");
  }
  // Queue when a schedulable node appears or a cordoned one is uncordoned.
  if (!modified->spec.unschedulable && (original == nullptr || original->spec.unschedulable)) {
    return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> NodeUnschedulable::IsSchedulableAfterPodTolerationChange(
    const api::Pod& pod, const framework::EventObject& /*old_obj*/, const framework::EventObject& new_obj) {
  const api::Pod* modified = new_obj.As<api::Pod>();
  if (modified == nullptr) {
    return util::InvalidArgument("NodeUnschedulable: unexpected object in a pod toleration event: want a Pod");
  }
  // Tolerations can only be added, and this pod was rejected, so it did not
  // tolerate the taint before: checking the new tolerations is enough.
  if (modified->metadata.uid == pod.metadata.uid && ToleratesUnschedulable(modified->spec.tolerations)) {
    return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

std::unique_ptr<NodeUnschedulable> New(const framework::FeatureGates& features) {
  if (features.node_name_prefilter_order) {
    return std::make_unique<helper::WithPreFilter<NodeUnschedulable>>(features.scheduler_queueing_hints);
  }
  return std::make_unique<NodeUnschedulable>(features.scheduler_queueing_hints);
}

framework::Status NodeUnschedulable::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  out.push_back({framework::signer::kTolerations, framework::TolerationsSignature(pod)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::nodeunschedulable
