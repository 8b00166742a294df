// PodGroupSource: scheduler-plugins' PodGroups as gangs (gang::GangSource).
// A pod belongs to the PodGroup its kPodGroupLabel names in its own
// namespace; the PodGroup's minMember, minResources, scheduleTimeoutSeconds
// (0 or unset: the plugin's default) and creationTimestamp are the gang's
// policy.
//
// Thread-safety: reads of the listers only; safe concurrently.
// Lifetime: the listers must outlive it.
#pragma once

#include "pkg/api/podgroup.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/gang/gang.h"

namespace ksched::scheduler::plugins::coscheduling {

class PodGroupSource final : public gang::GangSource {
 public:
  PodGroupSource(const framework::ObjectLister<api::PodGroup>& groups,
                 const framework::ObjectLister<api::Pod>& pods)
      : groups_(groups), pods_(pods) {}

  std::optional<gang::GangKey> KeyOf(const api::Pod& pod) const override;
  std::optional<gang::GangPolicy> Policy(const gang::GangKey& key) const override;
  // O(pods of the namespace).
  std::vector<std::shared_ptr<const api::Pod>> Members(const gang::GangKey& key) const override;

  // The PodGroup itself, or nullptr.
  std::shared_ptr<const api::PodGroup> Group(const gang::GangKey& key) const {
    return groups_.Get(key.namespace_, key.name);
  }

 private:
  const framework::ObjectLister<api::PodGroup>& groups_;
  const framework::ObjectLister<api::Pod>& pods_;
};

// The gang policy a PodGroup declares.
gang::GangPolicy PolicyOf(const api::PodGroup& group);

}  // namespace ksched::scheduler::plugins::coscheduling
