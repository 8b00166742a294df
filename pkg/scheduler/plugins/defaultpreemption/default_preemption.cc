#include "pkg/scheduler/plugins/defaultpreemption/default_preemption.h"

#include "pkg/config/args_as.h"

namespace ksched::scheduler::plugins::defaultpreemption {

DefaultPreemption::DefaultPreemption(DefaultPreemptionArgs args, framework::Handle& handle,
                                     OffsetSource offset)
    : min_candidate_nodes_percentage_(args.min_candidate_nodes_percentage.value_or(10)),
      min_candidate_nodes_absolute_(args.min_candidate_nodes_absolute.value_or(100)),
      async_preemption_(handle.Features().scheduler_async_preemption),
      handle_(handle),
      offset_(std::move(offset)),
      rng_(std::random_device{}()),
      evaluator_(std::string(kName), handle, *this) {}

std::pair<framework::PostFilterResult, framework::Status> DefaultPreemption::PostFilter(
    framework::CycleState& state, const api::Pod& pod, const framework::NodeToStatus& filtered_node_status) {
  if (framework::PreemptionWriter* w = handle_.Preemption()) w->ObservePreemptionAttempt();
  auto [result, status] = evaluator_.Preempt(state, pod, filtered_node_status);
  if (!status.Message().empty()) {
    return {std::move(result), framework::Status(status.code(), "preemption: " + status.Message())};
  }
  return {std::move(result), std::move(status)};
}

framework::Status DefaultPreemption::PreEnqueue(const api::Pod& pod) {
  if (!async_preemption_ || !evaluator_.IsPodRunningPreemption(pod)) return framework::Status();
  return framework::Status(framework::Code::kUnschedulableAndUnresolvable,
                           "waiting for the preemption for this pod to be finished");
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> DefaultPreemption::EventsToRegister() const {
  if (!async_preemption_) return std::vector<framework::ClusterEventWithHint>{};
  // Pods this plugin gates have run their preemption already and wait for
  // it to finish: a deletion alone never moves them, the other plugins'
  // hints for the same event do.
  auto skip = [](const api::Pod&, const framework::EventObject&,
                 const framework::EventObject&) -> util::StatusOr<framework::QueueingHint> {
    return framework::QueueingHint::kQueueSkip;
  };
  return std::vector<framework::ClusterEventWithHint>{
      {framework::ClusterEvent(framework::resource::kPod, framework::ActionType::kDelete), skip}};
}

util::StatusOr<std::shared_ptr<DefaultPreemption>> New(const config::PluginArgs& args, framework::Handle& handle,
                                                       OffsetSource offset) {
  util::StatusOr<DefaultPreemptionArgs> a = config::ArgsAs<DefaultPreemptionArgs>(args);
  if (!a.ok()) return a.status();
  return std::make_shared<DefaultPreemption>(*a, handle, std::move(offset));
}

}  // namespace ksched::scheduler::plugins::defaultpreemption
