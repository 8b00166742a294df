// TimerQueue: runs callbacks at deadlines of an injected util::Clock, on one
// background thread (watch timeouts, bookmarks, the simulated kubelet, fault
// injection).
//
// With a FakeClock, stepping the clock past a deadline runs the callback
// within about a millisecond of real time, so tests never sleep.
//
// Thread-safety: all methods are thread-safe. Callbacks run on the timer
// thread, one at a time, without the queue's mutex held, so they may
// schedule or cancel timers. Stop() (also run by the destructor) joins the
// thread; callbacks not yet due are dropped.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "pkg/util/clock.h"

namespace ksched::apiserver {

class TimerQueue {
 public:
  using Callback = std::function<void()>;

  explicit TimerQueue(util::Clock& clock);
  ~TimerQueue();

  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  // Runs `cb` once Clock::Now() >= deadline. Returns an id for Cancel.
  uint64_t Schedule(util::TimePoint deadline, Callback cb);
  uint64_t ScheduleAfter(util::Duration delay, Callback cb);
  // Runs `cb` every `period` (> 0) from now + period until Cancel(id).
  uint64_t SchedulePeriodic(util::Duration period, Callback cb);
  // Drops a pending timer; returns false if it already ran or is unknown.
  // A periodic timer never runs again once Cancel returns, unless it is
  // running at that moment on the timer thread.
  bool Cancel(uint64_t id);

  void Stop();
  size_t pending() const;
  util::Clock& clock() const { return clock_; }

 private:
  struct Entry {
    uint64_t id;
    util::Duration period;  // zero for one-shot timers
    Callback cb;
  };

  void Run();

  util::Clock& clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<util::TimePoint, Entry> timers_;
  std::map<uint64_t, util::TimePoint> deadlines_;  // id -> key in timers_
  uint64_t next_id_ = 1;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ksched::apiserver
