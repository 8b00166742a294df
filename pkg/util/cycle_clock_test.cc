#include "pkg/util/cycle_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace ksched::util {
namespace {

TEST(CycleClockTest, TicksAreMonotonicAndConvertToNanoseconds) {
  const int64_t a = CycleClock::Now();
  const int64_t b = CycleClock::Now();
  EXPECT_LE(a, b);
  EXPECT_GT(CycleClock::NanosPerTick(), 0.0);
  if (!CycleClock::UsesTsc()) {
    EXPECT_EQ(CycleClock::NanosPerTick(), 1.0);
  }
  // A 20 ms sleep measures as at least 20 ms (a loaded machine only makes
  // it longer) and as far less than the 20 s a wrong rate by 1000x would.
  const int64_t t0 = CycleClock::Now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double ns = static_cast<double>(CycleClock::Now() - t0) * CycleClock::NanosPerTick();
  EXPECT_GE(ns, 19.9e6);
  EXPECT_LT(ns, 20e9);
}

TEST(CycleClockTest, TicksSinceIsNeverNegative) {
  const int64_t past = CycleClock::Now();
  EXPECT_GE(CycleClock::TicksSince(past), 0);
  // A start read on a CPU whose counter runs ahead of this one's.
  EXPECT_EQ(CycleClock::TicksSince(CycleClock::Now() + 1'000'000'000), 0);
}

}  // namespace
}  // namespace ksched::util
