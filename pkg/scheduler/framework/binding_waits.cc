#include "pkg/scheduler/framework/binding_waits.h"

#include <algorithm>
#include <optional>

#include "pkg/util/long_wait.h"

namespace ksched::scheduler::framework {

void BindingWaits::Cancel() {
  {
    std::lock_guard<std::mutex> l(mu_);
    cancelled_ = true;
  }
  cv_.notify_all();
}

void BindingWaits::Wake() {
  {
    std::lock_guard<std::mutex> l(mu_);
    ++wakes_;
  }
  cv_.notify_all();
}

util::Status BindingWaits::PollUntil(const util::Clock& clock, util::Duration period, util::Duration timeout,
                                     bool immediate, const std::function<util::StatusOr<bool>()>& condition,
                                     Cancellation* cancellation) {
  // A cancelled binding cycle wakes this poll like Wake, then ends it.
  struct Subscription {
    Cancellation* c;
    uint64_t id;
    ~Subscription() {
      if (c != nullptr) c->Unsubscribe(id);
    }
  } subscription{cancellation, cancellation == nullptr ? 0 : cancellation->Subscribe([this] { Wake(); })};
  auto ended = [&] { return cancelled_ || (cancellation != nullptr && cancellation->Cancelled()); };
  const util::TimePoint deadline = clock.Now() + timeout;
  const util::Status cancelled(util::StatusCode::kCancelled, "context canceled");
  // Marked from the first wait: a binding pool's thread waiting here makes
  // room for another binding.
  std::optional<util::ScopedLongWait> long_wait;
  for (bool check = immediate;; check = true) {
    if (check) {
      {
        std::lock_guard<std::mutex> l(mu_);
        if (ended()) return cancelled;
      }
      util::StatusOr<bool> done = condition();
      if (!done.ok()) return done.status();
      if (*done) return util::Status();
    }
    const util::TimePoint now = clock.Now();
    if (now >= deadline) return util::Status(util::StatusCode::kDeadlineExceeded, "context deadline exceeded");
    const util::TimePoint until = std::min(now + period, deadline);
    if (!long_wait) long_wait.emplace();
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t seen = wakes_;
    while (!ended() && wakes_ == seen && clock.Now() < until) clock.WaitUntil(lock, cv_, until);
    if (ended()) return cancelled;
  }
}

}  // namespace ksched::scheduler::framework
