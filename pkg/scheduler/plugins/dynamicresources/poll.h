// PollUntil: how DynamicResources' PreBind waits for the informer (kube's
// wait.PollUntilContextTimeout with an immediate first check), on an
// injected clock so that tests step time instead of sleeping.
//
// Thread-safety: PollUntil runs `condition` on the caller's thread, without
// holding the PollCancel's mutex; a PollCancel may be shared by any number
// of concurrent polls and cancelled from any thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>

#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

// Ends every poll waiting on it, now and later (kube's cancelled context).
class PollCancel {
 public:
  void Cancel() {
    {
      std::lock_guard<std::mutex> l(mu_);
      cancelled_ = true;
    }
    cv_.notify_all();
  }

 private:
  friend util::Status PollUntil(const util::Clock&, util::Duration, util::Duration,
                                const std::function<util::StatusOr<bool>()>&, PollCancel*);
  std::mutex mu_;
  std::condition_variable cv_;
  bool cancelled_ = false;  // guarded by mu_
};

// Calls `condition` now and then every `period` until it answers true (OK),
// fails (its error), `timeout` has passed since the call (kDeadlineExceeded
// "context deadline exceeded", kube's text) or `cancel` is cancelled
// (kCancelled "context canceled").
util::Status PollUntil(const util::Clock& clock, util::Duration period, util::Duration timeout,
                       const std::function<util::StatusOr<bool>()>& condition, PollCancel* cancel = nullptr);

}  // namespace ksched::scheduler::dra
