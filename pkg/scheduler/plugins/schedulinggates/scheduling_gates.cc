#include "pkg/scheduler/plugins/schedulinggates/scheduling_gates.h"

#include <string>

namespace ksched::scheduler::plugins::schedulinggates {

framework::Status SchedulingGates::PreEnqueue(const api::Pod& pod) {
  if (pod.spec.scheduling_gates.empty()) return framework::Status();
  // Go prints a []string as "[a b]".
  std::string names = "[";
  for (size_t i = 0; i < pod.spec.scheduling_gates.size(); ++i) {
    if (i > 0) names += " ";
    names += pod.spec.scheduling_gates[i].name;
  }
  names += "]";
  return framework::Status(framework::Code::kUnschedulableAndUnresolvable, "waiting for scheduling gates: " + names);
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> SchedulingGates::EventsToRegister() const {
  std::vector<framework::ClusterEventWithHint> events;
  if (!enable_queueing_hints_) return events;
  events.push_back(framework::ClusterEventWithHint{
      framework::ClusterEvent(framework::resource::kPod, framework::ActionType::kUpdatePodSchedulingGatesEliminated),
      &SchedulingGates::IsSchedulableAfterUpdatePodSchedulingGatesEliminated});
  return events;
}

util::StatusOr<framework::QueueingHint> SchedulingGates::IsSchedulableAfterUpdatePodSchedulingGatesEliminated(
    const api::Pod& pod, const framework::EventObject& /*old_obj*/, const framework::EventObject& new_obj) {
  const api::Pod* modified = new_obj.As<api::Pod>();
  if (modified == nullptr) {
    return util::InvalidArgument("unexpected object in UpdatePodSchedulingGatesEliminated event: want a Pod");
  }
  if (modified->metadata.uid != pod.metadata.uid) return framework::QueueingHint::kQueueSkip;
  return framework::QueueingHint::kQueue;
}

std::unique_ptr<SchedulingGates> New(const framework::FeatureGates& features) {
  return std::make_unique<SchedulingGates>(features.scheduler_queueing_hints);
}

}  // namespace ksched::scheduler::plugins::schedulinggates
