#include "pkg/informer/backoff.h"

#include <gtest/gtest.h>

namespace ksched::informer {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(BackoffTest, DoublesWithJitterUpToTheCap) {
  util::FakeClock clock;
  Backoff backoff(clock, BackoffOptions{}, 42);
  util::Duration base = milliseconds(800);
  for (int i = 0; i < 10; ++i) {
    util::Duration d = backoff.Next();
    EXPECT_GE(d, base) << "step " << i;
    EXPECT_LT(d, 2 * base) << "step " << i;
    base = std::min<util::Duration>(base * 2, seconds(30));
  }
  // Settled in [30 s, 60 s).
  util::Duration d = backoff.Next();
  EXPECT_GE(d, seconds(30));
  EXPECT_LT(d, seconds(60));
}

TEST(BackoffTest, ResetsAfterAQuietPeriodOrOnDemand) {
  util::FakeClock clock;
  Backoff backoff(clock, BackoffOptions{}, 7);
  for (int i = 0; i < 5; ++i) backoff.Next();
  EXPECT_GE(backoff.Next(), seconds(25));

  clock.Step(std::chrono::minutes(2));
  util::Duration d = backoff.Next();
  EXPECT_GE(d, milliseconds(800));
  EXPECT_LT(d, milliseconds(1600));

  backoff.Next();
  backoff.Reset();
  d = backoff.Next();
  EXPECT_LT(d, milliseconds(1600));
}

TEST(BackoffTest, NoJitterIsExact) {
  util::FakeClock clock;
  BackoffOptions options;
  options.jitter = 0;
  Backoff backoff(clock, options, 1);
  EXPECT_EQ(backoff.Next(), milliseconds(800));
  EXPECT_EQ(backoff.Next(), milliseconds(1600));
  EXPECT_EQ(backoff.Next(), milliseconds(3200));
}

TEST(BackoffTest, SameSeedSameDelays) {
  util::FakeClock clock;
  Backoff a(clock, BackoffOptions{}, 99);
  Backoff b(clock, BackoffOptions{}, 99);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a.Next(), b.Next());
}

}  // namespace
}  // namespace ksched::informer
