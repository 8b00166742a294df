#include "pkg/scheduler/plugins/nodedeclaredfeatures/node_declared_features.h"

#include <algorithm>
#include <string>

#include "pkg/scheduler/plugins/nodedeclaredfeatures/feature_registry.h"

namespace ksched::scheduler::plugins::nodedeclaredfeatures {

using framework::ActionType;
using framework::QueueingHint;

namespace {

const framework::StateKey kPreFilterStateKeySlot(kPreFilterStateKey);

// The features the pod needs. Immutable once written: clones share it.
class RequiredState final : public framework::StateData, public std::enable_shared_from_this<RequiredState> {
 public:
  explicit RequiredState(std::vector<std::string_view> features) : features(std::move(features)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<RequiredState>(shared_from_this());
  }
  const std::vector<std::string_view> features;
};

}  // namespace

std::pair<framework::PreFilterResult, framework::Status> NodeDeclaredFeatures::PreFilter(
    framework::CycleState& state, const api::Pod& pod, const framework::NodeInfoList&) {
  if (!enabled_) return {framework::PreFilterResult(), framework::Status(framework::Code::kSkip)};
  std::vector<std::string_view> required = RequiredFeatures(pod, minor_);
  if (required.empty()) return {framework::PreFilterResult(), framework::Status(framework::Code::kSkip)};
  state.Write(kPreFilterStateKeySlot, std::make_shared<RequiredState>(std::move(required)));
  return {framework::PreFilterResult(), framework::Status()};
}

framework::Status NodeDeclaredFeatures::Filter(framework::CycleState& state, const api::Pod& /*pod*/,
                                               const framework::NodeInfo& node_info) {
  if (!enabled_) return framework::Status();
  RequiredState* s = state.Lookup<RequiredState>(kPreFilterStateKeySlot);
  if (s == nullptr) {
    return framework::Status::Error("error reading \"" + std::string(kPreFilterStateKey) +
                                    "\" from cycle-state: not found");
  }
  if (node_info.node() == nullptr) return framework::Status::Error("node not found");
  if (Declares(node_info.node()->status.declared_features, s->features, minor_)) return framework::Status();
  return framework::Status(framework::Code::kUnschedulableAndUnresolvable, std::string(kErrReason));
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> NodeDeclaredFeatures::EventsToRegister() const {
  std::vector<framework::ClusterEventWithHint> events;
  if (!enabled_) return events;
  events.push_back({framework::ClusterEvent(framework::resource::kNode,
                                            ActionType::kAdd | ActionType::kUpdateNodeDeclaredFeature),
                    &NodeDeclaredFeatures::IsSchedulableAfterNodeChange});
  return events;
}

util::StatusOr<QueueingHint> NodeDeclaredFeatures::IsSchedulableAfterNodeChange(const api::Pod& /*pod*/,
                                                                                const framework::EventObject& old_obj,
                                                                                const framework::EventObject& new_obj) {
  const api::Node* new_node = new_obj.As<api::Node>();
  if (new_node == nullptr) {
    return util::InvalidArgument("NodeDeclaredFeatures: unexpected object in a node event: want a Node");
  }
  const api::Node* old_node = old_obj.As<api::Node>();
  if (old_node != nullptr && old_node->status.declared_features == new_node->status.declared_features) {
    return QueueingHint::kQueueSkip;
  }
  return QueueingHint::kQueue;
}

std::unique_ptr<NodeDeclaredFeatures> New(const framework::FeatureGates& features) {
  return std::make_unique<NodeDeclaredFeatures>(features.node_declared_features, features.minor);
}

framework::Status NodeDeclaredFeatures::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  std::vector<std::string_view> required = RequiredFeatures(pod, minor_);
  std::sort(required.begin(), required.end());
  std::string features;
  for (std::string_view f : required) framework::AppendSignatureString(features, f);
  out.push_back({framework::signer::kFeatures, std::move(features)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::nodedeclaredfeatures
