#include "pkg/simulate/jumping_clock.h"

#include <gtest/gtest.h>

#include <chrono>

namespace ksched::simulate {
namespace {

TEST(JumpingClockTest, AWaitEndsAtOnceAtItsDeadline) {
  JumpingClock clock;
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> l(mu);
  const util::TimePoint t0 = clock.Now();
  EXPECT_TRUE(clock.WaitUntil(l, cv, t0 + std::chrono::seconds(1)));
  EXPECT_EQ(clock.Now(), t0 + std::chrono::seconds(1));
  // A deadline already passed leaves time alone.
  EXPECT_TRUE(clock.WaitUntil(l, cv, t0));
  EXPECT_EQ(clock.Now(), t0 + std::chrono::seconds(1));
  clock.Step(std::chrono::microseconds(5));
  EXPECT_EQ(clock.Now(), t0 + std::chrono::seconds(1) + std::chrono::microseconds(5));
}

}  // namespace
}  // namespace ksched::simulate
