#include "pkg/scheduler/plugins/coscheduling/coscheduling.h"

#include <fmt/format.h>

#include <chrono>

#include "pkg/scheduler/framework/podgroup_listers.h"
#include "pkg/scheduler/gang/capacity.h"
#include "pkg/scheduler/gang/queue_order.h"
#include "pkg/scheduler/gang/quorum.h"

namespace ksched::scheduler::plugins::coscheduling {

using framework::Code;
using framework::Status;

Coscheduling::Coscheduling(CoschedulingArgs args, framework::Handle& handle,
                           const framework::ObjectLister<api::PodGroup>& groups)
    : args_(args),
      handle_(handle),
      source_(groups, handle.Listers().Pods()),
      backed_off_(handle.Clock()),
      permitted_(handle.Clock()) {}

bool Coscheduling::Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const {
  return gang::GangLess(a, b, source_, handle_.Clock());
}

std::pair<framework::PreFilterResult, Status> Coscheduling::PreFilter(framework::CycleState&,
                                                                      const api::Pod& pod,
                                                                      const framework::NodeInfoList& nodes) {
  // Failures are UnschedulableAndUnresolvable: preempting for one member of
  // a gang that cannot run does not help.
  auto key = source_.KeyOf(pod);
  if (!key) return {{}, Status()};
  auto policy = source_.Policy(*key);
  if (!policy) return {{}, Status()};
  if (backed_off_.Contains(*key)) {
    return {{}, Status(Code::kUnschedulableAndUnresolvable,
                       fmt::format("podGroup {} failed recently", key->String()))};
  }
  const size_t members = source_.Members(*key).size();
  if (members < static_cast<size_t>(std::max(policy->min_member, 0))) {
    return {{}, Status(Code::kUnschedulableAndUnresolvable,
                       fmt::format("pre-filter pod {} cannot find enough sibling pods, current pods number: {}, "
                                   "minMember of group: {}",
                                   pod.metadata.name, members, policy->min_member))};
  }
  if (policy->min_resources.empty() || permitted_.Contains(*key)) return {{}, Status()};
  if (auto gap = gang::CapacityGap(nodes, *key, *policy, source_)) {
    return {{}, Status(Code::kUnschedulableAndUnresolvable, *gap)};
  }
  permitted_.Add(*key, std::chrono::seconds(args_.permit_waiting_time_seconds));
  return {{}, Status()};
}

std::pair<framework::PostFilterResult, Status> Coscheduling::PostFilter(framework::CycleState&,
                                                                        const api::Pod& pod,
                                                                        const framework::NodeToStatus&) {
  auto key = source_.KeyOf(pod);
  auto policy = key ? source_.Policy(*key) : std::nullopt;
  if (!policy) return {{}, Status(Code::kUnschedulable, "can not find pod group")};
  const int32_t assigned =
      gang::CountAssigned(handle_.SnapshotSharedLister().NodeInfos().List(), *key, source_);
  // Enough members are placed already: this one failing does not break the
  // gang.
  if (assigned >= policy->min_member) return {{}, Status(Code::kUnschedulable)};
  // At most 10% missing: later members may still complete the gang.
  const float missing = static_cast<float>(policy->min_member - assigned) / static_cast<float>(policy->min_member);
  if (missing <= 0.1f) return {{}, Status(Code::kUnschedulable)};
  gang::RejectWaitingMembers(handle_, *key, source_, kName, "optimistic rejection in PostFilter");
  if (args_.pod_group_backoff_seconds > 0 &&
      source_.Members(*key).size() >= static_cast<size_t>(policy->min_member)) {
    backed_off_.Add(*key, std::chrono::seconds(args_.pod_group_backoff_seconds));
  }
  permitted_.Remove(*key);
  return {{}, Status(Code::kUnschedulable,
                     fmt::format("PodGroup {} gets rejected due to Pod {} is unschedulable even after PostFilter",
                                 key->String(), pod.metadata.name))};
}

std::pair<Status, util::Duration> Coscheduling::Permit(framework::CycleState& state, const api::Pod& pod,
                                                       std::string_view) {
  auto key = source_.KeyOf(pod);
  if (!key) return {Status(), util::Duration::zero()};
  auto policy = source_.Policy(*key);
  if (!policy) return {Status(Code::kUnschedulable, "PodGroup not found"), util::Duration::zero()};
  const int32_t assigned =
      gang::CountAssigned(handle_.SnapshotSharedLister().NodeInfos().List(), *key, source_);
  if (gang::QuorumReached(assigned, *policy)) {
    gang::AllowWaitingMembers(handle_, *key, source_, kName);
    return {Status(), util::Duration::zero()};
  }
  // Only the first member to wait wakes the others, so that they do not
  // activate each other over and over.
  if (assigned == 0) gang::ActivateOtherMembers(state, pod, *key, source_);
  util::Duration wait = policy->schedule_timeout.value_or(std::chrono::seconds(args_.permit_waiting_time_seconds));
  return {Status(Code::kWait), wait};
}

Status Coscheduling::Reserve(framework::CycleState&, const api::Pod&, std::string_view) { return Status(); }

void Coscheduling::Unreserve(framework::CycleState&, const api::Pod& pod, std::string_view) {
  auto key = source_.KeyOf(pod);
  if (!key || !source_.Policy(*key)) return;
  gang::RejectWaitingMembers(handle_, *key, source_, kName, "rejection in Unreserve");
  permitted_.Remove(*key);
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> Coscheduling::EventsToRegister() const {
  using framework::ActionType;
  // scheduler-plugins registers Pod Add and PodGroup Add/Update. Node Add is
  // ours: when every member was last rejected at Permit (a sibling's
  // PostFilter or Unreserve), none of them waits for NodeResourcesFit's
  // events, and a node added for the gang would go unnoticed until the
  // unschedulable-pods flush.
  return std::vector<framework::ClusterEventWithHint>{
      {framework::ClusterEvent(framework::resource::kPod, ActionType::kAdd), nullptr},
      {framework::ClusterEvent(framework::resource::kNode, ActionType::kAdd), nullptr},
      {framework::ClusterEvent(kPodGroupResource, ActionType::kAdd | ActionType::kUpdate), nullptr},
  };
}

util::StatusOr<std::unique_ptr<Coscheduling>> New(const CoschedulingArgs& args, framework::Handle& handle) {
  if (auto s = ValidateArgs(args); !s.ok()) return s;
  const auto* listers = dynamic_cast<const framework::PodGroupListers*>(&handle.Listers());
  if (listers == nullptr) {
    return util::InvalidArgument("Coscheduling needs PodGroup listers (scheduling.x-k8s.io/v1alpha1 podgroups), "
                                 "which this scheduler's listers do not provide");
  }
  return std::make_unique<Coscheduling>(args, handle, listers->PodGroups());
}

}  // namespace ksched::scheduler::plugins::coscheduling
