// Clock: the single source of time for every component that waits or
// measures durations (queue, work queues, backoff, leader election, cache
// expiry). Production code takes a `Clock&`; tests pass a FakeClock and step
// it, so no test ever sleeps to wait for a timer.
//
// Thread-safety: all methods of both implementations are thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace ksched::util {

using Duration = std::chrono::nanoseconds;
// Monotonic time. Never compare with wall time.
using TimePoint = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;

  // Monotonic "now", for deadlines, backoff and durations.
  virtual TimePoint Now() const = 0;
  // Wall-clock "now", for timestamps written to the API (Events, Leases).
  virtual WallTime WallNow() const = 0;

  // Blocks on `cv` (with `lock` held on entry and on return) until notified
  // or until Now() >= deadline. May return early (spuriously); callers loop
  // on their own predicate and re-check the deadline. Returns true when the
  // deadline has passed.
  virtual bool WaitUntil(std::unique_lock<std::mutex>& lock,
                         std::condition_variable& cv,
                         TimePoint deadline) const = 0;

  Duration Since(TimePoint t) const { return Now() - t; }
};

// The process clock: std::chrono::steady_clock and system_clock.
class RealClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
  WallTime WallNow() const override { return std::chrono::system_clock::now(); }
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 TimePoint deadline) const override;

  // A process-wide instance for code that has no clock injected.
  static RealClock& Get();
};

// A clock that moves only when told to. Waiters notice a Step within about a
// millisecond of real time (they poll in short slices), which keeps the
// implementation free of lost-wakeup races while letting tests observe the
// effect through blocking calls (Get, Pop) rather than sleeps.
class FakeClock final : public Clock {
 public:
  // Starts at an arbitrary fixed point so tests see identical times each run.
  FakeClock();
  explicit FakeClock(TimePoint start);

  TimePoint Now() const override;
  WallTime WallNow() const override;
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 TimePoint deadline) const override;

  // Moves time forward by `d` (d >= 0).
  void Step(Duration d);
  // Sets time; must not move it backwards.
  void SetTime(TimePoint t);

 private:
  mutable std::mutex mu_;
  TimePoint now_;
  WallTime wall_start_;
  TimePoint start_;
};

}  // namespace ksched::util
