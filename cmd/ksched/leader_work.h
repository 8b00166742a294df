// LeaderWork: what a leader runs and how it stops (kube-scheduler's
// OnStartedLeading / OnStoppedLeading), in the order that keeps every write
// of this process inside its tenure of the Lease.
//
//   StartLeading()  starts the scheduling loop.
//   StopLeading()   runs before the Lease is released or given up:
//     lost (requested false): the renewal failed, a standby may take over
//       as soon as the Lease expires: the WritesGate closes first, so no
//       Bind, volume update, status patch, Event or victim deletion starts
//       from then on; then scheduling stops (binding cycles in flight fail
//       at the gate and end) and the API writer stops (what is still queued
//       is refused by the gate and dropped). The daemon then exits 1, as
//       kube-scheduler does.
//     requested (SIGTERM): the Lease is still ours: scheduling stops, the
//       binding cycles in flight finish, the API writer stops (in the
//       daemon its calls were cancelled at SIGTERM, so what it still held
//       is dropped and counted: best effort), and only then the gate
//       closes. Draining does not renew the Lease, so the gate closes at
//       `close_by` at the latest (the last renewal + renewDeadline, before
//       any standby may take over) even when draining takes longer; closing
//       it cancels the writes still in flight (WritesGate::StopToken), so
//       the drain ends then too.
//
// Ownership: borrows everything; all must outlive it.
// Thread-safety: StartLeading and StopLeading from the elector's thread.
#pragma once

#include "pkg/scheduler/apiwriter/api_writer.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/clock.h"
#include "pkg/util/writes_gate.h"

namespace ksched::app {

class LeaderWork {
 public:
  // `writer` may be null.
  LeaderWork(scheduler::Scheduler& scheduler, scheduler::apiwriter::ApiWriter* writer, util::WritesGate& gate,
             const util::Clock& clock)
      : scheduler_(scheduler), writer_(writer), gate_(gate), clock_(clock) {}

  void StartLeading();
  void StopLeading(bool requested, util::TimePoint close_by);

 private:
  scheduler::Scheduler& scheduler_;
  scheduler::apiwriter::ApiWriter* writer_;
  util::WritesGate& gate_;
  const util::Clock& clock_;
};

}  // namespace ksched::app
