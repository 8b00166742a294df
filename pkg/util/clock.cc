#include "pkg/util/clock.h"

#include <cassert>

namespace ksched::util {

bool RealClock::WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          TimePoint deadline) const {
  return cv.wait_until(lock, deadline) == std::cv_status::timeout ||
         std::chrono::steady_clock::now() >= deadline;
}

RealClock& RealClock::Get() {
  static RealClock clock;
  return clock;
}

namespace {
// 2026-01-01T00:00:00Z: a fixed, readable wall time for fake clocks.
constexpr std::chrono::seconds kFakeWallEpoch{1767225600};
constexpr std::chrono::milliseconds kFakePollSlice{1};
}  // namespace

FakeClock::FakeClock() : FakeClock(TimePoint(std::chrono::hours(1000))) {}

FakeClock::FakeClock(TimePoint start)
    : now_(start), wall_start_(WallTime(kFakeWallEpoch)), start_(start) {}

TimePoint FakeClock::Now() const {
  std::lock_guard<std::mutex> l(mu_);
  return now_;
}

WallTime FakeClock::WallNow() const {
  std::lock_guard<std::mutex> l(mu_);
  return wall_start_ + std::chrono::duration_cast<WallTime::duration>(now_ - start_);
}

bool FakeClock::WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          TimePoint deadline) const {
  if (Now() >= deadline) return true;
  // Poll in short real-time slices: a Step by another thread is noticed on
  // the next slice, and a notify on `cv` wakes the caller at once.
  cv.wait_for(lock, kFakePollSlice);
  return Now() >= deadline;
}

void FakeClock::Step(Duration d) {
  assert(d.count() >= 0);
  std::lock_guard<std::mutex> l(mu_);
  now_ += d;
}

void FakeClock::SetTime(TimePoint t) {
  std::lock_guard<std::mutex> l(mu_);
  assert(t >= now_);
  now_ = t;
}

}  // namespace ksched::util
