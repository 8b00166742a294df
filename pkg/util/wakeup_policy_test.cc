#include "pkg/util/wakeup_policy.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

namespace ksched::util {
namespace {

TEST(WakeupPolicyTest, SetsTheCallingThreadOnly) {
  bool set = false;
  int policy = -1;
  std::thread t([&] {
    set = WaitForCpuWhenWoken();
    policy = sched_getscheduler(0);
  });
  t.join();
  EXPECT_TRUE(set);
  EXPECT_EQ(policy, SCHED_BATCH);
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
}

}  // namespace
}  // namespace ksched::util
