#include "pkg/apiserverlite/timer_queue.h"

namespace ksched::apiserver {

TimerQueue::TimerQueue(util::Clock& clock) : clock_(clock), thread_([this] { Run(); }) {}

TimerQueue::~TimerQueue() { Stop(); }

uint64_t TimerQueue::Schedule(util::TimePoint deadline, Callback cb) {
  std::lock_guard<std::mutex> l(mu_);
  uint64_t id = next_id_++;
  timers_.emplace(deadline, Entry{id, util::Duration::zero(), std::move(cb)});
  deadlines_[id] = deadline;
  cv_.notify_all();
  return id;
}

uint64_t TimerQueue::ScheduleAfter(util::Duration delay, Callback cb) {
  return Schedule(clock_.Now() + delay, std::move(cb));
}

uint64_t TimerQueue::SchedulePeriodic(util::Duration period, Callback cb) {
  if (period <= util::Duration::zero()) period = std::chrono::milliseconds(1);
  std::lock_guard<std::mutex> l(mu_);
  uint64_t id = next_id_++;
  util::TimePoint deadline = clock_.Now() + period;
  timers_.emplace(deadline, Entry{id, period, std::move(cb)});
  deadlines_[id] = deadline;
  cv_.notify_all();
  return id;
}

bool TimerQueue::Cancel(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  auto d = deadlines_.find(id);
  if (d == deadlines_.end()) return false;
  auto range = timers_.equal_range(d->second);
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second.id == id) {
      timers_.erase(it);
      break;
    }
  }
  deadlines_.erase(d);
  return true;
}

void TimerQueue::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

size_t TimerQueue::pending() const {
  std::lock_guard<std::mutex> l(mu_);
  return timers_.size();
}

void TimerQueue::Run() {
  std::unique_lock<std::mutex> l(mu_);
  while (!stopping_) {
    if (timers_.empty()) {
      cv_.wait(l);
      continue;
    }
    auto first = timers_.begin();
    if (clock_.Now() < first->first) {
      clock_.WaitUntil(l, cv_, first->first);
      continue;
    }
    Entry entry = std::move(first->second);
    timers_.erase(first);
    if (entry.period > util::Duration::zero()) {
      // Re-armed before running, so Cancel from any thread stops it.
      util::TimePoint next = clock_.Now() + entry.period;
      timers_.emplace(next, Entry{entry.id, entry.period, entry.cb});
      deadlines_[entry.id] = next;
    } else {
      deadlines_.erase(entry.id);
    }
    l.unlock();
    entry.cb();
    l.lock();
  }
}

}  // namespace ksched::apiserver
