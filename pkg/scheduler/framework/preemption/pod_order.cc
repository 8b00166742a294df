#include "pkg/scheduler/framework/preemption/pod_order.h"

#include "pkg/scheduler/framework/queued_pod_info.h"

namespace ksched::scheduler::framework::preemption {

api::Time PodStartTime(const api::Pod& pod, api::Time now) { return pod.status.start_time.value_or(now); }

bool MoreImportantPod(const api::Pod& a, const api::Pod& b, api::Time now) {
  const int32_t pa = PodPriority(a);
  const int32_t pb = PodPriority(b);
  if (pa != pb) return pa > pb;
  return PodStartTime(a, now) < PodStartTime(b, now);
}

std::optional<api::Time> EarliestStartTimeOfHighestPriority(const std::vector<std::shared_ptr<const api::Pod>>& pods,
                                                            api::Time now) {
  if (pods.empty()) return std::nullopt;
  api::Time earliest = PodStartTime(*pods[0], now);
  int32_t max_priority = PodPriority(*pods[0]);
  for (const auto& p : pods) {
    const int32_t prio = PodPriority(*p);
    if (prio == max_priority) {
      earliest = std::min(earliest, PodStartTime(*p, now));
    } else if (prio > max_priority) {
      max_priority = prio;
      earliest = PodStartTime(*p, now);
    }
  }
  return earliest;
}

}  // namespace ksched::scheduler::framework::preemption
