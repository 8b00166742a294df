#include "pkg/scheduler/binding_pool.h"
#include "pkg/util/thread_name.h"
#include "pkg/util/wakeup_policy.h"

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>

namespace ksched::scheduler {

BindingPool::BindingPool(size_t max_threads, const util::Clock& clock, size_t busy_threads)
    : max_threads_(std::max<size_t>(1, max_threads)), busy_threads_(std::max<size_t>(1, busy_threads)), clock_(clock) {}

BindingPool::~BindingPool() { Shutdown(); }

bool BindingPool::Submit(std::function<void()> task, bool in_backlog) {
  Worker* wake = nullptr;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (shutting_down_) return false;
    ++pending_;
    last_submit_ = clock_.Now();
    if (!standing_by_ && !idle_.empty()) {
      wake = idle_.back();
      idle_.pop_back();
      wake->task = std::move(task);
      wake->has_task = true;
    } else {
      tasks_.push_back(Queued{std::move(task), in_backlog});
      if (in_backlog) ++backlog_;
      // The thread on standby takes it at its next look, without a wake-up
      // paid here.
      if (standing_by_) return true;
      GrowForQueuedLocked();
      return true;
    }
  }
  // Unparked after unlocking, so that the woken worker does not go
  // straight back to sleep on the mutex.
  wake->parker.Unpark();
  return true;
}

std::function<void()> BindingPool::PopQueuedLocked() {
  std::function<void()> task = std::move(tasks_.front().task);
  if (tasks_.front().in_backlog) {
    --backlog_;
    backlog_cv_.notify_all();
  }
  tasks_.pop_front();
  ++started_;
  return task;
}

void BindingPool::SpawnLocked() {
  // While shutting down, the threads there are drain the queue.
  if (shutting_down_ || threads_.size() >= max_threads_) return;
  Worker* w = workers_.emplace_back(std::make_unique<Worker>()).get();
  threads_.emplace_back([this, w] {
    util::NameThisThread("bind");
    util::WaitForCpuWhenWoken();
    util::ObserveLongWaitsOfThisThread(this);
    WorkerLoop(w);
  });
}

void BindingPool::GrowForQueuedLocked() {
  if (threads_.size() < busy_threads_ + in_long_wait_) {
    SpawnLocked();
  } else {
    WatchQueueLocked();
  }
}

void BindingPool::WatchQueueLocked() {
  if (watching_ || shutting_down_) return;
  watching_ = true;
  started_at_last_check_ = started_;
  next_check_ = clock_.Now() + kStarvationCheck;
  if (!watch_.joinable()) {
    watch_ = std::thread([this] {
      util::NameThisThread("bind-watch");
      WatchForStarvation();
    });
  } else {
    watch_cv_.notify_one();
  }
}

void BindingPool::WatchForStarvation() {
  std::unique_lock<std::mutex> l(mu_);
  while (!shutting_down_) {
    if (!watching_) {
      watch_cv_.wait(l);
      continue;
    }
    if (clock_.Now() < next_check_) {
      clock_.WaitUntil(l, watch_cv_, next_check_);
      continue;
    }
    ++starvation_checks_;
    if (tasks_.empty()) {
      watching_ = false;
      continue;
    }
    if (started_ == started_at_last_check_) SpawnLocked();
    started_at_last_check_ = started_;
    next_check_ = clock_.Now() + kStarvationCheck;
  }
}

void BindingPool::EnterLongWait() {
  std::lock_guard<std::mutex> l(mu_);
  ++in_long_wait_;
  // This thread no longer counts as busy: a queued task may take its place.
  if (!tasks_.empty() && !standing_by_) GrowForQueuedLocked();
}

void BindingPool::LeaveLongWait() {
  std::lock_guard<std::mutex> l(mu_);
  --in_long_wait_;
}

std::vector<BindingPool::Worker*> BindingPool::HandQueuedToIdleLocked() {
  std::vector<Worker*> wake;
  while (!tasks_.empty() && !idle_.empty()) {
    Worker* w = idle_.back();
    idle_.pop_back();
    w->task = PopQueuedLocked();
    w->has_task = true;
    wake.push_back(w);
  }
  // Threads for what is left, as Submit would have started them.
  for (size_t i = 0; i < tasks_.size(); ++i) GrowForQueuedLocked();
  return wake;
}

