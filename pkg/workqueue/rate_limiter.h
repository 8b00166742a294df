// RateLimiter<T>: decides how long an item waits before its next retry
// (client-go util/workqueue RateLimiter).
//
// When(item) records one more failure of `item` and returns the delay before
// retrying it; Forget(item) clears what the limiter remembers about it (call
// it when the item succeeded or was given up); NumRequeues(item) is how many
// failures are remembered.
//
// Thread-safety: implementations must be thread-safe; a RateLimitingQueue
// calls them from all its workers.
#pragma once

#include "pkg/util/clock.h"

namespace ksched::workqueue {

template <class T>
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  virtual util::Duration When(const T& item) = 0;
  virtual void Forget(const T& item) = 0;
  virtual int NumRequeues(const T& item) = 0;
};

}  // namespace ksched::workqueue
