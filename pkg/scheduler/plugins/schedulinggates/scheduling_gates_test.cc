#include "pkg/scheduler/plugins/schedulinggates/scheduling_gates.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::plugins::schedulinggates {
namespace {

std::shared_ptr<api::Pod> Pod(const char* uid, std::vector<std::string> gates) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.uid = uid;
  for (auto& g : gates) p->spec.scheduling_gates.push_back({g});
  return p;
}

TEST(SchedulingGatesTest, PreEnqueue) {
  auto pl = New(framework::FeatureGates());
  EXPECT_EQ(pl->Name(), "SchedulingGates");
  EXPECT_TRUE(pl->PreEnqueue(*Pod("u", {})).IsSuccess());
  framework::Status s = pl->PreEnqueue(*Pod("u", {"foo", "bar"}));
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "waiting for scheduling gates: [foo bar]");
}

TEST(SchedulingGatesTest, EventsWithHints) {
  auto pl = New(framework::FeatureGates());
  auto events = pl->EventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].event,
            framework::ClusterEvent(framework::resource::kPod,
                                    framework::ActionType::kUpdatePodSchedulingGatesEliminated));
  const auto& fn = (*events)[0].queueing_hint_fn;
  ASSERT_TRUE(fn);
  auto self = Pod("u1", {});
  auto other = Pod("u2", {});
  auto q = fn(*self, framework::EventObject(Pod("u1", {"g"})), framework::EventObject(self));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, framework::QueueingHint::kQueue);
  auto skip = fn(*self, framework::EventObject(), framework::EventObject(other));
  ASSERT_TRUE(skip.ok());
  EXPECT_EQ(*skip, framework::QueueingHint::kQueueSkip);
  auto err = fn(*self, framework::EventObject(), framework::EventObject(std::make_shared<const api::Node>()));
  EXPECT_FALSE(err.ok());
}

TEST(SchedulingGatesTest, NoEventsWithoutHints) {
  framework::FeatureGates g;
  g.scheduler_queueing_hints = false;
  auto pl = New(g);
  auto events = pl->EventsToRegister();
  ASSERT_TRUE(events.ok());
  EXPECT_TRUE(events->empty());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::schedulinggates
