#include "pkg/scheduler/queue/backoff_queue.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/plugins/queuesort/priority_sort.h"
#include "pkg/scheduler/queue/queue_test_util.h"

namespace ksched::scheduler::queue {
namespace {

using namespace std::chrono_literals;
using testing::MakePod;

class BackoffQueueTest : public ::testing::Test {
 protected:
  framework::QueuedPodInfoPtr Info(const std::string& name, int attempts, util::TimePoint ts, int32_t prio = 0,
                                   bool rejected = true) {
    auto info = std::make_shared<framework::QueuedPodInfo>(MakePod(name, prio), ts);
    info->attempts = attempts;
    if (rejected) info->unschedulable_plugins.Insert("fake");
    return info;
  }

  util::FakeClock clock_;
  plugins::queuesort::PrioritySort sort_;
  CountingQueueMetrics metrics_;
};

TEST_F(BackoffQueueTest, DurationsDoubleUpToMax) {
  BackoffQueue q(clock_, 1s, 10s, sort_, true, metrics_);
  EXPECT_EQ(q.BackoffDuration(0), 0s);
  EXPECT_EQ(q.BackoffDuration(1), 1s);
  EXPECT_EQ(q.BackoffDuration(2), 2s);
  EXPECT_EQ(q.BackoffDuration(3), 4s);
  EXPECT_EQ(q.BackoffDuration(4), 8s);
  EXPECT_EQ(q.BackoffDuration(5), 10s);
  EXPECT_EQ(q.BackoffDuration(6), 10s);
  EXPECT_EQ(q.BackoffDuration(1000000), 10s);
}

TEST_F(BackoffQueueTest, DurationNeverOverflows) {
  const util::Duration huge = util::Duration::max();
  BackoffQueue q(clock_, 1s, huge, sort_, true, metrics_);
  for (int attempts : {10, 40, 63, 64, 100, 1000000}) {
    util::Duration d = q.BackoffDuration(attempts);
    EXPECT_GT(d, 0s) << attempts;
    EXPECT_LE(d, huge) << attempts;
  }
  EXPECT_EQ(q.BackoffDuration(1000000), huge);
  BackoffQueue q2(clock_, util::Duration(3), util::Duration(7), sort_, true, metrics_);
  EXPECT_EQ(q2.BackoffDuration(2), util::Duration(6));
  EXPECT_EQ(q2.BackoffDuration(3), util::Duration(7));
}

TEST_F(BackoffQueueTest, NeverAttemptedPodsAreNotBackingOff) {
  BackoffQueue q(clock_, 1s, 10s, sort_, true, metrics_);
  auto info = Info("a", 0, clock_.Now());
  EXPECT_FALSE(q.IsPodBackingOff(*info));
  EXPECT_FALSE(info->backoff_expiration.has_value());
}

TEST_F(BackoffQueueTest, WindowsAlignDeadlines) {
  BackoffQueue q(clock_, 1s, 10s, sort_, true, metrics_);
  clock_.Step(300ms);  // mid-window
  auto info = Info("a", 1, clock_.Now());
  util::TimePoint deadline = q.BackoffTime(*info);
  // now+1s truncated to the second.
  EXPECT_EQ(deadline, q.AlignToWindow(clock_.Now() + 1s));
  EXPECT_EQ(deadline.time_since_epoch() % 1s, 0s);
  EXPECT_TRUE(q.IsPodBackingOff(*info));
  clock_.Step(700ms);  // the deadline's window starts now: still backing off
  EXPECT_TRUE(q.IsPodBackingOff(*info));
  clock_.Step(999ms);
  EXPECT_TRUE(q.IsPodBackingOff(*info));
  clock_.Step(1ms);  // the next window
  EXPECT_FALSE(q.IsPodBackingOff(*info));
}

TEST_F(BackoffQueueTest, WithoutWindowsDeadlineIsExact) {
  BackoffQueue q(clock_, 1s, 10s, sort_, false, metrics_);
  clock_.Step(300ms);
  auto info = Info("a", 2, clock_.Now());
  EXPECT_EQ(q.BackoffTime(*info), clock_.Now() + 2s);
  clock_.Step(2s - 1ms);
  EXPECT_TRUE(q.IsPodBackingOff(*info));
  clock_.Step(1ms);
  EXPECT_TRUE(q.IsPodBackingOff(*info));  // deadline == now still waits
  clock_.Step(1ns);
  EXPECT_FALSE(q.IsPodBackingOff(*info));
}

TEST_F(BackoffQueueTest, RejectorsChooseTheHeap) {
  BackoffQueue q(clock_, 1s, 10s, sort_, true, metrics_);
  q.Add("default/a", Info("a", 1, clock_.Now(), 0, true), "test");
  q.Add("default/b", Info("b", 1, clock_.Now(), 0, false), "test");
  EXPECT_EQ(q.rejection_size(), 1u);
  EXPECT_EQ(q.error_size(), 1u);
  EXPECT_EQ(q.size(), 2u);
  EXPECT_TRUE(q.Has("default/a"));
  EXPECT_TRUE(q.Has("default/b"));
  EXPECT_EQ(metrics_.PendingPods(QueueName::kBackoff), 2);
  EXPECT_EQ(metrics_.IncomingPods(QueueName::kBackoff, "test"), 2);
  // Moving a pod between heaps keeps it in exactly one.
  auto b = *q.Get("default/b");
  b->unschedulable_plugins.Insert("x");
  q.Add("default/b", b, "test");
  EXPECT_EQ(q.rejection_size(), 2u);
  EXPECT_EQ(q.error_size(), 0u);
  EXPECT_EQ(metrics_.PendingPods(QueueName::kBackoff), 2);
  EXPECT_NE(q.Delete("default/a"), nullptr);
  EXPECT_EQ(q.Delete("default/a"), nullptr);
  EXPECT_EQ(metrics_.PendingPods(QueueName::kBackoff), 1);
}

TEST_F(BackoffQueueTest, WindowOrdersByPriority) {
  BackoffQueue q(clock_, 1s, 10s, sort_, true, metrics_);
  util::TimePoint t = clock_.Now();
  q.Add("default/low", Info("low", 1, t + 100ms, 1), "e");
  q.Add("default/high", Info("high", 1, t + 200ms, 100), "e");
  q.Add("default/later", Info("later", 1, t + 1100ms, 1000), "e");
  EXPECT_EQ(q.PopRejectionHead().first, "default/high");  // same window, higher priority
  EXPECT_EQ(q.PopRejectionHead().first, "default/low");
  EXPECT_EQ(q.PopRejectionHead().first, "default/later");
}

TEST_F(BackoffQueueTest, WithoutWindowsOrderIsByDeadline) {
  BackoffQueue q(clock_, 1s, 10s, sort_, false, metrics_);
  util::TimePoint t = clock_.Now();
  q.Add("default/low", Info("low", 1, t + 100ms, 1), "e");
  q.Add("default/high", Info("high", 1, t + 200ms, 100), "e");
  EXPECT_EQ(q.PopRejectionHead().first, "default/low");
}

TEST_F(BackoffQueueTest, PopAllCompletedTakesBothHeaps) {
  BackoffQueue q(clock_, 1s, 10s, sort_, true, metrics_);
  util::TimePoint t = clock_.Now();
  q.Add("default/r1", Info("r1", 1, t), "e");
  q.Add("default/r3", Info("r3", 3, t), "e");  // 4s
  q.Add("default/e1", Info("e1", 1, t, 0, false), "e");
  q.Add("default/e2", Info("e2", 2, t, 0, false), "e");  // 2s
  EXPECT_TRUE(q.PopAllBackoffCompleted().empty());
  clock_.Step(2s);
  auto done = q.PopAllBackoffCompleted();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].key, "default/r1");
  EXPECT_EQ(done[1].key, "default/e1");
  clock_.Step(1s);
  done = q.PopAllBackoffCompleted();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].key, "default/e2");
  clock_.Step(2s);
  done = q.PopAllBackoffCompleted();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].key, "default/r3");
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(metrics_.PendingPods(QueueName::kBackoff), 0);
}

TEST_F(BackoffQueueTest, UpdateReplacesPod) {
  BackoffQueue q(clock_, 1s, 10s, sort_, true, metrics_);
  q.Add("default/a", Info("a", 1, clock_.Now()), "e");
  auto np = testing::WithLabel(*MakePod("a"), "x", "y");
  framework::QueuedPodInfo* updated = q.Update("default/a", np);
  ASSERT_NE(updated, nullptr);
  EXPECT_EQ(updated->pod_ptr(), np);
  EXPECT_EQ(q.Update("default/zzz", np), nullptr);
}

}  // namespace
}  // namespace ksched::scheduler::queue
