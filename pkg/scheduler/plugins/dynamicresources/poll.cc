#include "pkg/scheduler/plugins/dynamicresources/poll.h"

#include <algorithm>

namespace ksched::scheduler::dra {

util::Status PollUntil(const util::Clock& clock, util::Duration period, util::Duration timeout,
                       const std::function<util::StatusOr<bool>()>& condition, PollCancel* cancel) {
  const util::TimePoint deadline = clock.Now() + timeout;
  // Without a PollCancel nothing notifies: the wait is a timed sleep.
  PollCancel never;
  PollCancel& c = cancel != nullptr ? *cancel : never;
  const util::Status cancelled(util::StatusCode::kCancelled, "context canceled");
  for (;;) {
    {
      std::lock_guard<std::mutex> l(c.mu_);
      if (c.cancelled_) return cancelled;
    }
    util::StatusOr<bool> done = condition();
    if (!done.ok()) return done.status();
    if (*done) return util::Status();
    const util::TimePoint now = clock.Now();
    if (now >= deadline) return util::Status(util::StatusCode::kDeadlineExceeded, "context deadline exceeded");
    std::unique_lock<std::mutex> lock(c.mu_);
    if (c.cancelled_) return cancelled;
    clock.WaitUntil(lock, c.cv_, std::min(now + period, deadline));
  }
}

}  // namespace ksched::scheduler::dra
