// Lets the calling thread wait for a CPU instead of preempting the thread
// that woke it (Linux's SCHED_BATCH: the same fair share, no preemption on
// wake-up; on an idle CPU it still runs at once).
//
// For threads that are woken for every pod and whose work can wait a few
// milliseconds (binding cycles, Event writes): without it, on a machine
// with few cores, each wake-up switched the scheduling or the watch thread
// out in favour of the woken one (docs/performance-components.md). Returns
// whether the policy was set; a refusal (a seccomp profile, another OS)
// leaves the thread as it was.
//
// Thread-safety: affects the calling thread only.
#pragma once

#include <sched.h>

namespace ksched::util {

inline bool WaitForCpuWhenWoken() {
  sched_param param{};
  return sched_setscheduler(0, SCHED_BATCH, &param) == 0;
}

}  // namespace ksched::util
