// RateLimitingQueue<T>: a DelayingQueue whose retries are spaced by a
// RateLimiter (client-go util/workqueue rate_limiting_queue.go).
//
// The usual worker loop:
//   while (auto key = q.Get()) {
//     if (Process(*key).ok()) q.Forget(*key); else q.AddRateLimited(*key);
//     q.Done(*key);
//   }
// AddRateLimited(x) is AddAfter(x, limiter.When(x)); Forget(x) only resets the
// limiter's memory of x (the caller still calls Done); NumRequeues(x) is the
// limiter's failure count for x.
//
// Thread-safety: every method is thread-safe. Lifetime: as DelayingQueue;
// the limiter is shared and may outlive the queue.
#pragma once

#include <memory>
#include <utility>

#include "pkg/util/clock.h"
#include "pkg/workqueue/delaying_queue.h"
#include "pkg/workqueue/rate_limiter.h"

namespace ksched::workqueue {

template <class T, class Hash = std::hash<T>>
class RateLimitingQueue : public DelayingQueue<T, Hash> {
 public:
  RateLimitingQueue(const util::Clock& clock, std::shared_ptr<RateLimiter<T>> limiter,
                    QueueConfig config = {})
      : DelayingQueue<T, Hash>(clock, std::move(config)), limiter_(std::move(limiter)) {}

  // Adds `item` once the limiter says it may be retried.
  void AddRateLimited(const T& item) { this->AddAfter(item, limiter_->When(item)); }

  // The item is finished with (succeeded or given up): reset its backoff.
  void Forget(const T& item) { limiter_->Forget(item); }

  int NumRequeues(const T& item) const { return limiter_->NumRequeues(item); }

  RateLimiter<T>& rate_limiter() const { return *limiter_; }

 private:
  const std::shared_ptr<RateLimiter<T>> limiter_;
};

}  // namespace ksched::workqueue
