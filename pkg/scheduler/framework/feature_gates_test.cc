#include "pkg/scheduler/framework/feature_gates.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::framework {
namespace {

TEST(FeatureGatesTest, DefaultsFollowKube134) {
  FeatureGates g;
  EXPECT_TRUE(g.scheduler_queueing_hints);
  EXPECT_TRUE(g.scheduler_pop_from_backoff_q);
  EXPECT_TRUE(g.scheduler_async_preemption);
}

TEST(FeatureGatesTest, AsyncPreemptionCanBeTurnedOff) {
  auto g = FeatureGates::Parse("SchedulerAsyncPreemption=false");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_FALSE(g->scheduler_async_preemption);
  EXPECT_TRUE(g->scheduler_queueing_hints);
}

TEST(FeatureGatesTest, ParsesList) {
  auto g = FeatureGates::Parse("SchedulerAsyncPreemption=false, SchedulerPopFromBackoffQ=False");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_FALSE(g->scheduler_async_preemption);
  EXPECT_FALSE(g->scheduler_pop_from_backoff_q);
  auto h = FeatureGates::Parse("SchedulerPopFromBackoffQ=0");
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->scheduler_queueing_hints);
  EXPECT_FALSE(h->scheduler_pop_from_backoff_q);
  EXPECT_TRUE(FeatureGates::Parse("").ok());
  EXPECT_TRUE(FeatureGates::Parse("SchedulerQueueingHints=T,").ok());
}

TEST(FeatureGatesTest, RejectsBadInputWithoutChanging) {
  FeatureGates g;
  EXPECT_FALSE(g.Set("SchedulerQueueingHints=false,Unknown=true").ok());
  EXPECT_TRUE(g.scheduler_queueing_hints);
  util::Status s = g.Set("SchedulerQueueingHints=maybe");
  EXPECT_EQ(s.code(), util::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("SchedulerQueueingHints=maybe"), std::string::npos);
  EXPECT_FALSE(g.Set("SchedulerQueueingHints").ok());
  EXPECT_FALSE(g.Set("schedulerqueueinghints=false").ok());
  EXPECT_EQ(g, FeatureGates());
}

// kube-scheduler v1.34 exits with this text for
// --feature-gates=SchedulerQueueingHints=false.
TEST(FeatureGatesTest, QueueingHintsAreLockedOnAsInKube134) {
  FeatureGates g;
  util::Status s = g.Set("SchedulerPopFromBackoffQ=false,SchedulerQueueingHints=false");
  EXPECT_EQ(s.code(), util::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true");
  EXPECT_EQ(g, FeatureGates());
  EXPECT_TRUE(g.Set("SchedulerQueueingHints=true").ok());
  EXPECT_TRUE(g.scheduler_queueing_hints);
}

}  // namespace
}  // namespace ksched::scheduler::framework
