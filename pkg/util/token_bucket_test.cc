#include "pkg/util/token_bucket.h"

#include <gtest/gtest.h>

#include <thread>

namespace ksched::util {
namespace {

using namespace std::chrono_literals;

TEST(TokenBucketTest, BurstThenSpacedByQps) {
  FakeClock clock;
  TokenBucket b(10, 3, clock);
  EXPECT_EQ(b.Reserve(), Duration::zero());
  EXPECT_EQ(b.Reserve(), Duration::zero());
  EXPECT_EQ(b.Reserve(), Duration::zero());
  EXPECT_EQ(b.Reserve(), 100ms);  // reservations queue up
  EXPECT_EQ(b.Reserve(), 200ms);
  clock.Step(200ms);  // pays back both outstanding reservations
  EXPECT_EQ(b.Reserve(), 100ms);
}

TEST(TokenBucketTest, RefillCapsAtBurst) {
  FakeClock clock;
  TokenBucket b(1, 2, clock);
  EXPECT_TRUE(b.TryAccept());
  EXPECT_TRUE(b.TryAccept());
  EXPECT_FALSE(b.TryAccept());
  clock.Step(1h);
  EXPECT_TRUE(b.TryAccept());
  EXPECT_TRUE(b.TryAccept());
  EXPECT_FALSE(b.TryAccept());
}

TEST(TokenBucketTest, UnlimitedNeverWaits) {
  FakeClock clock;
  TokenBucket b(0, 1, clock);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(b.Reserve(), Duration::zero());
  EXPECT_TRUE(b.TryAccept());
}

TEST(TokenBucketTest, WaitReturnsAfterClockSteps) {
  FakeClock clock;
  TokenBucket b(2, 1, clock);
  b.Wait();  // first token is free
  std::thread waiter([&] { b.Wait(); });
  clock.Step(500ms);
  waiter.join();
  EXPECT_FALSE(b.TryAccept());
}

}  // namespace
}  // namespace ksched::util
