#include "pkg/workqueue/queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace ksched::workqueue {
namespace {

TEST(QueueTest, FifoOrder) {
  util::FakeClock clock;
  Queue<std::string> q(clock);
  q.Add("a");
  q.Add("b");
  q.Add("c");
  EXPECT_EQ(q.Len(), 3u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), "c");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(QueueTest, AddWhileWaitingIsDeduplicated) {
  util::FakeClock clock;
  Queue<std::string> q(clock);
  q.Add("a");
  q.Add("b");
  q.Add("a");
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(QueueTest, AddDuringProcessingRequeuesAfterDone) {
  util::FakeClock clock;
  Queue<std::string> q(clock);
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  // Being processed: the add only marks it dirty, nobody else may get it.
  q.Add("a");
  q.Add("a");
  EXPECT_EQ(q.Len(), 0u);
  q.Add("b");
  EXPECT_EQ(q.Get(), "b");
  q.Done("b");
  EXPECT_EQ(q.Len(), 0u);
  q.Done("a");
  // Done puts it back exactly once.
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(QueueTest, DoneWithoutReAddForgetsItem) {
  util::FakeClock clock;
  Queue<std::string> q(clock);
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0u);
  q.Add("a");  // a fresh add after Done queues it again
  EXPECT_EQ(q.Len(), 1u);
}

TEST(QueueTest, ShutDownStillHandsOutQueuedItems) {
  util::FakeClock clock;
  Queue<std::string> q(clock);
  q.Add("a");
  q.Add("b");
  q.ShutDown();
  EXPECT_TRUE(q.ShuttingDown());
  q.Add("c");  // ignored
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), std::nullopt);
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(QueueTest, DirtyItemIsRequeuedByDoneAfterShutDown) {
  util::FakeClock clock;
  Queue<std::string> q(clock);
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Add("a");  // before shutdown: must not be lost
  q.ShutDown();
  q.Done("a");
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(QueueTest, ShutDownWakesEveryBlockedWorker) {
  util::FakeClock clock;
  Queue<int> q(clock);
  std::atomic<int> exited{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i) {
    workers.emplace_back([&] {
      while (auto item = q.Get()) q.Done(*item);
      exited++;
    });
  }
  q.ShutDown();
  for (auto& t : workers) t.join();
  EXPECT_EQ(exited.load(), 4);
}

TEST(QueueTest, GetBlocksUntilAnItemIsAdded) {
  util::FakeClock clock;
  Queue<int> q(clock);
  std::optional<int> got;
  std::thread worker([&] { got = q.Get(); });
  q.Add(7);
  worker.join();
  EXPECT_EQ(got, 7);
}

TEST(QueueTest, ShutDownWithDrainWaitsForInFlightItems) {
  util::FakeClock clock;
  Queue<std::string> q(clock);
  q.Add("a");
  q.Add("b");
  ASSERT_EQ(q.Get(), "a");
  ASSERT_EQ(q.Get(), "b");
  std::atomic<bool> returned{false};
  std::thread drainer([&] {
    q.ShutDownWithDrain();
    returned = true;
  });
  // The drainer marks the queue shutting down before it waits.
  while (!q.ShuttingDown()) std::this_thread::yield();
  q.Done("a");
  EXPECT_FALSE(returned.load()) << "returned while \"b\" was still being processed";
  q.Done("b");
  drainer.join();
  EXPECT_TRUE(returned.load());
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(QueueTest, ShutDownWithDrainReturnsAtOnceWhenIdle) {
  util::FakeClock clock;
  Queue<std::string> q(clock);
  q.ShutDownWithDrain();
  EXPECT_TRUE(q.ShuttingDown());
}

TEST(QueueTest, ShutDownCancelsAPendingDrain) {
  util::FakeClock clock;
  Queue<std::string> q(clock);
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::thread drainer([&] { q.ShutDownWithDrain(); });
  while (!q.ShuttingDown()) std::this_thread::yield();
  q.ShutDown();  // "a" is never Done, yet the drain must end
  drainer.join();
}

TEST(QueueTest, ItemsQueuedDuringDrainAreStillHandedOut) {
  util::FakeClock clock;
  Queue<std::string> q(clock);
  q.Add("a");
  q.Add("b");
  ASSERT_EQ(q.Get(), "a");
  std::thread drainer([&] { q.ShutDownWithDrain(); });
  while (!q.ShuttingDown()) std::this_thread::yield();
  EXPECT_EQ(q.Get(), "b");
  q.Done("a");
  q.Done("b");
  drainer.join();
  EXPECT_EQ(q.Get(), std::nullopt);
}

}  // namespace
}  // namespace ksched::workqueue
