// The bodies of /debug/explain (kubectl ksched why / queue).
//
// /debug/explain?pod=NS/NAME -> ExplainPodJson:
//   {"pod": {"namespace", "name", "uid", "schedulerName"},
//    "location": "activeQ" | "backoffQ" | "unschedulable" | "gated" |
//                "waitingOnPermit" | "inFlight" | "assumed" (on its node in the cache: binding, or
//                bound and not yet reported by the informer) | "bound" | "notFound" |
//                "notOurs" | "unknown",
//    "node": bound or assumed node, "attempts", "backoffUntil", "unschedulableSince",
//    "unschedulablePlugins", "pendingPlugins", "gatingPlugin", "waitingOnPermitPlugins",
//    "requeueEvents": [{"event": "Node Add/UpdateNodeAllocatable", "plugins": [...], "hinted": true}],
//    "unschedulableTimeoutSeconds": the flush that moves it anyway,
//    "lastFailureMessage", "lastAttempt": AttemptJson or null, "recordEnabled"}
// /debug/explain -> QueueSummaryJson:
//   {"counts": {"activeQ", "backoffQ", "unschedulable", "gated", "inFlight"},
//    "rejectingPlugins": {"NodeResourcesFit": 3, ...},
//    "oldestPending": [{"namespace", "name", "queue", "created", "attempts", "unschedulablePlugins"}],
//    "attempts": {"lastMinute", "perSecond", "total"} (absent with the record off)}
//
// Times are RFC 3339 with microseconds; monotonic queue times are turned
// into wall time with the clock. Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/scheduler/attempt_record.h"
#include "pkg/scheduler/framework/cluster_event.h"
#include "pkg/scheduler/framework/plugin_set.h"
#include "pkg/scheduler/pod_explain_state.h"
#include "pkg/scheduler/queue/queueing_hint_map.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler {

// "Node Add/UpdateNodeAllocatable", "AssignedPod Delete", "Pod All",
// "UnschedulableTimeout" (custom labels as they are).
std::string DescribeClusterEvent(const framework::ClusterEvent& event);

// The registrations of `map` by any of `plugins`, one entry per event in
// registration order.
std::vector<RequeueEvent> RequeueEventsFor(const queue::QueueingHintMap& map, const framework::PluginSet& plugins);

nlohmann::ordered_json AttemptJson(const Attempt& attempt);
std::string ExplainPodJson(const PodExplainState& state, const std::optional<Attempt>& attempt, bool record_enabled,
                           const util::Clock& clock);

struct AttemptRate {
  size_t last_minute = 0;
  uint64_t total = 0;
};
// `rate`: nullopt with the record off. Lists at most `oldest` pods.
std::string QueueSummaryJson(const std::vector<PendingPodDebug>& pods, const std::optional<AttemptRate>& rate,
                             size_t oldest);

// The whole endpoint: `pod` is the query's "pod" value ("NS/NAME"; a bare
// NAME means namespace "default"), nullopt for the queue summary. 400 with
// {"error": ...} for a malformed value. `record` may be null (off).
struct ExplainResponse {
  int status = 200;
  std::string body;
};
ExplainResponse ServeExplain(const Scheduler& scheduler, const AttemptRecord* record,
                             const std::optional<std::string>& pod);

}  // namespace ksched::scheduler
