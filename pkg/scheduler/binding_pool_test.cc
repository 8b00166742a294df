#include "pkg/scheduler/binding_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

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
