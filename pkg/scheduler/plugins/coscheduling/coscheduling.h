// Coscheduling: gang scheduling as kubernetes-sigs/scheduler-plugins
// defines it, for pods that name a PodGroup (label
// scheduling.x-k8s.io/pod-group). The gang machinery is pkg/scheduler/gang;
// this plugin adapts PodGroups to it (PodGroupSource) and runs it at:
//
//   QueueSort  priority, then the PodGroup's creation time (a pod in no
//              group: its first attempt), then namespace/name: a gang's
//              members are popped together.
//   PreFilter  UnschedulableAndUnresolvable while the group is in backoff,
//              has fewer pods than minMember, or its minResources (plus
//              minMember pod slots) exceed the cluster's free capacity (a
//              passed check is trusted for PermitWaitingTimeSeconds).
//   PostFilter a member that fits nowhere rejects the members waiting at
//              Permit and puts the group in backoff for
//              PodGroupBackoffSeconds — unless minMember are already
//              assigned or at most 10% are missing.
//   Permit     Wait until assigned (assumed or bound) members + this one
//              reach minMember, then allow every waiting member; the wait is
//              the PodGroup's scheduleTimeoutSeconds, else
//              PermitWaitingTimeSeconds. The first member to wait activates
//              its siblings. A pod naming a missing PodGroup is Unschedulable.
//   Reserve    nothing; Unreserve (a member timed out, was rejected or
//              deleted, or failed to bind) rejects the waiting members.
//   Events     Pod Add, PodGroup Add/Update, and Node Add (not in
//              scheduler-plugins; see EventsToRegister).
//
// Thread-safety: every method may run concurrently (scheduling loop,
// binding cycles, the queue under its lock); state is the two thread-safe
// ExpiringSets. Lifetime: the Handle and its listers outlive the plugin.
#pragma once

#include <memory>
#include <string_view>
#include <utility>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/gang/expiring_set.h"
#include "pkg/scheduler/plugins/coscheduling/args.h"
#include "pkg/scheduler/plugins/coscheduling/podgroup_source.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::coscheduling {

inline constexpr std::string_view kName = "Coscheduling";
// The cluster event resource of PodGroups ("<plural>.<version>.<group>").
inline constexpr std::string_view kPodGroupResource = "podgroups.v1alpha1.scheduling.x-k8s.io";

class Coscheduling final : public framework::QueueSortPlugin,
                           public framework::PreFilterPlugin,
                           public framework::PostFilterPlugin,
                           public framework::PermitPlugin,
                           public framework::ReservePlugin,
                           public framework::EnqueueExtensions {
 public:
  Coscheduling(CoschedulingArgs args, framework::Handle& handle,
               const framework::ObjectLister<api::PodGroup>& groups);

  std::string_view Name() const override { return kName; }

  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;

  std::pair<framework::PreFilterResult, framework::Status> PreFilter(
      framework::CycleState& state, const api::Pod& pod, const framework::NodeInfoList& nodes) override;

  std::pair<framework::PostFilterResult, framework::Status> PostFilter(
      framework::CycleState& state, const api::Pod& pod,
      const framework::NodeToStatus& filtered_node_status) override;

  std::pair<framework::Status, util::Duration> Permit(framework::CycleState& state, const api::Pod& pod,
                                                      std::string_view node_name) override;

  framework::Status Reserve(framework::CycleState& state, const api::Pod& pod,
                            std::string_view node_name) override;
  void Unreserve(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) override;

  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  const PodGroupSource& source() const { return source_; }

 private:
  const CoschedulingArgs args_;
  framework::Handle& handle_;
  PodGroupSource source_;
  // Gangs refused at PreFilter until their backoff ends.
  gang::ExpiringSet backed_off_;
  // Gangs whose capacity pre-check passed recently.
  gang::ExpiringSet permitted_;
};

// The plugin over the PodGroups of handle.Listers() (which must implement
// framework::PodGroupListers); InvalidArgument for invalid args,
// InvalidArgument too when the listers have no PodGroups.
util::StatusOr<std::unique_ptr<Coscheduling>> New(const CoschedulingArgs& args, framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::coscheduling
