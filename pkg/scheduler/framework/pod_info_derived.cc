#include "pkg/scheduler/framework/pod_info_derived.h"

#include <utility>

#include "pkg/api/pod_helpers.h"
#include "pkg/api/resource_helpers.h"

namespace ksched::scheduler::framework {

namespace {

// Stores the parsed terms, or records the first error and leaves them empty.
template <class T>
void Assign(util::StatusOr<std::vector<T>> parsed, std::vector<T>* out, util::Status* first_error) {
  if (parsed.ok()) {
    *out = std::move(parsed).value();
  } else if (first_error->ok()) {
    *first_error = parsed.status();
  }
}

}  // namespace

const DerivedPodInfo& DerivedPodInfo::Empty() {
  static const DerivedPodInfo empty;
  return empty;
}

std::shared_ptr<const DerivedPodInfo> DerivePodInfo(const api::Pod& pod) {
  auto d = std::make_shared<DerivedPodInfo>();
  if (pod.spec.affinity) {
    const api::Affinity& a = *pod.spec.affinity;
    if (a.pod_affinity) {
      Assign(ParseAffinityTerms(pod, a.pod_affinity->required_during_scheduling_ignored_during_execution),
             &d->required_affinity_terms, &d->parse_status);
      Assign(ParseWeightedAffinityTerms(pod, a.pod_affinity->preferred_during_scheduling_ignored_during_execution),
             &d->preferred_affinity_terms, &d->parse_status);
    }
    if (a.pod_anti_affinity) {
      Assign(ParseAffinityTerms(pod, a.pod_anti_affinity->required_during_scheduling_ignored_during_execution),
             &d->required_anti_affinity_terms, &d->parse_status);
      Assign(ParseWeightedAffinityTerms(pod,
                                        a.pod_anti_affinity->preferred_during_scheduling_ignored_during_execution),
             &d->preferred_anti_affinity_terms, &d->parse_status);
    }
  }
  // What the pod holds on its node, a resize in progress included.
  const api::PodResourcesOptions& opts = api::SchedulingPodRequestOptions();
  api::ResourceList requests = api::PodRequests(pod, opts);
  d->requests = Resource(requests);
  api::ResourceList non0_requests;
  if (!api::IsPodLevelRequestsSet(pod)) {
    non0_requests = api::PodRequests(pod, api::SchedulingNonZeroPodRequestOptions());
  } else {
    // Pod-level requests stand for the containers': the defaults fill in
    // only a resource neither level requests.
    api::PodResourcesOptions o = opts;
    for (const auto& [name, quantity] : api::NonZeroDefaultRequests()) {
      if (requests.find(name) == requests.end()) o.non_missing_container_requests.emplace(name, quantity);
    }
    non0_requests = o.non_missing_container_requests.empty() ? requests : api::PodRequests(pod, o);
  }
  auto cpu = non0_requests.find(std::string(api::kResourceCPU));
  auto mem = non0_requests.find(std::string(api::kResourceMemory));
  d->non0_milli_cpu = cpu == non0_requests.end() ? 0 : cpu->second.MilliValue();
  d->non0_memory = mem == non0_requests.end() ? 0 : mem->second.Value();
  return d;
}

}  // namespace ksched::scheduler::framework
