#include "pkg/scheduler/framework/binding_waits.h"

#include <gtest/gtest.h>

#include <functional>

#include "pkg/util/long_wait_counter.h"
#include "pkg/util/scripted_clock.h"

namespace ksched::scheduler::framework {
namespace {

using std::chrono::seconds;

TEST(BindingWaitsTest, ImmediateChecksAtOnceOtherwiseAfterOnePeriod) {
  util::ScriptedClock clock;
  BindingWaits waits;
  const util::TimePoint start = clock.Now();
  int calls = 0;
  auto done_on = [&](int n) {
    return [&calls, n]() -> util::StatusOr<bool> { return ++calls == n; };
  };
  EXPECT_TRUE(waits.PollUntil(clock, seconds(1), seconds(5), true, done_on(1)).ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(clock.Now(), start);

  calls = 0;
  EXPECT_TRUE(waits.PollUntil(clock, seconds(1), seconds(5), false, done_on(2)).ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(clock.Now(), start + seconds(2));
}

// A binding pool counts the poll as a long wait from its first wait on.
TEST(BindingWaitsTest, APollIsALongWaitOnceItWaits) {
  util::ScriptedClock clock;
  BindingWaits waits;
  util::LongWaitCounter counter;
  EXPECT_TRUE(waits.PollUntil(clock, seconds(1), seconds(5), true, [] { return util::StatusOr<bool>(true); }).ok());
  EXPECT_EQ(counter.entered.load(), 0);
  int calls = 0;
  EXPECT_TRUE(waits.PollUntil(clock, seconds(1), seconds(5), true, [&] {
    EXPECT_EQ(counter.entered.load(), calls == 0 ? 0 : 1);
    return util::StatusOr<bool>(++calls == 3);
  }).ok());
  EXPECT_EQ(counter.entered.load(), 1);
  EXPECT_EQ(counter.left.load(), 1);
}

TEST(BindingWaitsTest, TimesOutAfterTheLastPeriodsCheck) {
  util::ScriptedClock clock;
  BindingWaits waits;
  int calls = 0;
  util::Status s = waits.PollUntil(clock, seconds(1), seconds(3), true, [&]() -> util::StatusOr<bool> {
    ++calls;
    return false;
  });
  EXPECT_EQ(s.code(), util::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.message(), "context deadline exceeded");
  EXPECT_EQ(calls, 4);  // at 0, 1, 2 and 3 s
}

TEST(BindingWaitsTest, WakeChecksAgainAtOnce) {
  util::ScriptedClock clock;
  BindingWaits waits;
  const util::TimePoint start = clock.Now();
  int calls = 0;
  // The informer event comes during the first wait: no time passes.
  clock.on_wait = [&](int) {
    waits.Wake();
    return false;
  };
  EXPECT_TRUE(waits.PollUntil(clock, seconds(1), seconds(10), false, [&]() -> util::StatusOr<bool> {
                return ++calls == 1;
              }).ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(clock.Waits(), 1);
  EXPECT_EQ(clock.Now(), start);
}

TEST(BindingWaitsTest, CancelEndsThisWaitAndEveryLaterOne) {
  util::ScriptedClock clock;
  BindingWaits waits;
  clock.on_wait = [&](int) {
    waits.Cancel();
    return false;
  };
  int calls = 0;
  auto never = [&]() -> util::StatusOr<bool> {
    ++calls;
    return false;
  };
  util::Status s = waits.PollUntil(clock, seconds(1), seconds(10), true, never);
  EXPECT_EQ(s.code(), util::StatusCode::kCancelled);
  EXPECT_EQ(s.message(), "context canceled");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(waits.PollUntil(clock, seconds(1), seconds(10), true, never).code(), util::StatusCode::kCancelled);
  EXPECT_EQ(calls, 1);
}

TEST(BindingWaitsTest, ConditionErrorEndsTheWait) {
  util::ScriptedClock clock;
  BindingWaits waits;
  util::Status s = waits.PollUntil(clock, seconds(1), seconds(5), true,
                                   []() -> util::StatusOr<bool> { return util::Internal("broken"); });
  EXPECT_EQ(s.message(), "broken");
}

}  // namespace
// A preempted pod's binding cycle (or a failed PreBind beside it) ends the
// wait at once, not at the next 5-second poll; the plugin's other waits go
// on.
TEST(BindingWaitsTest, TheBindingCyclesCancellationEndsItsWaitAtOnce) {
  util::ScriptedClock clock;
  BindingWaits waits;
  Cancellation cycle;
  const util::TimePoint start = clock.Now();
  clock.on_wait = [&](int) {
    cycle.Cancel("preempted by DefaultPreemption");
    return false;
  };
  int calls = 0;
  auto never = [&]() -> util::StatusOr<bool> {
    ++calls;
    return false;
  };
  util::Status s = waits.PollUntil(clock, seconds(5), seconds(600), true, never, &cycle);
  EXPECT_EQ(s.code(), util::StatusCode::kCancelled);
  EXPECT_EQ(s.message(), "context canceled");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(clock.Now(), start);

  clock.on_wait = nullptr;
  Cancellation other;
  EXPECT_TRUE(waits.PollUntil(clock, seconds(1), seconds(10), true, [&]() -> util::StatusOr<bool> {
                return ++calls == 3;
              }, &other).ok());
  EXPECT_EQ(calls, 3);
}

}  // namespace ksched::scheduler::framework
