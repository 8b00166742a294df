// Signatures of the incoming pod for InterPodAffinity's counters
// (hit_counter.h): each names exactly what one count function reads of the
// incoming pod, so two pods with equal signatures get equal counts from every
// NodeInfo and may share a counter.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/affinity_term.h"
#include "pkg/scheduler/plugins/interpodaffinity/state.h"

namespace ksched::scheduler::plugins::interpodaffinity {

// Existing pods' required anti-affinity against the incoming pod: its
// namespace, labels and namespace labels.
std::string ExistingAntiAffinitySignature(const api::Pod& pod, const api::StringMap& ns_labels);

// Existing pods against the incoming pod's required terms (namespace
// selectors resolved).
std::string IncomingTermsSignature(const IncomingRequiredTerms& terms);

// Scoring: the incoming pod as matched by existing pods' terms, its own
// preferred terms (namespace selectors resolved), the hard affinity weight
// and whether every pod or only pods with affinity are visited.
std::string ScoringSignature(const api::Pod& pod, const api::StringMap& ns_labels,
                             const std::vector<framework::WeightedAffinityTerm>& preferred_affinity,
                             const std::vector<framework::WeightedAffinityTerm>& preferred_anti_affinity,
                             int64_t hard_pod_affinity_weight, bool all_pods);

}  // namespace ksched::scheduler::plugins::interpodaffinity
