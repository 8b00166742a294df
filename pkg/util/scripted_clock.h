// ScriptedClock: a test clock whose time moves only when code waits on it.
// Each WaitUntil runs the test's `on_wait` script (the wait's number, from 0)
// without the caller's lock held, as a real wait releases it, so the script
// may do what another thread would do meanwhile (report a condition, wake or
// cancel the waiter). Then time jumps to the wait's deadline, unless the
// script answers false: it woke or cancelled the waiter and no time passes.
//
// Thread-safety: every method is thread-safe; set `on_wait` before the code
// under test runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

#include "pkg/util/clock.h"

namespace ksched::util {

class ScriptedClock final : public Clock {
 public:
  // Answers whether time jumps to the wait's deadline. Unset: it does.
  std::function<bool(int wait)> on_wait;

  TimePoint Now() const override {
    std::lock_guard<std::mutex> l(mu_);
    return now_;
  }
  // Wall time is monotonic time shifted to a plausible date.
  WallTime WallNow() const override {
    std::lock_guard<std::mutex> l(mu_);
    return WallTime{} + std::chrono::hours(24 * 365 * 50) + (now_ - TimePoint{});
  }
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable&,
                 TimePoint deadline) const override {
    int n;
    {
      std::lock_guard<std::mutex> l(mu_);
      n = waits_++;
    }
    lock.unlock();
    const bool jump = on_wait ? on_wait(n) : true;
    lock.lock();
    std::lock_guard<std::mutex> l(mu_);
    if (jump && deadline > now_) now_ = deadline;
    return now_ >= deadline;
  }

  void Advance(Duration d) {
    std::lock_guard<std::mutex> l(mu_);
    now_ += d;
  }
  int Waits() const {
    std::lock_guard<std::mutex> l(mu_);
    return waits_;
  }

 private:
  mutable std::mutex mu_;
  mutable TimePoint now_ = TimePoint{} + std::chrono::seconds(1000);
  mutable int waits_ = 0;
};

}  // namespace ksched::util
