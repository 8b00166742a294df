#include "pkg/util/token_bucket.h"

#include <algorithm>

namespace ksched::util {

TokenBucket::TokenBucket(double qps, int burst, const Clock& clock)
    : qps_(qps), burst_(std::max(1, burst)), clock_(clock), tokens_(burst_), last_(clock.Now()) {}

void TokenBucket::AdvanceLocked(TimePoint now) {
  if (now <= last_) return;
  double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
  last_ = now;
}

Duration TokenBucket::Reserve() {
  if (qps_ <= 0) return Duration::zero();
  std::lock_guard<std::mutex> l(mu_);
  AdvanceLocked(clock_.Now());
  tokens_ -= 1;
  if (tokens_ >= 0) return Duration::zero();
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

bool TokenBucket::TryAccept() {
  if (qps_ <= 0) return true;
  std::lock_guard<std::mutex> l(mu_);
  AdvanceLocked(clock_.Now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

void TokenBucket::Wait() {
  Duration d = Reserve();
  if (d <= Duration::zero()) return;
  TimePoint deadline = clock_.Now() + d;
  std::mutex m;
  std::unique_lock<std::mutex> l(m);
  while (!clock_.WaitUntil(l, never_notified_, deadline)) {
  }
}

}  // namespace ksched::util
