// How preemption ranks pods (kube's util.MoreImportantPod, GetPodStartTime
// and GetEarliestPodStartTime).
//
// A pod's start time is status.startTime; pods that have not started
// (assumed, or bound but not running yet) count as starting `now`.
//
// Thread-safety: pure functions.
#pragma once

#include <memory>
#include <vector>

#include "pkg/api/types.h"

namespace ksched::scheduler::framework::preemption {

api::Time PodStartTime(const api::Pod& pod, api::Time now);

// Higher priority first; equal priority: the one that started earlier.
bool MoreImportantPod(const api::Pod& a, const api::Pod& b, api::Time now);

// The earliest start time among the highest-priority pods of `pods`;
// nullopt when `pods` is empty.
std::optional<api::Time> EarliestStartTimeOfHighestPriority(const std::vector<std::shared_ptr<const api::Pod>>& pods,
                                                            api::Time now);

}  // namespace ksched::scheduler::framework::preemption
