// Writer: the scheduler's writes to the API server as an interface — pod
// status changes, preemption victims' eviction, Events — so the Scheduler
// does not depend on how they travel. ApiWriter (api_writer.h) is the
// daemon's: asynchronous, retried, aggregated. `ksched simulate` records
// them instead (pkg/simulate/effects.h).
//
// Thread-safety: implementations must accept calls from any thread (the
// scheduling loop, binding threads, informer handlers) and must not block
// on the network.
#pragma once

#include <functional>
#include <string>

#include "pkg/api/types.h"
#include "pkg/scheduler/apiwriter/pod_status_patch.h"
#include "pkg/scheduler/apiwriter/scheduler_events.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::apiwriter {

class Writer {
 public:
  virtual ~Writer() = default;
  // Asks for `update` on `pod` (namespace, name and uid identify it).
  virtual void UpdatePodStatus(const api::Pod& pod, const PodStatusUpdate& update) = 0;
  // Forgets what was written or pending for a pod that was deleted or bound.
  virtual void ForgetPod(const std::string& ns, const std::string& name) = 0;
  // Called by a binding thread just before it binds the pod: drops what is
  // pending for it, as ForgetPod, and returns once no status write of the
  // pod is in flight, so a PodScheduled=False patch cannot land after the
  // binding and hide it (kube-scheduler, whose patch is synchronous, never
  // binds a pod while patching it). The one call allowed to wait for a
  // write; the default has nothing in flight.
  virtual void SettlePod(const std::string& ns, const std::string& name) { ForgetPod(ns, name); }
  // Evicts a preemption victim (DisruptionTarget condition, then DELETE).
  // `done`, when given, is called exactly once with the eviction's outcome
  // (asynchronous preemption waits for it).
  using VictimDone = std::function<void(util::Status)>;
  virtual void DeleteVictim(const api::Pod& victim, const std::string& message, VictimDone done = {}) = 0;
  // Emits an Event.
  virtual void RecordEvent(const EventRecord& record) = 0;
};

}  // namespace ksched::scheduler::apiwriter
