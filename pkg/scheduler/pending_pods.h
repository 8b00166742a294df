// PendingPodsJson: the body of /debug/pending, every pod the scheduler has
// not placed yet, for operators asking "why is my pod still Pending?":
//
//   {"summary": {"active": 1, "backoff": 0, "unschedulable": 2, "gated": 1, "inFlight": 0},
//    "pods": [{"namespace": "default", "name": "web-1", "uid": "...",
//              "schedulerName": "ksched", "queue": "unschedulable",
//              "attempts": 3, "backoffExpiration": "2024-05-01T10:00:03.000000Z",
//              "unschedulablePlugins": ["NodeResourcesFit"], "pendingPlugins": [],
//              "gatingPlugin": "", "lastFailureMessage": "0/3 nodes are available: ..."}]}
//
// backoffExpiration is converted from the monotonic clock to wall time with
// `clock` (absent when the queue has not computed one).
//
// Thread-safety: a pure function.
#pragma once

#include <string>
#include <vector>

#include "pkg/scheduler/scheduler.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler {

std::string PendingPodsJson(const std::vector<PendingPodDebug>& pods, const util::Clock& clock);

}  // namespace ksched::scheduler
