#include "pkg/scheduler/framework/pods_in_pre_bind.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::framework {
namespace {

TEST(CancellationTest, TheFirstCauseWinsAndWakesSubscribersOnce) {
  Cancellation c;
  int woken = 0;
  const uint64_t id = c.Subscribe([&] { ++woken; });
  EXPECT_FALSE(c.Cancelled());
  EXPECT_EQ(c.Cause(), "");
  c.Cancel("preempted by DefaultPreemption");
  c.Cancel("some other PreBind operation failed");
  EXPECT_TRUE(c.Cancelled());
  EXPECT_EQ(c.Cause(), "preempted by DefaultPreemption");
  EXPECT_EQ(woken, 1);
  c.Unsubscribe(id);

  // A late subscriber is woken at once.
  int late = 0;
  c.Subscribe([&] { ++late; });
  EXPECT_EQ(late, 1);
}

TEST(CancellationTest, AnUnsubscribedWaitIsNotWoken) {
  Cancellation c;
  int woken = 0;
  c.Unsubscribe(c.Subscribe([&] { ++woken; }));
  c.Cancel("x");
  EXPECT_EQ(woken, 0);
}

TEST(CancellationTest, AChildTakesItsParentsCauseButNotTheOtherWay) {
  Cancellation parent;
  {
    Cancellation child(&parent);
    child.Cancel("some other PreBind operation failed");
    EXPECT_TRUE(child.Cancelled());
    EXPECT_FALSE(parent.Cancelled());
  }
  Cancellation child(&parent);
  int woken = 0;
  child.Subscribe([&] { ++woken; });
  parent.Cancel("preempted by DefaultPreemption");
  EXPECT_TRUE(child.Cancelled());
  EXPECT_EQ(child.Cause(), "preempted by DefaultPreemption");
  EXPECT_EQ(woken, 1);
  // Born under a cancelled parent, cancelled at once.
  Cancellation late(&parent);
  EXPECT_EQ(late.Cause(), "preempted by DefaultPreemption");
}

TEST(PodInPreBindTest, CancelledPodsDoNotFinishAndFinishedOnesAreNotCancelled) {
  PodInPreBind cancelled;
  EXPECT_TRUE(cancelled.CancelPod("preempted by DefaultPreemption"));
  EXPECT_TRUE(cancelled.CancelPod("preempted again"));  // still cancelled: no API call due
  EXPECT_EQ(cancelled.cancellation().Cause(), "preempted by DefaultPreemption");
  EXPECT_FALSE(cancelled.MarkPrebound());

  PodInPreBind prebound;
  EXPECT_TRUE(prebound.MarkPrebound());
  EXPECT_FALSE(prebound.CancelPod("preempted by DefaultPreemption"));
  EXPECT_FALSE(prebound.cancellation().Cancelled());
}

TEST(PodsInPreBindTest, ByUid) {
  PodsInPreBind pods;
  EXPECT_EQ(pods.Get("u1"), nullptr);
  std::shared_ptr<PodInPreBind> first = pods.Add("u1");
  EXPECT_EQ(pods.Get("u1"), first);
  std::shared_ptr<PodInPreBind> second = pods.Add("u1");
  EXPECT_EQ(pods.Get("u1"), second);
  pods.Remove("u1");
  EXPECT_EQ(pods.Get("u1"), nullptr);
  pods.Remove("u1");
}

}  // namespace
}  // namespace ksched::scheduler::framework
