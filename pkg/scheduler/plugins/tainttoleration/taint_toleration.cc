#include "pkg/scheduler/plugins/tainttoleration/taint_toleration.h"

#include <algorithm>
#include <string>

#include "pkg/api/taints.h"
#include "pkg/scheduler/plugins/helper/with_prefilter.h"
#include "pkg/scheduler/plugins/helper/normalize_score.h"

namespace ksched::scheduler::plugins::tainttoleration {

using framework::ActionType;
using framework::QueueingHint;

namespace {

// Interned once: the per-node reads index a slot.
const framework::StateKey kPreScoreStateKeySlot(kPreScoreStateKey);

// The tolerations that can tolerate a PreferNoSchedule taint. Immutable once
// written: clones share it.
class PreScoreState final : public framework::StateData, public std::enable_shared_from_this<PreScoreState> {
 public:
  explicit PreScoreState(std::vector<api::Toleration> tolerations) : tolerations(std::move(tolerations)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<PreScoreState>(shared_from_this());
  }
  const std::vector<api::Toleration> tolerations;
};

// The first NoSchedule/NoExecute taint none of the tolerations tolerates.
const api::Taint* FirstUntoleratedDoNotScheduleTaint(const std::vector<api::Taint>& taints,
                                                     const std::vector<api::Toleration>& tolerations) {
  for (const api::Taint& taint : taints) {
    if (!api::IsNoScheduleOrNoExecute(taint)) continue;
    if (!api::TolerationsTolerateTaint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

int64_t CountIntolerablePreferNoSchedule(const std::vector<api::Taint>& taints,
                                         const std::vector<api::Toleration>& prefer_no_schedule_tolerations) {
  int64_t count = 0;
  for (const api::Taint& taint : taints) {
    if (taint.effect != api::kTaintEffectPreferNoSchedule) continue;
    if (!api::TolerationsTolerateTaint(prefer_no_schedule_tolerations, taint)) ++count;
  }
  return count;
}

std::vector<api::Toleration> PreferNoScheduleTolerations(const std::vector<api::Toleration>& tolerations) {
  std::vector<api::Toleration> out;
  for (const api::Toleration& t : tolerations) {
    // An empty effect tolerates every effect, PreferNoSchedule included.
    if (t.effect.empty() || t.effect == api::kTaintEffectPreferNoSchedule) out.push_back(t);
  }
  return out;
}

}  // namespace

namespace {

// Inline: FilterNodes runs it per node.
[[gnu::always_inline]] inline framework::Status FilterOne(const api::Pod& pod, const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("invalid nodeInfo");
  const api::Taint* taint = FirstUntoleratedDoNotScheduleTaint(node->spec.taints, pod.spec.tolerations);
  if (taint == nullptr) return framework::Status();
  // kube-scheduler v1.34 no longer names the taint in the reason (only its
  // V(4) log does), so equal failures aggregate into one fitError entry.
  static const framework::Status kRejected =
      framework::Rejection(framework::Code::kUnschedulableAndUnresolvable, "node(s) had untolerated taint(s)", kName);
  return kRejected;
}

}  // namespace

framework::Status TaintToleration::Filter(framework::CycleState& /*state*/, const api::Pod& pod,
                                          const framework::NodeInfo& node_info) {
  return FilterOne(pod, node_info);
}

void TaintToleration::FilterNodes(framework::CycleState& /*state*/, const api::Pod& pod,
                                  std::span<const framework::NodeInfo* const> nodes, uint64_t* alive,
                                  framework::Status* out) {
  framework::FilterEachAlive(nodes, alive, out, [&pod](const framework::NodeInfo& node) {
    // Most nodes have no taints: told without reading their Node.
    if (!node.node_has_taints() && node.node() != nullptr) return framework::Status();
    return FilterOne(pod, node);
  });
}

framework::Status TaintToleration::PreScore(framework::CycleState& state, const api::Pod& pod,
                                            const framework::NodeInfoList&) {
  state.Write(kPreScoreStateKeySlot, std::make_shared<PreScoreState>(PreferNoScheduleTolerations(pod.spec.tolerations)));
  return framework::Status();
}

std::pair<int64_t, framework::Status> TaintToleration::Score(framework::CycleState& state, const api::Pod& /*pod*/,
                                                             const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return {0, framework::Status::Error("invalid nodeInfo")};
  PreScoreState* s = state.Lookup<PreScoreState>(kPreScoreStateKeySlot);
  if (s == nullptr) {
    return {0, framework::Status::Error("failed to read \"" + std::string(kPreScoreStateKey) +
                                        "\" from cycleState: not found")};
  }
  return {CountIntolerablePreferNoSchedule(node->spec.taints, s->tolerations), framework::Status()};
}

framework::Status TaintToleration::ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                                              std::span<const framework::NodeInfo* const> nodes,
                                              framework::NodeScore* out) {
  PreScoreState* s = state.Lookup<PreScoreState>(kPreScoreStateKeySlot);
  if (s == nullptr) return ScorePlugin::ScoreNodes(state, pod, nodes, out);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const api::Node* node = nodes[i]->node();
    if (node == nullptr) return framework::Status::Error("invalid nodeInfo");
    // Most nodes have no taints: no read of their Node, no call.
    out[i].score = nodes[i]->node_has_taints() ? CountIntolerablePreferNoSchedule(node->spec.taints, s->tolerations) : 0;
  }
  return framework::Status();
}

framework::Status TaintToleration::NormalizeScore(framework::CycleState& /*state*/, const api::Pod& /*pod*/,
                                                  framework::NodeScoreList& scores) {
  helper::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/true, scores);
  return framework::Status();
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> TaintToleration::EventsToRegister() const {
  std::vector<framework::ClusterEventWithHint> events;
  if (!enable_queueing_hints_) {
    // Label updates stand in for node adds hidden by the queue's pre-check
    // (kubernetes#109437); the pod's own update retries it without hints.
    events.push_back(
        {framework::ClusterEvent(framework::resource::kNode,
                                 ActionType::kAdd | ActionType::kUpdateNodeTaint | ActionType::kUpdateNodeLabel),
         &TaintToleration::IsSchedulableAfterNodeChange});
    return events;
  }
  events.push_back(
      {framework::ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint),
       &TaintToleration::IsSchedulableAfterNodeChange});
  events.push_back({framework::ClusterEvent(framework::resource::kPod, ActionType::kUpdatePodToleration),
                    &TaintToleration::IsSchedulableAfterPodTolerationChange});
  return events;
}

util::StatusOr<QueueingHint> TaintToleration::IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                                           const framework::EventObject& old_obj,
                                                                           const framework::EventObject& new_obj) {
  const api::Node* original = old_obj.As<api::Node>();
  const api::Node* modified = new_obj.As<api::Node>();
  if (modified == nullptr || (!old_obj.empty() && original == nullptr)) {
    return util::InvalidArgument("TaintToleration: unexpected objects in a node event: want Nodes");
  }
  const bool was_untolerated =
      original == nullptr || FirstUntoleratedDoNotScheduleTaint(original->spec.taints, pod.spec.tolerations) != nullptr;
  const bool is_untolerated =
      FirstUntoleratedDoNotScheduleTaint(modified->spec.taints, pod.spec.tolerations) != nullptr;
  return was_untolerated && !is_untolerated ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> TaintToleration::IsSchedulableAfterPodTolerationChange(
    const api::Pod& pod, const framework::EventObject& /*old_obj*/, const framework::EventObject& new_obj) {
  const api::Pod* modified = new_obj.As<api::Pod>();
  if (modified == nullptr) {
    return util::InvalidArgument("TaintToleration: unexpected object in a pod toleration event: want a Pod");
  }
  return modified->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

std::unique_ptr<TaintToleration> New(const framework::FeatureGates& features) {
  if (features.node_name_prefilter_order) {
    return std::make_unique<helper::WithPreFilter<TaintToleration>>(features.scheduler_queueing_hints);
  }
  return std::make_unique<TaintToleration>(features.scheduler_queueing_hints);
}

framework::Status TaintToleration::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  out.push_back({framework::signer::kTolerations, framework::TolerationsSignature(pod)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::tainttoleration
