#include "pkg/scheduler/plugins/coscheduling/podgroup_source.h"

#include <chrono>
#include <string>

namespace ksched::scheduler::plugins::coscheduling {

gang::GangPolicy PolicyOf(const api::PodGroup& group) {
  gang::GangPolicy policy;
  policy.min_member = group.spec.min_member;
  policy.min_resources = group.spec.min_resources;
  if (group.spec.schedule_timeout_seconds && *group.spec.schedule_timeout_seconds != 0) {
    policy.schedule_timeout = std::chrono::seconds(*group.spec.schedule_timeout_seconds);
  }
  policy.creation_time = group.metadata.creation_timestamp;
  return policy;
}

std::optional<gang::GangKey> PodGroupSource::KeyOf(const api::Pod& pod) const {
  std::string_view name = api::PodGroupNameOf(pod);
  if (name.empty()) return std::nullopt;
  return gang::GangKey{pod.metadata.namespace_, std::string(name)};
}

std::optional<gang::GangPolicy> PodGroupSource::Policy(const gang::GangKey& key) const {
  auto group = groups_.Get(key.namespace_, key.name);
  if (!group) return std::nullopt;
  return PolicyOf(*group);
}

std::vector<std::shared_ptr<const api::Pod>> PodGroupSource::Members(const gang::GangKey& key) const {
  std::vector<std::shared_ptr<const api::Pod>> out;
  for (auto& pod : pods_.List(key.namespace_)) {
    if (api::PodGroupNameOf(*pod) == key.name) out.push_back(std::move(pod));
  }
  return out;
}

}  // namespace ksched::scheduler::plugins::coscheduling
