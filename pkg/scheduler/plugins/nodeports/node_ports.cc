#include "pkg/scheduler/plugins/nodeports/node_ports.h"

#include <string>

#include "pkg/api/pod_helpers.h"

namespace ksched::scheduler::plugins::nodeports {

using framework::ActionType;
using framework::QueueingHint;

namespace {

// Interned once: the per-node reads index a slot.
const framework::StateKey kPreFilterStateKeySlot(kPreFilterStateKey);

// The pod's host ports. Immutable once written: clones share it.
class PreFilterState final : public framework::StateData, public std::enable_shared_from_this<PreFilterState> {
 public:
  explicit PreFilterState(std::vector<api::HostPort> ports) : ports(std::move(ports)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<PreFilterState>(shared_from_this());
  }

  const std::vector<api::HostPort> ports;
};

// True when none of `want` conflicts with `in_use`.
bool FitsPorts(const std::vector<api::HostPort>& want, const framework::HostPortInfo& in_use) {
  if (in_use.entries().empty()) return true;
  for (const api::HostPort& p : want) {
    if (in_use.CheckConflict(p.host_ip, p.protocol, p.port)) return false;
  }
  return true;
}

}  // namespace

bool Fits(const api::Pod& pod, const framework::NodeInfo& node_info) {
  return FitsPorts(api::PodHostPorts(pod), node_info.used_ports());
}

std::pair<framework::PreFilterResult, framework::Status> NodePorts::PreFilter(framework::CycleState& state,
                                                                              const api::Pod& pod,
                                                                              const framework::NodeInfoList&) {
  std::vector<api::HostPort> ports = api::PodHostPorts(pod);
  if (ports.empty()) return {framework::PreFilterResult(), framework::Status(framework::Code::kSkip)};
  state.Write(kPreFilterStateKeySlot, std::make_shared<PreFilterState>(std::move(ports)));
  return {framework::PreFilterResult(), framework::Status()};
}

framework::Status NodePorts::Filter(framework::CycleState& state, const api::Pod& /*pod*/,
                                    const framework::NodeInfo& node_info) {
  PreFilterState* s = state.Lookup<PreFilterState>(kPreFilterStateKeySlot);
  if (s == nullptr) {
    return framework::Status::Error("reading \"" + std::string(kPreFilterStateKey) + "\" from cycleState: not found");
  }
  if (FitsPorts(s->ports, node_info.used_ports())) return framework::Status();
  static const framework::Status kRejected = framework::Rejection(framework::Code::kUnschedulable, kErrReason, kName);
  return kRejected;
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> NodePorts::EventsToRegister() const {
  // Without hints the queue's node pre-check can swallow a Node/Add, so label
  // and taint updates are registered too (kubernetes#109437).
  ActionType node_actions = ActionType::kAdd;
  if (!enable_queueing_hints_) node_actions |= ActionType::kUpdateNodeTaint | ActionType::kUpdateNodeLabel;
  std::vector<framework::ClusterEventWithHint> events;
  // Container ports are immutable, so pod updates never free a port.
  events.push_back({framework::ClusterEvent(framework::resource::kPod, ActionType::kDelete),
                    &NodePorts::IsSchedulableAfterPodDeleted});
  events.push_back({framework::ClusterEvent(framework::resource::kNode, node_actions), nullptr});
  return events;
}

util::StatusOr<QueueingHint> NodePorts::IsSchedulableAfterPodDeleted(const api::Pod& pod,
                                                                     const framework::EventObject& old_obj,
                                                                     const framework::EventObject& /*new_obj*/) {
  const api::Pod* deleted = old_obj.As<api::Pod>();
  if (deleted == nullptr)
    return util::InvalidArgument("NodePorts: unexpected object in a pod delete event: want a Pod");
  // A pod that was neither bound nor nominated held no ports anywhere.
  if (deleted->spec.node_name.empty() && deleted->status.nominated_node_name.empty()) {
    return QueueingHint::kQueueSkip;
  }
  std::vector<api::HostPort> freed = api::PodHostPorts(*deleted);
  if (freed.empty()) return QueueingHint::kQueueSkip;
  framework::HostPortInfo freed_info;
  for (const api::HostPort& p : freed) freed_info.Add(p.host_ip, p.protocol, p.port);
  if (FitsPorts(api::PodHostPorts(pod), freed_info)) return QueueingHint::kQueueSkip;
  return QueueingHint::kQueue;
}

std::unique_ptr<NodePorts> New(const framework::FeatureGates& features) {
  return std::make_unique<NodePorts>(features.scheduler_queueing_hints);
}

framework::Status NodePorts::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  out.push_back({framework::signer::kHostPorts, framework::HostPortsSignature(pod)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::nodeports
