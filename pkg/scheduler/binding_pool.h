// BindingPool: the threads that run binding cycles (kube-scheduler starts a
// goroutine per binding cycle).
//
// A binding cycle blocks: briefly on the API server (the binding POST), or
// for long on PreBind plugins (volume binding waits for the PV controller)
// or at Permit (up to 15 minutes). A fixed pool would let a few waiting pods
// starve every other binding, so the pool grows, up to `max_threads`:
//   - a task submitted while no thread is idle gets a new thread while
//     fewer than `busy_threads` run tasks outside long waits; beyond that
//     it waits in FIFO order for a thread to finish. More threads on quick
//     API calls would only queue more requests at the API server, and each
//     holds a stack and a connection (docs/performance-components.md);
//   - a thread that enters a long wait (util::ScopedLongWait: Permit,
//     BindingWaits) stops counting as busy, so a queued task gets a thread
//     in its place;
//   - while tasks wait and none has started for kStarvationCheck (every
//     busy thread stuck in a wait nobody marked, or an API server that
//     stopped answering), a watch thread starts one more thread per check,
//     as .NET's thread pool injects threads when its work stops moving.
// Threads stay until Shutdown (they are few and cheap compared with
// starting one per pod).
//
// A task goes straight to the thread that became idle last (a stack of idle
// threads, each parked on its own util::Parker): under a steady
// trickle of bindings the same few threads run them with warm stacks, caches
// and malloc arenas, while the rest of a pool grown by a burst sleeps.
// Tasks queued because no thread was idle still run in FIFO order.
//
// Under a stream of bindings (one submitted less than kBusyWindow before a
// thread finds no task) the thread that finished stands by instead of
// sleeping: it looks again kStandbyLook later (a timed wait), and takes
// what was submitted meanwhile, handing the rest to idle threads. Submit
// then queues for it without waking anyone: the scheduling thread, which
// submits every binding, no longer pays a kernel wake-up (an
// inter-processor interrupt on a virtual machine) per pod; a binding waits
// at most kStandbyLook more to start. Only one thread stands by, and only
// while bindings keep coming.
//
// The backlog (queued tasks that count toward it) lets the scheduler pace
// itself to its bindings: each queued binding holds an assumed pod and its
// cycle's state, and a scheduler that outruns the API server by thousands
// of pods holds thousands of them (a third of the memory of a start over
// 10,000 pending pods). Tasks that will wait for other pods (at Permit) do
// not count, so a gang larger than the backlog still gathers.
//
// Thread-safety: every method is thread-safe. Tasks run without any lock of
// the pool held and may Submit further tasks.
// Lifetime: the destructor calls Shutdown().
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "pkg/util/clock.h"
#include "pkg/util/long_wait.h"
#include "pkg/util/parker.h"

namespace ksched::scheduler {

class BindingPool : private util::LongWaitObserver {
 public:
  // How long after a submission a thread that finds no task stands by, and
  // how long each of its looks lasts.
  static constexpr util::Duration kBusyWindow = std::chrono::milliseconds(1);
  static constexpr util::Duration kStandbyLook = std::chrono::microseconds(200);
  // Threads running tasks outside long waits before further tasks queue.
  static constexpr size_t kBusyThreads = 8;
  // How long queued tasks may wait with no task starting before the watch
  // starts another thread.
  static constexpr util::Duration kStarvationCheck = std::chrono::milliseconds(100);

  // `clock` times the standby and the starvation checks, which are about
  // the machine's time (wake-ups, stuck threads), not the scheduler's: the
  // scheduler keeps the real clock even when its own is a fake one.
  explicit BindingPool(size_t max_threads, const util::Clock& clock = util::RealClock::Get(),
                       size_t busy_threads = kBusyThreads);
  ~BindingPool();
  BindingPool(const BindingPool&) = delete;
  BindingPool& operator=(const BindingPool&) = delete;

  // Queues `task`; false (and the task is dropped) after Shutdown. While it
  // waits for a thread, a task `in_backlog` counts toward the backlog.
  bool Submit(std::function<void()> task, bool in_backlog = true);

  // Blocks until fewer than `limit` backlog tasks wait for a thread, or
  // until Shutdown or StopBacklogWaits.
  void WaitForBacklogBelow(size_t limit);
  // Ends every WaitForBacklogBelow, now and later (the scheduler stops).
  void StopBacklogWaits();
  // Backlog tasks waiting for a thread.
  size_t Backlog() const;

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
  // Whether a thread stands by (tests).
  bool HasStandby() const;
  // Starvation checks the watch has made (tests).
  size_t StarvationChecks() const;

 private:
  // One per thread, owned by the pool (not the thread) so that Submit may
  // unpark it after unlocking even if the thread has moved on meanwhile.
  struct Worker {
    // An idle worker sleeps here without mu_; Submit (a task) or Shutdown
    // wakes it.
    util::Parker parker;
    std::function<void()> task;  // handed over under mu_ while it is idle
    bool has_task = false;
  };

  void WorkerLoop(Worker* self);
  // Under mu_: takes the first queued task (tasks_ not empty), out of the
  // backlog.
  std::function<void()> PopQueuedLocked();
  // Under mu_: starts a thread unless the pool has max_threads_ or shuts
  // down.
  void SpawnLocked();
  // Under mu_, for a task queued while no thread is idle: starts a thread
  // while fewer than busy_threads_ run outside long waits, else has the
  // watch look after the queue.
  void GrowForQueuedLocked();
  // Under mu_: starts the watch thread if needed and arms it.
  void WatchQueueLocked();
  // The watch thread: every kStarvationCheck while tasks are queued, starts
  // a thread if none started a task since the last check.
  void WatchForStarvation();
  // util::LongWaitObserver, for the pool's own threads.
  void EnterLongWait() override;
  void LeaveLongWait() override;
  // Under mu_: hands queued tasks to idle threads (returned, to be unparked
  // after unlocking) and starts threads for the rest while the cap allows.
  std::vector<Worker*> HandQueuedToIdleLocked();
  // Under mu_ (held by `l`): stands the calling thread by for one look if
  // bindings keep coming and no other thread stands by; false if it did not.
  bool StandByLocked(std::unique_lock<std::mutex>& l);

  const size_t max_threads_;
  const size_t busy_threads_;
  const util::Clock& clock_;
  mutable std::mutex mu_;
  std::condition_variable idle_cv_;     // WaitIdle waits for pending_ == 0
  std::condition_variable standby_cv_;  // the thread on standby waits out its look
  struct Queued {
    std::function<void()> task;
    bool in_backlog;
  };

  std::condition_variable backlog_cv_;  // WaitForBacklogBelow
  std::deque<Queued> tasks_;            // only while no thread is idle
  size_t backlog_ = 0;                  // tasks_ entries in_backlog
  bool backlog_waits_stopped_ = false;
  std::vector<Worker*> idle_;                // the last to become idle at the back
  bool standing_by_ = false;                 // a thread stands by (it is not in idle_)
  util::TimePoint last_submit_;
  size_t pending_ = 0;  // queued + running
  size_t in_long_wait_ = 0;  // threads in a marked long wait
  uint64_t started_ = 0;     // queued tasks a thread has taken
  bool shutting_down_ = false;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;

  // The starvation watch: armed while tasks wait at the busy cap.
  std::thread watch_;
  std::condition_variable watch_cv_;
  bool watching_ = false;
  util::TimePoint next_check_;
  uint64_t started_at_last_check_ = 0;
  size_t starvation_checks_ = 0;
};

}  // namespace ksched::scheduler
