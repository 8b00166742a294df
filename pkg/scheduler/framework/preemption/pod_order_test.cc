#include "pkg/scheduler/framework/preemption/pod_order.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/preemption/test_pods.h"

namespace ksched::scheduler::framework::preemption {
namespace {

using testing::P;
using testing::T;

TEST(PodOrderTest, MoreImportantPod) {
  struct Case {
    const char* name;
    std::shared_ptr<api::Pod> a, b;
    bool want;
  };
  const api::Time now = T(100);
  std::vector<Case> cases = {
      {"higher priority wins", P("a", 10, 50), P("b", 5, 0), true},
      {"lower priority loses", P("a", 5, 0), P("b", 10, 50), false},
      {"equal priority: earlier start wins", P("a", 5, 10), P("b", 5, 20), true},
      {"equal priority: later start loses", P("a", 5, 20), P("b", 5, 10), false},
      {"not started counts as now", P("a", 5, -1), P("b", 5, 99), false},
      {"same start: neither", P("a", 5, 10), P("b", 5, 10), false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MoreImportantPod(*c.a, *c.b, now), c.want) << c.name;
  }
}

TEST(PodOrderTest, EarliestStartTimeOfHighestPriority) {
  const api::Time now = T(100);
  EXPECT_FALSE(EarliestStartTimeOfHighestPriority({}, now).has_value());
  // Lower-priority pods' start times do not matter.
  EXPECT_EQ(EarliestStartTimeOfHighestPriority({P("a", 1, 1), P("b", 5, 30), P("c", 5, 20), P("d", 2, 0)}, now),
            T(20));
  // A higher priority found later resets the earliest time.
  EXPECT_EQ(EarliestStartTimeOfHighestPriority({P("a", 1, 1), P("b", 9, 40)}, now), T(40));
  EXPECT_EQ(EarliestStartTimeOfHighestPriority({P("a", 1, -1)}, now), now);
}

}  // namespace
}  // namespace ksched::scheduler::framework::preemption
