// The PodGroup status, computed as scheduler-plugins' PodGroup controller
// computes it. ksched runs no such controller, so the scheduler keeps the
// status itself (podgroup_status_controller.h); this is the
// computation, one reconcile step from the group's current status:
//
//   ""                          -> Pending
//   Pending, pods >= minMember  -> Scheduling (scheduleStartTime = now,
//                                  occupiedBy = the first pod's owners)
//   otherwise                      running/succeeded/failed counted from
//                                  the pods' phases, scheduled from their
//                                  nodes; pods < minMember -> Pending;
//                                  succeeded + running < minMember ->
//                                  Scheduling, else Running; Failed once a
//                                  pod failed and failed + running +
//                                  succeeded >= minMember; Finished once
//                                  succeeded >= minMember.
//   Finished and Failed are final.
//
// Repeating the step converges (Pending -> Scheduling -> ...); the caller
// repeats it on every change of the group or its pods.
//
// Thread-safety: a pure function.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/api/podgroup.h"

namespace ksched::scheduler {

// `pods` are the pods naming the group (any order); `now` stamps
// scheduleStartTime.
api::PodGroupStatus NextPodGroupStatus(const api::PodGroup& group,
                                       const std::vector<std::shared_ptr<const api::Pod>>& pods, api::Time now);

// The JSON merge patch turning status `from` into `to` ({"status": {...}}
// with the changed fields; null for cleared ones); empty when equal.
nlohmann::json PodGroupStatusPatch(const api::PodGroupStatus& from, const api::PodGroupStatus& to);

}  // namespace ksched::scheduler
