#include "pkg/workqueue/delaying_queue.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/workqueue/fake_metrics_provider.h"

namespace ksched::workqueue {
namespace {

using namespace std::chrono_literals;

TEST(DelayingQueueTest, NonPositiveDelayAddsAtOnce) {
  util::FakeClock clock;
  DelayingQueue<std::string> q(clock);
  q.AddAfter("a", 0s);
  q.AddAfter("b", -1s);
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.WaitingLen(), 0u);
}

TEST(DelayingQueueTest, ReleasesItemsInReadyOrderAtTheirReadyTime) {
  util::FakeClock clock;
  util::TimePoint start = clock.Now();
  DelayingQueue<std::string> q(clock);
  q.AddAfter("a", 10s);
  q.AddAfter("b", 5s);
  EXPECT_EQ(q.WaitingLen(), 2u);
  EXPECT_EQ(q.Len(), 0u);

  clock.Step(5s);
  EXPECT_EQ(q.Get(), "b");  // blocks until the waiting loop moves it
  // The loop released "b" at start+5s; "a" is not due and must still wait.
  EXPECT_EQ(q.WaitingLen(), 1u);
  EXPECT_EQ(q.Len(), 0u);
  q.Done("b");

  clock.Step(5s);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(clock.Now() - start, 10s);
  EXPECT_EQ(q.WaitingLen(), 0u);
}

TEST(DelayingQueueTest, ReAddKeepsTheEarliestReadyTime) {
  util::FakeClock clock;
  DelayingQueue<std::string> q(clock);
  q.AddAfter("a", 10s);
  q.AddAfter("a", 5s);   // earlier: wins
  q.AddAfter("a", 20s);  // later: ignored
  EXPECT_EQ(q.WaitingLen(), 1u);

  clock.Step(5s);
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  EXPECT_EQ(q.WaitingLen(), 0u);

  // Nothing of "a" is left to fire at 10 s or 20 s: a sentinel due at 20 s
  // comes out alone.
  q.AddAfter("sentinel", 15s);
  clock.Step(15s);
  EXPECT_EQ(q.Get(), "sentinel");
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_EQ(q.WaitingLen(), 0u);
}

TEST(DelayingQueueTest, ReleasedItemIsDeduplicatedWithTheQueue) {
  util::FakeClock clock;
  DelayingQueue<std::string> q(clock);
  q.Add("a");
  q.AddAfter("a", 1s);
  q.AddAfter("b", 2s);
  clock.Step(2s);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Len(), 0u);  // "a" was already queued when it became ready
}

TEST(DelayingQueueTest, ManyItemsWithEqualDelayKeepInsertionOrder) {
  util::FakeClock clock;
  DelayingQueue<int> q(clock);
  for (int i = 0; i < 100; ++i) q.AddAfter(i, 1s);
  clock.Step(1s);
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(q.Get(), i);
    q.Done(i);
  }
}

TEST(DelayingQueueTest, ShutDownDropsWaitingItemsAndIgnoresNewOnes) {
  util::FakeClock clock;
  DelayingQueue<std::string> q(clock);
  q.AddAfter("a", 1s);
  q.Add("b");
  q.ShutDown();
  EXPECT_EQ(q.WaitingLen(), 0u);
  q.AddAfter("c", 0s);
  q.AddAfter("d", 1s);
  EXPECT_EQ(q.WaitingLen(), 0u);
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(DelayingQueueTest, ShutDownWithDrainStopsTheLoopAndWaitsForDone) {
  util::FakeClock clock;
  DelayingQueue<std::string> q(clock);
  q.Add("a");
  q.AddAfter("later", 1h);
  ASSERT_EQ(q.Get(), "a");
  std::thread drainer([&] { q.ShutDownWithDrain(); });
  while (!q.ShuttingDown()) std::this_thread::yield();
  q.Done("a");
  drainer.join();
  EXPECT_EQ(q.WaitingLen(), 0u);
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(DelayingQueueTest, AddAfterCountsRetries) {
  util::FakeClock clock;
  testing::FakeMetricsProvider metrics;
  DelayingQueue<std::string> q(clock, QueueConfig{.name = "dq", .metrics_provider = &metrics});
  q.AddAfter("a", 0s);
  q.AddAfter("b", 1s);
  EXPECT_EQ(metrics.Values("dq").retries, 2);
  q.ShutDown();
  q.AddAfter("c", 1s);
  EXPECT_EQ(metrics.Values("dq").retries, 2);
}

TEST(DelayingQueueTest, HugeDelaySaturatesInsteadOfOverflowing) {
  util::FakeClock clock;
  DelayingQueue<std::string> q(clock);
  q.AddAfter("never", util::Duration::max());
  q.AddAfter("soon", 1s);
  clock.Step(1s);
  EXPECT_EQ(q.Get(), "soon");  // "never" did not wrap around to the past
  EXPECT_EQ(q.WaitingLen(), 1u);
}

TEST(DelayingQueueTest, DestructorStopsWithItemsWaiting) {
  util::FakeClock clock;
  auto q = std::make_unique<DelayingQueue<int>>(clock);
  for (int i = 0; i < 10; ++i) q->AddAfter(i, std::chrono::seconds(i + 1));
  q.reset();  // joins the waiting loop without hanging
}

}  // namespace
}  // namespace ksched::workqueue
