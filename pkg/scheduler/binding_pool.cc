#include "pkg/scheduler/binding_pool.h"

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>

namespace ksched::scheduler {

BindingPool::BindingPool(size_t max_threads) : max_threads_(std::max<size_t>(1, max_threads)) {}

BindingPool::~BindingPool() { Shutdown(); }

bool BindingPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (shutting_down_) return false;
    tasks_.push_back(std::move(task));
    ++pending_;
    // Queued tasks beyond the idle threads each deserve a thread of their
    // own while the cap allows.
    if (tasks_.size() > idle_threads_ && threads_.size() < max_threads_) {
      threads_.emplace_back([this] { WorkerLoop(); });
      return true;
    }
  }
  // Notified after unlocking, so that the woken worker does not go
  // straight back to sleep on the mutex (one futex round trip per binding).
  work_cv_.notify_one();
  return true;
}

void BindingPool::WorkerLoop() {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    ++idle_threads_;
    work_cv_.wait(l, [this] { return !tasks_.empty() || shutting_down_; });
    --idle_threads_;
    if (tasks_.empty()) return;  // shutting down and drained
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    l.unlock();
    try {
      task();
    } catch (const std::exception& e) {
      // The scheduler's binding task handles its own exceptions (a failed
      // binding cycle); this only keeps the pool alive for any other task.
      spdlog::error("binding task threw: {}", e.what());
    } catch (...) {
      spdlog::error("binding task threw a non-exception");
    }
    l.lock();
    if (--pending_ == 0) idle_cv_.notify_all();
  }
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
  {
    std::lock_guard<std::mutex> l(mu_);
    shutting_down_ = true;
    threads.swap(threads_);
  }
  work_cv_.notify_all();
  for (std::thread& t : threads) t.join();
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
