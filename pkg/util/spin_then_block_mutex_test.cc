#include "pkg/util/spin_then_block_mutex.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace ksched::util {
namespace {

TEST(SpinThenBlockMutexTest, ExcludesOtherHolders) {
  SpinThenBlockMutex mu;
  int64_t counter = 0;  // guarded by mu
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        std::lock_guard<SpinThenBlockMutex> l(mu);
        ++counter;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(counter, 4 * 20000);
}

TEST(SpinThenBlockMutexTest, TryLockFailsWhileHeldAndTheInnerMutexIsTheSameLock) {
  SpinThenBlockMutex mu;
  mu.lock();
  bool taken = true;
  std::thread([&] { taken = mu.try_lock(); }).join();
  EXPECT_FALSE(taken);
  mu.unlock();
  {
    std::unique_lock<std::mutex> l(mu.inner());
    std::thread([&] { taken = mu.try_lock(); }).join();
    EXPECT_FALSE(taken);
  }
  EXPECT_TRUE(mu.try_lock());
  mu.unlock();
}

TEST(SpinThenBlockMutexTest, ConditionVariablesWaitOnTheInnerMutex) {
  SpinThenBlockMutex mu;
  std::condition_variable cv;
  bool ready = false;  // guarded by mu
  std::thread waiter([&] {
    std::unique_lock<std::mutex> l(mu.inner());
    cv.wait(l, [&] { return ready; });
  });
  {
    std::lock_guard<SpinThenBlockMutex> l(mu);
    ready = true;
  }
  cv.notify_all();
  waiter.join();
  EXPECT_TRUE(ready);
}

}  // namespace
}  // namespace ksched::util
