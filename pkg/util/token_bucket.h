// TokenBucket: a token-bucket rate limiter (golang.org/x/time/rate style)
// used for client-side API rate limiting (clientConnection qps/burst) and by
// the work queues' bucket rate limiter.
//
// The bucket holds up to `burst` tokens and refills at `qps` tokens per
// second. Reserve() always succeeds and returns how long the caller must wait
// before acting; reservations queue up, so N callers at an empty bucket get
// delays 1/qps, 2/qps, ... Time comes from the injected Clock.
//
// Thread-safety: all methods are thread-safe. Complexity: O(1).
#pragma once

#include <mutex>

#include "pkg/util/clock.h"

namespace ksched::util {

class TokenBucket {
 public:
  // qps <= 0 means unlimited: every reservation is immediate.
  TokenBucket(double qps, int burst, const Clock& clock);

  // Takes one token, possibly in the future; returns the wait (>= 0).
  Duration Reserve();
  // Takes a token only if one is available now.
  bool TryAccept();
  // Reserve() and then wait that long on the clock.
  void Wait();

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  void AdvanceLocked(TimePoint now);

  const double qps_;
  const int burst_;
  const Clock& clock_;

  std::mutex mu_;
  std::condition_variable never_notified_;  // Wait() sleeps on the clock through it
  double tokens_;     // may go negative: outstanding reservations
  TimePoint last_;
};

}  // namespace ksched::util
