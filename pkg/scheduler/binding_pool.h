// BindingPool: the threads that run binding cycles (kube-scheduler starts a
// goroutine per binding cycle).
//
// A binding cycle blocks: on the API server (the binding POST), on PreBind
// plugins (volume binding waits for the PV controller) or at Permit for up
// to 15 minutes. A fixed pool would let a few waiting pods starve every
// other binding, so the pool grows: a task submitted while no thread is idle
// gets a new thread, up to `max_threads`; beyond that tasks wait in FIFO
// order. Threads stay until Shutdown (they are few and cheap compared with
// starting one per pod).
//
// Thread-safety: every method is thread-safe. Tasks run without any lock of
// the pool held and may Submit further tasks.
// Lifetime: the destructor calls Shutdown().
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "pkg/util/clock.h"

namespace ksched::scheduler {

class BindingPool {
 public:
  explicit BindingPool(size_t max_threads);
  ~BindingPool();
  BindingPool(const BindingPool&) = delete;
  BindingPool& operator=(const BindingPool&) = delete;

  // Queues `task`; false (and the task is dropped) after Shutdown.
  bool Submit(std::function<void()> task);

  // Blocks until no task is queued or running, or until `deadline` passes
  // on `clock`; returns whether the pool is idle.
  bool WaitIdle(const util::Clock& clock, util::TimePoint deadline);
  // Blocks until no task is queued or running.
  void WaitIdle();

  // Refuses new tasks, lets the queued and running ones finish, joins the
  // threads. Idempotent.
  void Shutdown();

  // Tasks queued or running.
  size_t Pending() const;
  size_t NumThreads() const;

 private:
  void WorkerLoop();

  const size_t max_threads_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // workers wait for tasks
  std::condition_variable idle_cv_;  // WaitIdle waits for pending_ == 0
  std::deque<std::function<void()>> tasks_;
  size_t idle_threads_ = 0;
  size_t pending_ = 0;  // queued + running
  bool shutting_down_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ksched::scheduler
