// Whether a pod may preempt (kube's PodEligibleToPreemptOthers).
#include "pkg/scheduler/plugins/defaultpreemption/default_preemption.h"

namespace ksched::scheduler::plugins::defaultpreemption {

namespace {

// The pod is terminating because the scheduler preempted it: it has a
// deletion timestamp and a DisruptionTarget=True condition with reason
// PreemptionByScheduler.
bool TerminatingByPreemption(const api::Pod& p) {
  if (!p.metadata.deletion_timestamp) return false;
  for (const api::PodCondition& c : p.status.conditions) {
    if (c.type == "DisruptionTarget") return c.status == "True" && c.reason == "PreemptionByScheduler";
  }
  return false;
}

}  // namespace

std::pair<bool, std::string> DefaultPreemption::PodEligibleToPreemptOthers(
    const api::Pod& pod, const framework::Status& nominated_node_status) {
  if (pod.spec.preemption_policy && *pod.spec.preemption_policy == "Never") {
    return {false, "not eligible due to preemptionPolicy=Never."};
  }
  const std::string& nominated = pod.status.nominated_node_name;
  // The filters say nothing on the nominated node can help: preempt anew.
  if (!nominated.empty() && nominated_node_status.code() == framework::Code::kUnschedulableAndUnresolvable) {
    return {true, ""};
  }
  // Victims this scheduler evicted for the pod are still on their node
  // (their deletion has not reached the informer yet).
  if (evaluator_.PreemptionInProgress(pod)) {
    return {false, "not eligible due to a terminating pod on the nominated node."};
  }
  if (nominated.empty()) return {true, ""};
  util::StatusOr<const framework::NodeInfo*> ni = handle_.SnapshotSharedLister().NodeInfos().Get(nominated);
  if (ni.ok()) {
    const int32_t priority = framework::PodPriority(pod);
    for (const framework::PodInfoPtr& p : (*ni)->pods()) {
      if (p->priority() < priority && TerminatingByPreemption(p->pod())) {
        return {false, "not eligible due to a terminating pod on the nominated node."};
      }
    }
  }
  return {true, ""};
}

}  // namespace ksched::scheduler::plugins::defaultpreemption
