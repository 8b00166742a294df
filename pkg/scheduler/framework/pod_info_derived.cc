#include "pkg/scheduler/framework/pod_info_derived.h"

#include <array>
#include <string>
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

std::shared_ptr<const PodAffinityTerms> CompileAffinityTerms(const api::Pod& pod) {
  auto t = std::make_shared<PodAffinityTerms>();
  const api::Affinity& a = *pod.spec.affinity;
  if (a.pod_affinity) {
    Assign(ParseAffinityTerms(pod, a.pod_affinity->required_during_scheduling_ignored_during_execution),
           &t->required_affinity_terms, &t->parse_status);
    Assign(ParseWeightedAffinityTerms(pod, a.pod_affinity->preferred_during_scheduling_ignored_during_execution),
           &t->preferred_affinity_terms, &t->parse_status);
  }
  if (a.pod_anti_affinity) {
    Assign(ParseAffinityTerms(pod, a.pod_anti_affinity->required_during_scheduling_ignored_during_execution),
           &t->required_anti_affinity_terms, &t->parse_status);
    Assign(ParseWeightedAffinityTerms(pod, a.pod_anti_affinity->preferred_during_scheduling_ignored_during_execution),
           &t->preferred_anti_affinity_terms, &t->parse_status);
  }
  return t;
}

// The terms compiled last on this thread. The terms depend only on the
// Affinity and the pod's namespace (the API server has already merged
// matchLabelKeys into the selectors). An entry holds its Affinity, so the
// object cannot be freed and another take its address, and SharesWith
// (identity, not equality) makes a hit cost one comparison.
struct AffinityMemo {
  api::SharedBox<api::Affinity> affinity;
  std::string namespace_;
  std::shared_ptr<const PodAffinityTerms> terms;
};
constexpr size_t kAffinityMemoSize = 4;
thread_local std::array<AffinityMemo, kAffinityMemoSize> affinity_memo;
thread_local size_t affinity_memo_next = 0;

std::shared_ptr<const PodAffinityTerms> SharedAffinityTerms(const api::Pod& pod) {
  for (const AffinityMemo& m : affinity_memo) {
    if (m.terms && m.affinity.SharesWith(pod.spec.affinity) && m.namespace_ == pod.metadata.namespace_) {
      return m.terms;
    }
  }
  AffinityMemo& slot = affinity_memo[affinity_memo_next];
  affinity_memo_next = (affinity_memo_next + 1) % kAffinityMemoSize;
  slot.affinity = pod.spec.affinity;
  slot.namespace_ = pod.metadata.namespace_;
  slot.terms = CompileAffinityTerms(pod);
  return slot.terms;
}

}  // namespace

const PodAffinityTerms& PodAffinityTerms::Empty() {
  static const PodAffinityTerms empty;
  return empty;
}

const DerivedPodInfo& DerivedPodInfo::Empty() {
  static const DerivedPodInfo empty;
  return empty;
}

std::shared_ptr<const DerivedPodInfo> DerivePodInfo(const api::Pod& pod) {
  auto d = std::make_shared<DerivedPodInfo>();
  if (pod.spec.affinity && (pod.spec.affinity->pod_affinity || pod.spec.affinity->pod_anti_affinity)) {
    d->affinity = SharedAffinityTerms(pod);
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
