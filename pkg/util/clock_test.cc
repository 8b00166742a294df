#include "pkg/util/clock.h"

#include <gtest/gtest.h>

#include <thread>

namespace ksched::util {
namespace {

using namespace std::chrono_literals;

TEST(FakeClockTest, MovesOnlyWhenStepped) {
  FakeClock clock;
  TimePoint t0 = clock.Now();
  WallTime w0 = clock.WallNow();
  EXPECT_EQ(clock.Now(), t0);
  clock.Step(1500ms);
  EXPECT_EQ(clock.Now() - t0, 1500ms);
  EXPECT_EQ(clock.WallNow() - w0, 1500ms);
  EXPECT_EQ(clock.Since(t0), 1500ms);
  clock.SetTime(t0 + 10s);
  EXPECT_EQ(clock.Now(), t0 + 10s);
}

TEST(FakeClockTest, WaitUntilReturnsTrueOncePastDeadline) {
  FakeClock clock;
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_TRUE(clock.WaitUntil(lock, cv, clock.Now()));
  EXPECT_TRUE(clock.WaitUntil(lock, cv, clock.Now() - 1s));
}

TEST(FakeClockTest, WaiterWakesAfterAnotherThreadSteps) {
  FakeClock clock;
  std::mutex mu;
  std::condition_variable cv;
  TimePoint deadline = clock.Now() + 5s;
  std::thread stepper([&] { clock.Step(5s); });
  std::unique_lock<std::mutex> lock(mu);
  while (!clock.WaitUntil(lock, cv, deadline)) {
  }
  stepper.join();
  EXPECT_GE(clock.Now(), deadline);
}

TEST(RealClockTest, WaitUntilPastDeadlineIsImmediate) {
  RealClock& clock = RealClock::Get();
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_TRUE(clock.WaitUntil(lock, cv, clock.Now() - 1ms));
}

}  // namespace
}  // namespace ksched::util
