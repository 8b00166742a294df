// Pre-filtering for the queueing-hints-off path: which unschedulable pods
// can an assigned pod's add/update help? (kube's
// getUnschedulablePodsWithCrossTopologyTerm.) Only pods rejected by
// PodTopologySpread in the same namespace, or pods with a required
// pod-affinity term the assigned pod satisfies.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "pkg/api/types.h"

namespace ksched::scheduler::queue {

inline constexpr std::string_view kPodTopologySpreadPluginName = "PodTopologySpread";

// Whether some required pod-affinity term of `pod` matches `assigned`: the
// term's namespaces (the pod's own namespace when neither namespaces nor a
// namespace selector is set) contain assigned's namespace, or its namespace
// selector matches `assigned_ns_labels` (unknown namespace: no labels); and
// its label selector (unset: nothing) matches assigned's labels. A term whose
// selectors do not compile matches nothing.
bool AnyRequiredAffinityTermMatches(const api::Pod& pod, const api::Pod& assigned,
                                    const std::optional<api::StringMap>& assigned_ns_labels);

}  // namespace ksched::scheduler::queue
