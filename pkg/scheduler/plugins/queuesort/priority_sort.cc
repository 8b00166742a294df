#include "pkg/scheduler/plugins/queuesort/priority_sort.h"

namespace ksched::scheduler::plugins::queuesort {

bool PrioritySort::Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const {
  // PodInfo caches the priority, so ordering never re-reads the pod spec.
  const int32_t pa = a.pod_info.priority();
  const int32_t pb = b.pod_info.priority();
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

std::unique_ptr<PrioritySort> New() { return std::make_unique<PrioritySort>(); }

}  // namespace ksched::scheduler::plugins::queuesort
