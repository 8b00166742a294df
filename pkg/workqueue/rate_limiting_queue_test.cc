#include "pkg/workqueue/rate_limiting_queue.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/workqueue/default_rate_limiters.h"

namespace ksched::workqueue {
namespace {

using namespace std::chrono_literals;

TEST(RateLimitingQueueTest, RetriesWaitGrowingDelaysAndForgetResets) {
  util::FakeClock clock;
  RateLimitingQueue<std::string> q(
      clock, std::make_shared<ItemExponentialFailureRateLimiter<std::string>>(1ms, 1s));
  util::TimePoint t = clock.Now();
  for (util::Duration want : {1ms, 2ms, 4ms}) {
    q.AddRateLimited("a");
    EXPECT_EQ(q.WaitingLen(), 1u);
    clock.Step(want);
    t += want;
    ASSERT_EQ(q.Get(), "a");
    EXPECT_EQ(clock.Now(), t);
    q.Done("a");
  }
  EXPECT_EQ(q.NumRequeues("a"), 3);
  q.Forget("a");
  EXPECT_EQ(q.NumRequeues("a"), 0);

  // Back to the base delay: due after 1 ms, before a sentinel due at 2 ms.
  q.AddRateLimited("a");
  q.AddAfter("sentinel", 2ms);
  clock.Step(1ms);
  EXPECT_EQ(q.Get(), "a");
  clock.Step(1ms);
  EXPECT_EQ(q.Get(), "sentinel");
}

TEST(RateLimitingQueueTest, WorkerLoopRetriesUntilSuccess) {
  util::FakeClock clock;
  RateLimitingQueue<std::string> q(clock, DefaultControllerRateLimiter<std::string>(clock));
  q.Add("a");
  int attempts = 0;
  util::TimePoint start = clock.Now();
  std::vector<util::Duration> attempt_times;
  while (auto key = q.Get()) {
    attempt_times.push_back(clock.Now() - start);
    if (++attempts < 4) {
      q.AddRateLimited(*key);
      q.Done(*key);
      // Release the retry: step exactly the delay the limiter chose.
      clock.Step(5ms * (1 << (attempts - 1)));
      continue;
    }
    q.Forget(*key);
    q.Done(*key);
    break;
  }
  std::vector<util::Duration> want = {0ms, 5ms, 15ms, 35ms};
  EXPECT_EQ(attempt_times, want);
  EXPECT_EQ(q.NumRequeues("a"), 0);
}

}  // namespace
}  // namespace ksched::workqueue
