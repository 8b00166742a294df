// The queue order of gang scheduling (scheduler-plugins' Coscheduling Less):
// higher priority first; then the earlier of the gangs' creation times — a
// pod in no declared gang counts with its first attempt's time — so a
// gang's members sit together and an older gang goes before a newer one;
// then "namespace/name" of the pods.
//
// Keeping a gang's members adjacent is what lets one gang reach its quorum
// before the next gang's members take the capacity: two gangs that each
// hold part of the cluster would otherwise both wait at Permit until their
// timeouts.
//
// Thread-safety: a pure function of its arguments (GangSource reads).
#pragma once

#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/gang/gang.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::gang {

// The time a pod is ordered by: its gang's creation time, else the wall
// time of its first attempt (its queue timestamp when it has none yet).
api::Time OrderTime(const framework::QueuedPodInfo& info, const GangSource& source,
                    const util::Clock& clock);

bool GangLess(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b,
              const GangSource& source, const util::Clock& clock);

}  // namespace ksched::scheduler::gang
