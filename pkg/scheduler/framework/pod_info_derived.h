// DerivedPodInfo: what PodInfo computes once per pod version (kube's
// PodInfo affinity-term fields and cached podResource): the pod's
// (anti-)affinity terms with compiled selectors, and its resource requests
// as NodeInfo accounts them.
//
// - requests: PodRequests(pod, SchedulingPodRequestOptions()) (containers,
//   sidecars, init containers, pod-level resources, a resize's status
//   resources, overhead) converted to a Resource;
// - non0_milli_cpu / non0_memory: the same with kube-scheduler's defaults
//   (100m cpu, 200Mi memory) for containers that request nothing -- or, when
//   pod-level requests are set, for a resource neither level requests --
//   used for spreading/least-allocated scoring;
// - affinity: the compiled terms, shared by the pods whose Affinity is the
//   same object (the decoder interns a workload's) in the same namespace:
//   DerivePodInfo remembers the last few it compiled on each thread, so a
//   workload's pods hold one copy (PodAntiAffinity, 3,000 pods: 1.2 MB).
//
// Thread-safety: immutable once built; shared by every copy of a PodInfo.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/affinity_term.h"
#include "pkg/scheduler/framework/resource.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

// A pod's (anti-)affinity terms with compiled selectors. parse_status is
// the first selector error; the list that failed is left empty (callers
// such as InterPodAffinity's PreFilter reject the pod with it).
struct PodAffinityTerms {
  std::vector<AffinityTerm> required_affinity_terms;
  std::vector<AffinityTerm> required_anti_affinity_terms;
  std::vector<WeightedAffinityTerm> preferred_affinity_terms;
  std::vector<WeightedAffinityTerm> preferred_anti_affinity_terms;
  util::Status parse_status;

  // No terms: a pod without affinity.
  static const PodAffinityTerms& Empty();
};

struct DerivedPodInfo {
  std::shared_ptr<const PodAffinityTerms> affinity;  // null: the pod has no affinity
  Resource requests;
  int64_t non0_milli_cpu = 0;
  int64_t non0_memory = 0;

  const PodAffinityTerms& affinity_terms() const { return affinity ? *affinity : PodAffinityTerms::Empty(); }

  // The value for a PodInfo without a pod.
  static const DerivedPodInfo& Empty();
};

std::shared_ptr<const DerivedPodInfo> DerivePodInfo(const api::Pod& pod);

}  // namespace ksched::scheduler::framework
