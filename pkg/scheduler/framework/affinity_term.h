// AffinityTerm and WeightedAffinityTerm: a pod (anti-)affinity term with its
// selectors compiled once (kube's framework.AffinityTerm), so InterPodAffinity
// and the queue can match many pods against it cheaply.
//
// A term applies to a pod in `namespaces`, or in a namespace whose labels
// match `namespace_selector`; it then matches when `selector` matches the
// pod's labels. A term that lists no namespaces and has no namespace selector
// applies to the namespace of the pod that declared it. An unset label
// selector or namespace selector matches nothing; an empty one ({}) matches
// everything.
//
// ParseAffinityTerms / ParseWeightedAffinityTerms compile a pod's terms; a
// malformed selector makes the whole list an error (kube's getAffinityTerms),
// so callers can report it instead of silently matching less.
//
// Thread-safety: immutable after construction; share freely.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "pkg/api/labels.h"
#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

struct AffinityTerm {
  std::set<std::string, std::less<>> namespaces;
  api::Selector selector;
  std::string topology_key;
  api::Selector namespace_selector;

  // Whether the term selects `pod`; `ns_labels` are the labels of the pod's
  // namespace (empty when unknown).
  bool Matches(const api::Pod& pod, const api::StringMap& ns_labels) const;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  int32_t weight = 0;
};

// Compiles one term declared by `pod`.
util::StatusOr<AffinityTerm> NewAffinityTerm(const api::Pod& pod, const api::PodAffinityTerm& term);
util::StatusOr<std::vector<AffinityTerm>> ParseAffinityTerms(const api::Pod& pod,
                                                             const std::vector<api::PodAffinityTerm>& terms);
util::StatusOr<std::vector<WeightedAffinityTerm>> ParseWeightedAffinityTerms(
    const api::Pod& pod, const std::vector<api::WeightedPodAffinityTerm>& terms);

}  // namespace ksched::scheduler::framework
