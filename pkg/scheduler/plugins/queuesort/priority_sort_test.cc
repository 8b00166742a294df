#include "pkg/scheduler/plugins/queuesort/priority_sort.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::plugins::queuesort {
namespace {

framework::QueuedPodInfo Info(std::optional<int32_t> priority, int64_t ts_seconds) {
  auto pod = std::make_shared<api::Pod>();
  pod->spec.priority = priority;
  return framework::QueuedPodInfo(pod, util::TimePoint(std::chrono::seconds(ts_seconds)));
}

TEST(PrioritySortTest, HigherPriorityFirstThenOlder) {
  auto p = New();
  EXPECT_EQ(p->Name(), "PrioritySort");
  EXPECT_TRUE(p->Less(Info(10, 5), Info(1, 1)));
  EXPECT_FALSE(p->Less(Info(1, 1), Info(10, 5)));
  EXPECT_TRUE(p->Less(Info(5, 1), Info(5, 2)));
  EXPECT_FALSE(p->Less(Info(5, 2), Info(5, 1)));
  EXPECT_FALSE(p->Less(Info(5, 2), Info(5, 2)));
  // Unset priority is 0.
  EXPECT_TRUE(p->Less(Info(std::nullopt, 1), Info(-1, 0)));
  EXPECT_TRUE(p->Less(Info(0, 1), Info(std::nullopt, 2)));
}

}  // namespace
}  // namespace ksched::scheduler::plugins::queuesort
