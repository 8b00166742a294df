#include "pkg/scheduler/queue/queueing_hint_map.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/queue/queue_test_util.h"

namespace ksched::scheduler::queue {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::QueueingHint;
using testing::AlwaysHint;
using testing::FakePlugin;
using testing::PlainPlugin;

class FailingPlugin : public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return "Failing"; }
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override {
    return util::Internal("cannot list events");
  }
};

const ClusterEvent kNodeAdd(framework::resource::kNode, ActionType::kAdd);
const ClusterEvent kNodeTaint(framework::resource::kNode, ActionType::kUpdateNodeTaint);
const ClusterEvent kPodDelete(framework::resource::kPod, ActionType::kDelete);

TEST(QueueingHintMapTest, PluginWithoutExtensionsGetsAllEvents) {
  PlainPlugin plain("Plain");
  auto m = BuildQueueingHintMap({&plain}, framework::FeatureGates());
  ASSERT_TRUE(m.ok());
  // Every unrolled resource plus the Node taint registration (it has Node/Add
  // via All, which also covers taints, so no extra entry).
  EXPECT_EQ(m->entries().size(), 10u);
  EXPECT_TRUE(m->Matches(kNodeAdd));
  EXPECT_TRUE(m->Matches(framework::kEventAssignedPodDelete));
  EXPECT_FALSE(m->Matches(ClusterEvent(framework::resource::kVolumeAttachment, ActionType::kDelete)));
}

TEST(QueueingHintMapTest, EmptyListRegistersNothing) {
  FakePlugin none("None", {});
  auto m = BuildQueueingHintMap({&none}, framework::FeatureGates());
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->empty());
  EXPECT_FALSE(m->Matches(kNodeAdd));
}

TEST(QueueingHintMapTest, NodeAddGetsTaintRegistration) {
  FakePlugin p("P", {{kNodeAdd, AlwaysHint(QueueingHint::kQueueSkip)}});
  auto m = BuildQueueingHintMap({&p}, framework::FeatureGates());
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->entries().size(), 2u);
  EXPECT_EQ(m->entries()[1].event, kNodeTaint);
  EXPECT_FALSE(m->entries()[1].hints[0].fn);  // default hint: Queue
  EXPECT_TRUE(m->entries()[0].hints[0].fn);
  // A plugin that registered the taint itself gets nothing extra.
  FakePlugin q("Q", {{kNodeAdd, nullptr}, {kNodeTaint, nullptr}});
  auto m2 = BuildQueueingHintMap({&q}, framework::FeatureGates());
  EXPECT_EQ(m2->entries().size(), 2u);
}

TEST(QueueingHintMapTest, HintsOffDropsHintFunctions) {
  FakePlugin p("P", {{kPodDelete, AlwaysHint(QueueingHint::kQueueSkip)}});
  framework::FeatureGates off;
  off.scheduler_queueing_hints = false;
  auto m = BuildQueueingHintMap({&p}, off);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->entries().size(), 1u);
  EXPECT_FALSE(m->entries()[0].hints[0].fn);
}

TEST(QueueingHintMapTest, ErrorsAreJoined) {
  FailingPlugin f;
  FakePlugin p("P", {{kPodDelete, nullptr}});
  auto m = BuildQueueingHintMap({&p, &f}, framework::FeatureGates());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("Failing: cannot list events"), std::string::npos);
}

TEST(QueueingHintMapTest, MatchGroupsByPlugin) {
  FakePlugin a("A", {{ClusterEvent(framework::resource::kNode, ActionType::kUpdate), nullptr},
                     {ClusterEvent(framework::resource::kNode, ActionType::kAll), AlwaysHint(QueueingHint::kQueue)}});
  FakePlugin b("B", {{ClusterEvent(framework::resource::kNode, ActionType::kUpdateNodeLabel), nullptr}});
  auto m = BuildQueueingHintMap({&a, &b}, framework::FeatureGates());
  ASSERT_TRUE(m.ok());
  MatchedHints out;
  m->Match(ClusterEvent(framework::resource::kNode, ActionType::kUpdateNodeLabel), &out);
  ASSERT_EQ(out.plugins.size(), 2u);
  EXPECT_EQ(out.plugins[0].plugin, "A");
  EXPECT_EQ(out.plugins[0].fns.size(), 2u);
  EXPECT_EQ(out.plugins[1].plugin, "B");
  m->Match(ClusterEvent(framework::resource::kNode, ActionType::kUpdate), &out);
  ASSERT_EQ(out.plugins.size(), 1u);  // generic Update misses B's specific registration
  m->Match(kPodDelete, &out);
  EXPECT_TRUE(out.empty());
}

TEST(QueueingHintMapTest, PluginToEvents) {
  FakePlugin a("A", {{kPodDelete, nullptr}});
  FakePlugin b("B", {{kNodeTaint, nullptr}});
  QueueingHintMapPerProfile maps;
  maps.emplace("p1", *BuildQueueingHintMap({&a}, framework::FeatureGates()));
  maps.emplace("p2", *BuildQueueingHintMap({&a, &b}, framework::FeatureGates()));
  auto m = BuildPluginToEventsMap(maps);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at("A")->size(), 2u);
  EXPECT_EQ(*m.at("B"), std::vector<ClusterEvent>{kNodeTaint});
}

}  // namespace
}  // namespace ksched::scheduler::queue
