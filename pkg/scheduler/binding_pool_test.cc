#include "pkg/scheduler/binding_pool.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "pkg/util/clock.h"
#include "pkg/util/long_wait.h"

namespace ksched::scheduler {
namespace {

// A latch tasks block on until the test opens it.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return open_; });
  }
  void Open() {
    std::lock_guard<std::mutex> l(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

TEST(BindingPoolTest, RunsEveryTask) {
  BindingPool pool(4);
  std::atomic<int> n{0};
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(pool.Submit([&] { ++n; }));
  pool.WaitIdle();
  EXPECT_EQ(n.load(), 100);
  EXPECT_EQ(pool.Pending(), 0u);
  EXPECT_LE(pool.NumThreads(), 4u);
}

// Binding threads wait for a CPU rather than preempt the scheduling thread
// that submits to them (util::WaitForCpuWhenWoken).
TEST(BindingPoolTest, ThreadsDoNotPreemptTheThreadThatWakesThem) {
  BindingPool pool(2);
  std::atomic<int> policy{-1};
  ASSERT_TRUE(pool.Submit([&] { policy = sched_getscheduler(0); }));
  pool.WaitIdle();
  EXPECT_EQ(policy.load(), SCHED_BATCH);
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);  // the submitting thread is left as it was
}

TEST(BindingPoolTest, BlockedTasksDoNotStarveOthers) {
  BindingPool pool(8);
  Gate gate;
  for (int i = 0; i < 3; ++i) pool.Submit([&] { gate.Wait(); });
  std::atomic<int> done{0};
  Gate finished;
  pool.Submit([&] {
    ++done;
    finished.Open();
  });
  // Runs although three threads are blocked.
  finished.Wait();
  EXPECT_EQ(done.load(), 1);
  EXPECT_EQ(pool.NumThreads(), 4u);
  gate.Open();
  pool.WaitIdle();
}

TEST(BindingPoolTest, TasksQueueBeyondTheCap) {
  BindingPool pool(2);
  Gate gate;
  std::atomic<int> n{0};
  for (int i = 0; i < 6; ++i) {
    pool.Submit([&] {
      gate.Wait();
      ++n;
    });
  }
  EXPECT_EQ(pool.NumThreads(), 2u);
  EXPECT_EQ(pool.Pending(), 6u);
  gate.Open();
  pool.WaitIdle();
  EXPECT_EQ(n.load(), 6);
}

// Steps `clock` past the busy window and waits until no thread stands by:
// the next submission goes to an idle thread.
void EndTheStream(BindingPool& pool, util::FakeClock& clock) {
  clock.Step(BindingPool::kBusyWindow);
  while (pool.HasStandby()) std::this_thread::yield();
}

TEST(BindingPoolTest, TheThreadIdleLastRunsTheNextTask) {
  util::FakeClock clock;
  BindingPool pool(3, clock);
  Gate gates[3];
  std::thread::id ran_on[3];
  std::atomic<int> started{0};
  for (int i = 0; i < 3; ++i) {
    pool.Submit([&, i] {
      ran_on[i] = std::this_thread::get_id();
      ++started;
      gates[i].Wait();
    });
  }
  // Once all three run, each holds its own thread; the threads become idle
  // in the order 0, 1, 2 (a thread counts as idle in the same step that
  // ends its task). No binding was submitted for a while: none stands by.
  while (started.load() != 3) std::this_thread::yield();
  clock.Step(BindingPool::kBusyWindow);
  for (int i = 0; i < 3; ++i) {
    gates[i].Open();
    while (pool.Pending() != static_cast<size_t>(2 - i)) std::this_thread::yield();
  }
  ASSERT_EQ(pool.NumThreads(), 3u);
  EXPECT_FALSE(pool.HasStandby());

  std::thread::id next;
  pool.Submit([&] { next = std::this_thread::get_id(); });
  pool.WaitIdle();
  EXPECT_EQ(next, ran_on[2]);
  EndTheStream(pool, clock);

  // Two tasks at once: the two threads idle last, the most recent first.
  Gate hold;
  std::thread::id first;
  std::thread::id second;
  pool.Submit([&] {
    first = std::this_thread::get_id();
    hold.Wait();
  });
  pool.Submit([&] {
    second = std::this_thread::get_id();
    hold.Wait();
  });
  hold.Open();
  pool.WaitIdle();
  EXPECT_EQ(first, ran_on[2]);
  EXPECT_EQ(second, ran_on[1]);
  EXPECT_EQ(pool.NumThreads(), 3u);
}

TEST(BindingPoolTest, UnderAStreamTheThreadStandingByTakesTheNextTasks) {
  util::FakeClock clock;
  BindingPool pool(4, clock);
  std::thread::id a_on;
  pool.Submit([&] { a_on = std::this_thread::get_id(); });
  pool.WaitIdle();
  // A binding was just submitted: the thread that ran it stands by.
  while (!pool.HasStandby()) std::this_thread::yield();

  // The next one waits for its look, on no thread of its own.
  std::atomic<bool> b_ran{false};
  std::thread::id b_on;
  pool.Submit([&] {
    b_on = std::this_thread::get_id();
    b_ran = true;
  });
  EXPECT_EQ(pool.Pending(), 1u);
  EXPECT_EQ(pool.NumThreads(), 1u);
  EXPECT_FALSE(b_ran.load());
  clock.Step(BindingPool::kStandbyLook);
  pool.WaitIdle();
  EXPECT_TRUE(b_ran.load());
  EXPECT_EQ(b_on, a_on);

  // What gathered during a look runs at once on threads of its own.
  while (!pool.HasStandby()) std::this_thread::yield();
  Gate hold;
  std::atomic<int> started{0};
  for (int i = 0; i < 3; ++i) {
    pool.Submit([&] {
      ++started;
      hold.Wait();
    });
  }
  EXPECT_EQ(started.load(), 0);
  clock.Step(BindingPool::kStandbyLook);
  while (started.load() != 3) std::this_thread::yield();
  EXPECT_EQ(pool.NumThreads(), 3u);
  hold.Open();
  pool.WaitIdle();

  // Once bindings stop coming, nobody stands by and a submission wakes a
  // thread at once (no clock step needed).
  EndTheStream(pool, clock);
  std::atomic<bool> c_ran{false};
  pool.Submit([&] { c_ran = true; });
  pool.WaitIdle();
  EXPECT_TRUE(c_ran.load());
}

// Submits a task that holds its thread until `gate` opens; returns once it
// runs.
void OccupyAThread(BindingPool& pool, Gate& gate) {
  auto started = std::make_shared<Gate>();  // the task may still be opening it when this returns
  pool.Submit([started, &gate] {
    started->Open();
    gate.Wait();
  });
  started->Wait();
}

// Queued tasks count toward the backlog until a thread takes them; those
// submitted outside it (pods parked at Permit) never do.
TEST(BindingPoolTest, TheBacklogIsTheQueuedTasksThatCount) {
  BindingPool pool(1);
  Gate gate;
  OccupyAThread(pool, gate);
  EXPECT_EQ(pool.Backlog(), 0u);
  std::atomic<int> ran{0};
  pool.Submit([&] { ++ran; });
  pool.Submit([&] { ++ran; }, /*in_backlog=*/false);
  pool.Submit([&] { ++ran; });
  EXPECT_EQ(pool.Backlog(), 2u);
  pool.WaitForBacklogBelow(3);  // returns at once

  // A wait for room returns once the thread has taken enough of the queue.
  std::thread waiter([&] { pool.WaitForBacklogBelow(1); });
  gate.Open();
  waiter.join();
  pool.WaitIdle();
  EXPECT_EQ(ran.load(), 3);
  EXPECT_EQ(pool.Backlog(), 0u);
}

// Beyond the busy threads, a task waits for a thread to finish rather than
// getting one of its own; a thread in a marked long wait is not busy.
TEST(BindingPoolTest, ALongWaitMakesRoomForAnotherBusyThread) {
  util::FakeClock clock;  // the starvation watch never looks
  BindingPool pool(8, clock, /*busy_threads=*/1);
  Gate permit;
  auto waiting = std::make_shared<Gate>();
  pool.Submit([&permit, waiting] {
    util::ScopedLongWait long_wait;
    waiting->Open();
    permit.Wait();
  });
  waiting->Wait();
  // The waiting thread is not busy: this task gets a thread and runs.
  Gate api_call;
  OccupyAThread(pool, api_call);
  EXPECT_EQ(pool.NumThreads(), 2u);

  // Its thread is busy (its wait is not marked): the next task queues.
  std::atomic<bool> queued_ran{false};
  pool.Submit([&] { queued_ran = true; });
  EXPECT_EQ(pool.NumThreads(), 2u);
  EXPECT_EQ(pool.Backlog(), 1u);
  EXPECT_FALSE(queued_ran.load());

  // Once the first thread's wait ends it is busy again, and the queued task
  // runs when a thread finishes.
  permit.Open();
  api_call.Open();
  pool.WaitIdle();
  EXPECT_TRUE(queued_ran.load());
  EXPECT_EQ(pool.NumThreads(), 2u);
}

// A queue that no thread takes from for kStarvationCheck gets one more
// thread per check; a task taken since the last check is progress.
TEST(BindingPoolTest, AStarvedQueueGetsAThreadPerCheckWithoutProgress) {
  util::FakeClock clock;
  BindingPool pool(8, clock, /*busy_threads=*/1);
  Gate gate;
  std::atomic<int> started{0};
  auto stuck = [&] {
    ++started;
    gate.Wait();  // a wait nobody marked
  };
  pool.Submit(stuck);
  while (started.load() != 1) std::this_thread::yield();
  pool.Submit(stuck);
  EXPECT_EQ(pool.NumThreads(), 1u);
  EXPECT_EQ(pool.Backlog(), 1u);

  auto check = [&](size_t n) {
    clock.Step(BindingPool::kStarvationCheck);
    while (pool.StarvationChecks() != n) std::this_thread::yield();
  };
  // Nothing started since the task queued: a thread for it.
  check(1);
  EXPECT_EQ(pool.NumThreads(), 2u);
  while (started.load() != 2) std::this_thread::yield();

  pool.Submit(stuck);
  // The second task started since the last check: no thread yet.
  check(2);
  EXPECT_EQ(pool.NumThreads(), 2u);
  // Nothing started since: one more.
  check(3);
  EXPECT_EQ(pool.NumThreads(), 3u);
  while (started.load() != 3) std::this_thread::yield();
  // An empty queue ends the watch until a task queues again.
  check(4);
  clock.Step(BindingPool::kStarvationCheck);
  EXPECT_EQ(pool.StarvationChecks(), 4u);
  EXPECT_EQ(pool.NumThreads(), 3u);

  gate.Open();
  pool.WaitIdle();
  EXPECT_EQ(started.load(), 3);
}

TEST(BindingPoolTest, StopBacklogWaitsEndsAWaitForRoom) {
  BindingPool pool(1);
  Gate gate;
  OccupyAThread(pool, gate);
  pool.Submit([] {});
  ASSERT_EQ(pool.Backlog(), 1u);
  std::thread waiter([&] { pool.WaitForBacklogBelow(1); });
  pool.StopBacklogWaits();
  waiter.join();  // returned although the backlog is still full
  EXPECT_EQ(pool.Backlog(), 1u);
  pool.WaitForBacklogBelow(1);  // and later waits return at once
  gate.Open();
  pool.WaitIdle();
}

TEST(BindingPoolTest, WaitIdleWithDeadlineOnAFakeClock) {
  util::FakeClock clock;
  BindingPool pool(1);
  Gate gate;
  pool.Submit([&] { gate.Wait(); });
  EXPECT_FALSE(pool.WaitIdle(clock, clock.Now()));
  gate.Open();
  EXPECT_TRUE(pool.WaitIdle(clock, clock.Now() + std::chrono::hours(1)));
}

TEST(BindingPoolTest, ShutdownDrainsAndRefusesNewTasks) {
  BindingPool pool(2);
  std::atomic<int> n{0};
  for (int i = 0; i < 10; ++i) pool.Submit([&] { ++n; });
  pool.Shutdown();
  EXPECT_EQ(n.load(), 10);
  EXPECT_FALSE(pool.Submit([&] { ++n; }));
  pool.Shutdown();
}

}  // namespace
}  // namespace ksched::scheduler
