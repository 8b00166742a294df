// BindingWaits: how a PreBind plugin waits for another controller (the PV
// controller completing a volume binding, a DRA driver reporting a device's
// binding conditions). PollUntil checks a condition every period until it
// holds, fails or times out, as kube's wait.PollUntilContextTimeout does;
// Wake makes every poll in progress check again at once, which the
// scheduler does for informer events that may have ended a wait (kube waits
// for its next period, so ksched binds such pods up to a period sooner with
// the same checks); Cancel ends every poll, now and later (kube's cancelled
// context when the scheduler stops); a poll given the binding cycle's
// Cancellation also ends, at once, when that is cancelled (a preempted pod,
// a failed PreBind beside it).
//
// Thread-safety: every method is thread-safe; PollUntil runs `condition` on
// the caller's thread without holding the mutex, so any number of polls may
// share one BindingWaits.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "pkg/scheduler/framework/cancellation.h"
#include "pkg/scheduler/framework/cluster_event.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

class BindingWaits {
 public:
  void Cancel();
  void Wake();

  // Calls `condition` (at once when `immediate`, else first after one
  // period), then every `period` and at every Wake, until it answers true
  // (OK), fails (its error), `timeout` has passed since the call
  // (kDeadlineExceeded "context deadline exceeded", kube's text), Cancel or
  // `cancellation` (may be null) is cancelled (kCancelled "context
  // canceled").
  util::Status PollUntil(const util::Clock& clock, util::Duration period, util::Duration timeout, bool immediate,
                         const std::function<util::StatusOr<bool>()>& condition,
                         Cancellation* cancellation = nullptr);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool cancelled_ = false;  // guarded by mu_
  uint64_t wakes_ = 0;      // guarded by mu_
};

// A PreBind plugin whose waits informer events may end. The scheduler calls
// WakeBindingWaits for every event its handlers deliver of a resource other
// than pods and nodes (those any plugin registered for), after the informer
// has stored the object; the plugin wakes its waits when `event` may matter
// to them. Must be cheap and thread-safe.
class BindingWaitWaker {
 public:
  virtual ~BindingWaitWaker() = default;
  virtual void WakeBindingWaits(const ClusterEvent& event) = 0;
};

}  // namespace ksched::scheduler::framework