bool BindingPool::StandByLocked(std::unique_lock<std::mutex>& l) {
  if (standing_by_ || clock_.Now() - last_submit_ >= kBusyWindow) return false;
  standing_by_ = true;
  const util::TimePoint deadline = clock_.Now() + kStandbyLook;
  while (!shutting_down_ && clock_.Now() < deadline) clock_.WaitUntil(l, standby_cv_, deadline);
  standing_by_ = false;
  return true;
}

void BindingPool::WorkerLoop(Worker* self) {
  std::unique_lock<std::mutex> l(mu_);
  std::vector<Worker*> wake;
  bool looked = false;  // back from standby
  while (true) {
    std::function<void()> task;
    if (!tasks_.empty()) {
      task = PopQueuedLocked();
      // What gathered during a standby gets threads of its own now.
      if (looked) wake = HandQueuedToIdleLocked();
      l.unlock();
    } else {
      if (shutting_down_) return;  // drained
      looked = StandByLocked(l);
      if (looked) continue;
      idle_.push_back(self);
      l.unlock();
      // Out of idle_ once woken: nobody else touches `task` and `has_task`
      // until this worker is idle again.
      self->parker.Park();
      if (!self->has_task) {  // shutting down: Shutdown emptied idle_
        l.lock();
        continue;
      }
      task = std::move(self->task);
      self->task = nullptr;
      self->has_task = false;
    }
    looked = false;
    for (Worker* w : wake) w->parker.Unpark();
    wake.clear();
    try {
      task();
    } catch (const std::exception& e) {
      // The scheduler's binding task handles its own exceptions (a failed
      // binding cycle); this only keeps the pool alive for any other task.
      spdlog::error("binding task threw: {}", e.what());
    } catch (...) {
      spdlog::error("binding task threw a non-exception");
    }
    task = nullptr;  // its captures are released outside the lock
    l.lock();
    if (--pending_ == 0) idle_cv_.notify_all();
  }
}

bool BindingPool::HasStandby() const {
  std::lock_guard<std::mutex> l(mu_);
  return standing_by_;
}

size_t BindingPool::StarvationChecks() const {
  std::lock_guard<std::mutex> l(mu_);
  return starvation_checks_;
}

bool BindingPool::WaitIdle(const util::Clock& clock, util::TimePoint deadline) {
  std::unique_lock<std::mutex> l(mu_);
  while (pending_ != 0) {
    if (clock.WaitUntil(l, idle_cv_, deadline) && pending_ != 0) return false;
  }
  return true;
}

void BindingPool::WaitIdle() {
  std::unique_lock<std::mutex> l(mu_);
  idle_cv_.wait(l, [this] { return pending_ == 0; });
}

void BindingPool::Shutdown() {
  std::vector<std::thread> threads;
  std::vector<Worker*> idle;
  {
    std::lock_guard<std::mutex> l(mu_);
    shutting_down_ = true;
    threads.swap(threads_);
    idle.swap(idle_);
  }
  // Busy workers see shutting_down_ once the queue is drained; the one on
  // standby ends its look.
  for (Worker* w : idle) w->parker.Unpark();
  standby_cv_.notify_all();
  backlog_cv_.notify_all();
  watch_cv_.notify_all();
  for (std::thread& t : threads) t.join();
  if (watch_.joinable()) watch_.join();
}

void BindingPool::WaitForBacklogBelow(size_t limit) {
  std::unique_lock<std::mutex> l(mu_);
  backlog_cv_.wait(l, [&] { return backlog_ < limit || shutting_down_ || backlog_waits_stopped_; });
}

void BindingPool::StopBacklogWaits() {
  {
    std::lock_guard<std::mutex> l(mu_);
    backlog_waits_stopped_ = true;
  }
  backlog_cv_.notify_all();
}

size_t BindingPool::Backlog() const {
  std::lock_guard<std::mutex> l(mu_);
  return backlog_;
}

size_t BindingPool::Pending() const {
  std::lock_guard<std::mutex> l(mu_);
  return pending_;
}

size_t BindingPool::NumThreads() const {
  std::lock_guard<std::mutex> l(mu_);
  return threads_.size();
}

}  // namespace ksched::scheduler
