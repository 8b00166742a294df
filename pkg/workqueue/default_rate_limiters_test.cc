#include "pkg/workqueue/default_rate_limiters.h"

#include <gtest/gtest.h>

#include <string>

namespace ksched::workqueue {
namespace {

using namespace std::chrono_literals;
using util::Duration;

TEST(ItemExponentialFailureRateLimiterTest, DoublesPerFailureUpToMax) {
  ItemExponentialFailureRateLimiter<std::string> r(1ms, 1s);
  std::vector<Duration> want = {1ms, 2ms, 4ms, 8ms, 16ms, 32ms, 64ms, 128ms, 256ms, 512ms, 1s, 1s};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(r.When("a"), want[i]) << "failure " << i;
  }
  EXPECT_EQ(r.NumRequeues("a"), 12);
  EXPECT_EQ(r.NumRequeues("b"), 0);
}

TEST(ItemExponentialFailureRateLimiterTest, ItemsAreIndependentAndForgetResets) {
  ItemExponentialFailureRateLimiter<std::string> r(5ms, 1000s);
  EXPECT_EQ(r.When("a"), 5ms);
  EXPECT_EQ(r.When("a"), 10ms);
  EXPECT_EQ(r.When("b"), 5ms);
  EXPECT_EQ(r.When("a"), 20ms);
  r.Forget("a");
  EXPECT_EQ(r.NumRequeues("a"), 0);
  EXPECT_EQ(r.When("a"), 5ms);
  EXPECT_EQ(r.NumRequeues("b"), 1);
}

TEST(ItemExponentialFailureRateLimiterTest, SaturatesInsteadOfOverflowing) {
  ItemExponentialFailureRateLimiter<int> r(1ns, Duration::max());
  Duration previous = Duration::zero();
  for (int i = 0; i < 2000; ++i) {
    Duration d = r.When(1);
    ASSERT_GE(d, previous) << "failure " << i;
    previous = d;
  }
  EXPECT_EQ(previous, Duration::max());

  ItemExponentialFailureRateLimiter<int> capped(5ms, 1000s);
  for (int i = 0; i < 100; ++i) capped.When(1);
  EXPECT_EQ(capped.When(1), 1000s);
}

TEST(ItemFastSlowRateLimiterTest, FastThenSlow) {
  ItemFastSlowRateLimiter<std::string> r(5ms, 10s, 3);
  EXPECT_EQ(r.When("a"), 5ms);
  EXPECT_EQ(r.When("a"), 5ms);
  EXPECT_EQ(r.When("a"), 5ms);
  EXPECT_EQ(r.When("a"), 10s);
  EXPECT_EQ(r.When("a"), 10s);
  EXPECT_EQ(r.When("b"), 5ms);
  EXPECT_EQ(r.NumRequeues("a"), 5);
  r.Forget("a");
  EXPECT_EQ(r.NumRequeues("a"), 0);
  EXPECT_EQ(r.When("a"), 5ms);
}

TEST(BucketRateLimiterTest, BurstThenQps) {
  util::FakeClock clock;
  BucketRateLimiter<std::string> r(clock, 1, 2);
  EXPECT_EQ(r.When("a"), 0s);
  EXPECT_EQ(r.When("b"), 0s);
  EXPECT_EQ(r.When("a"), 1s);  // reservations queue up
  EXPECT_EQ(r.When("c"), 2s);
  EXPECT_EQ(r.NumRequeues("a"), 0);
  r.Forget("a");  // global: nothing to forget
  clock.Step(3s);
  EXPECT_EQ(r.When("a"), 0s);
}

TEST(MaxOfRateLimiterTest, LongestDelayAndEveryLimiterCounts) {
  auto fast_slow = std::make_shared<ItemFastSlowRateLimiter<std::string>>(5ms, 3s, 3);
  auto exponential = std::make_shared<ItemExponentialFailureRateLimiter<std::string>>(1ms, 1s);
  MaxOfRateLimiter<std::string> r({fast_slow, exponential});
  std::vector<Duration> want = {5ms, 5ms, 5ms, 3s, 3s, 3s, 3s, 3s, 3s, 3s, 3s};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r.When("a"), want[i]) << "failure " << i;
  EXPECT_EQ(r.NumRequeues("a"), 11);
  EXPECT_EQ(exponential->NumRequeues("a"), 11);
  r.Forget("a");
  EXPECT_EQ(fast_slow->NumRequeues("a"), 0);
  EXPECT_EQ(exponential->NumRequeues("a"), 0);
  EXPECT_EQ(r.When("a"), 5ms);
}

TEST(WithMaxWaitRateLimiterTest, CapsTheDelay) {
  auto exponential = std::make_shared<ItemExponentialFailureRateLimiter<std::string>>(1s, 1000s);
  WithMaxWaitRateLimiter<std::string> r(exponential, 3s);
  EXPECT_EQ(r.When("a"), 1s);
  EXPECT_EQ(r.When("a"), 2s);
  EXPECT_EQ(r.When("a"), 3s);
  EXPECT_EQ(r.When("a"), 3s);
  EXPECT_EQ(r.NumRequeues("a"), 4);
  r.Forget("a");
  EXPECT_EQ(r.When("a"), 1s);
}

TEST(DefaultControllerRateLimiterTest, ExponentialPerItemBucketOverall) {
  util::FakeClock clock;
  auto r = DefaultControllerRateLimiter<std::string>(clock);
  EXPECT_EQ(r->When("a"), 5ms);
  EXPECT_EQ(r->When("a"), 10ms);
  EXPECT_EQ(r->When("a"), 20ms);
  EXPECT_EQ(r->NumRequeues("a"), 3);
  // 97 more failures use up the burst of 100 ...
  for (int i = 0; i < 97; ++i) ASSERT_EQ(r->When("item-" + std::to_string(i)), 5ms);
  // ... then the bucket's 10 qps dominates a fresh item's 5 ms.
  EXPECT_EQ(r->When("z"), 100ms);
  EXPECT_EQ(r->When("y"), 200ms);
  r->Forget("a");
  EXPECT_EQ(r->NumRequeues("a"), 0);
}

TEST(DefaultItemBasedRateLimiterTest, OneMillisecondBase) {
  auto r = DefaultItemBasedRateLimiter<std::string>();
  EXPECT_EQ(r->When("a"), 1ms);
  EXPECT_EQ(r->When("a"), 2ms);
}

}  // namespace
}  // namespace ksched::workqueue
