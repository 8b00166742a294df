#include "pkg/scheduler/eventhandlers.h"

#include <gtest/gtest.h>

#include "pkg/informer/fake_lister_watcher.h"
#include "pkg/scheduler/scheduler_test_util.h"

namespace ksched::scheduler {
namespace {

using framework::testing::MakeNode;
using framework::testing::MakePod;
using testing::Code;
using testing::Node;
using testing::Pod;
using testing::SchedulerFixture;
using testing::Status;

std::vector<std::string> Names(const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->metadata.name);
  return out;
}

std::shared_ptr<const api::Pod> WithRV(std::shared_ptr<const api::Pod> p, const std::string& rv) {
  auto c = std::make_shared<api::Pod>(*p);
  c->metadata.resource_version = rv;
  return c;
}

// A pod rejected by FakeFilter on every node, sitting in unschedulablePods.
class EventHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    f_.AddNode(Node("n1"));
    f_.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
    f_.AddPod(Pod("pending"));
    f_.ScheduleOne();
    ASSERT_EQ(Names(f_.sched().Queue().UnschedulablePods()), std::vector<std::string>{"pending"});
    f_.behaviour().filter.clear();
    // Past the pod's backoff: a move takes it straight to activeQ.
    f_.clock().Step(std::chrono::seconds(11));
  }

  int64_t Attempts() { return f_.sched().Queue().GetPod("pending", "default")->attempts; }

  SchedulerFixture f_;
  EventHandlers h_{f_.sched()};
};

TEST_F(EventHandlersTest, NodeAddMovesPodsItsRejectorsRegisteredFor) {
  h_.OnNodeAdd(Node("n2"));
  EXPECT_EQ(Names(f_.sched().Queue().PodsInActiveQ()), std::vector<std::string>{"pending"});
  EXPECT_EQ(f_.queue_metrics().IncomingPods(queue::QueueName::kActive, "NodeAdd"), 1);
  EXPECT_TRUE(f_.sched().Cache().GetNodeInfo("n2").ok());
  f_.ScheduleOne();
  EXPECT_EQ(f_.binding_client().Binds().size(), 1u);
}

TEST_F(EventHandlersTest, UnrelatedEventsLeaveThePodAlone) {
  // FakeFilter registered Node/Add and Pod/Delete only.
  auto n1 = f_.sched().Cache().GetNodeInfo("n1")->node_ptr();
  auto relabeled = std::make_shared<api::Node>(*n1);
  relabeled->metadata.labels["x"] = "y";
  relabeled->metadata.resource_version = "2";
  h_.OnNodeUpdate(n1, relabeled);
  h_.OnAssignedPodAdd(MakePod("other").Node("n1").Obj());
  h_.OnResourceEvent(framework::ClusterEvent(framework::resource::kPersistentVolume, framework::ActionType::kAdd), {},
                     std::make_shared<const api::PersistentVolume>());
  EXPECT_EQ(Names(f_.sched().Queue().UnschedulablePods()), std::vector<std::string>{"pending"});
  EXPECT_EQ(f_.queue_metrics().IncomingPods(queue::QueueName::kActive), 1);  // the initial add only
  EXPECT_EQ(Attempts(), 1);
}

TEST_F(EventHandlersTest, AssignedPodDeleteMovesThePod) {
  auto other = MakePod("other").Node("n1").Req({{"cpu", "1"}}).Obj();
  h_.OnAssignedPodAdd(other);
  EXPECT_EQ(f_.sched().Cache().GetNodeInfo("n1")->requested().milli_cpu, 1000);
  h_.OnAssignedPodDelete(other);
  EXPECT_EQ(f_.sched().Cache().GetNodeInfo("n1")->requested().milli_cpu, 0);
  EXPECT_EQ(Names(f_.sched().Queue().PodsInActiveQ()), std::vector<std::string>{"pending"});
  EXPECT_EQ(f_.queue_metrics().IncomingPods(queue::QueueName::kActive, "AssignedPodDelete"), 1);
}

TEST_F(EventHandlersTest, PodsOfOtherSchedulersCountInTheCache) {
  auto foreign = MakePod("foreign").SchedulerName("default-scheduler").Node("n1").Req({{"cpu", "2"}}).Obj();
  h_.OnAssignedPodAdd(foreign);
  EXPECT_EQ(f_.sched().Cache().GetNodeInfo("n1")->requested().milli_cpu, 2000);
  auto updated = WithRV(foreign, "7");
  h_.OnAssignedPodUpdate(foreign, updated);
  EXPECT_EQ(f_.sched().Cache().GetPod(*foreign)->metadata.resource_version, "7");
}

TEST_F(EventHandlersTest, SameResourceVersionUpdatesAreDropped) {
  auto p = WithRV(Pod("p2"), "5");
  h_.OnUnscheduledPodAdd(p);
  ASSERT_EQ(Names(f_.sched().Queue().PodsInActiveQ()), std::vector<std::string>{"p2"});
  auto same = std::make_shared<api::Pod>(*p);
  same->metadata.labels["changed"] = "but same rv";
  h_.OnUnscheduledPodUpdate(p, same);
  EXPECT_TRUE(f_.sched().Queue().GetPod("p2", "default")->pod().metadata.labels.empty());
  auto newer = WithRV(same, "6");
  h_.OnUnscheduledPodUpdate(p, newer);
  EXPECT_EQ(f_.sched().Queue().GetPod("p2", "default")->pod().metadata.labels.at("changed"), "but same rv");
}

TEST_F(EventHandlersTest, UpdatesOfAssumedPodsAreDropped) {
  auto p = WithRV(Pod("p2"), "5");
  ASSERT_TRUE(f_.sched().Cache().AssumePod(WithRV(MakePod("p2").Node("n1").Obj(), "5")).ok());
  h_.OnUnscheduledPodUpdate(p, WithRV(p, "6"));
  EXPECT_FALSE(f_.sched().Queue().GetPod("p2", "default").has_value());
}

TEST_F(EventHandlersTest, UnscheduledPodDeleteRemovesItFromTheQueue) {
  auto p = f_.sched().Queue().GetPod("pending", "default")->pod_ptr();
  h_.OnUnscheduledPodDelete(p);
  EXPECT_TRUE(f_.sched().Queue().PendingPods().pods.empty());
  EXPECT_TRUE(f_.sched().PendingPodsDebug().empty());
}

TEST_F(EventHandlersTest, NominatedPodDeletionMovesOnlyLowerOrEqualPriorityPods) {
  auto nominated = MakePod("nominated").SchedulerName(testing::kProfile).Priority(5).NominatedNode("n1").Obj();
  // "pending" has priority 0 <= 5: moved (Pod/Delete is registered).
  h_.OnUnscheduledPodDelete(nominated);
  EXPECT_EQ(Names(f_.sched().Queue().PodsInActiveQ()), std::vector<std::string>{"pending"});
}

TEST_F(EventHandlersTest, NodeDeleteRemovesItFromTheCache) {
  auto n1 = f_.sched().Cache().GetNodeInfo("n1")->node_ptr();
  h_.OnNodeDelete(n1);
  EXPECT_FALSE(f_.sched().Cache().GetNodeInfo("n1").ok());
}

TEST(EventHandlersUnionTest, OnlyRegisteredResourcesAreWatched) {
  SchedulerFixture f;
  EventHandlers h(f.sched());
  // The fakes registered Pod and Node events only; PrioritySort and
  // FakeScore/FakeBinder are not rejectors and register nothing here.
  EXPECT_TRUE(h.UnionedResources().empty());
}

TEST(EventHandlersStorageTest, StorageEventsAreWatchedOnlyForRegisteredActions) {
  const framework::ClusterEvent sc_add(framework::resource::kStorageClass, framework::ActionType::kAdd);
  const framework::ClusterEvent pvc_update(framework::resource::kPersistentVolumeClaim, framework::ActionType::kUpdate);
  SchedulerFixture f(testing::FakeConfig(), {}, {sc_add, pvc_update});
  EventHandlers h(f.sched());
  EXPECT_EQ(h.UnionedResources(),
            (std::map<std::string, framework::ActionType>{
                {std::string(framework::resource::kPersistentVolumeClaim), framework::ActionType::kUpdate},
                {std::string(framework::resource::kStorageClass), framework::ActionType::kAdd}}));
}

// With hints off only a WaitForFirstConsumer StorageClass can help a pod.
TEST(EventHandlersStorageTest, HintsOffStorageClassAddNeedsLateBinding) {
  const framework::ClusterEvent sc_add(framework::resource::kStorageClass, framework::ActionType::kAdd);
  framework::FeatureGates gates;
  gates.scheduler_queueing_hints = false;
  for (bool hints : {false, true}) {
    SCOPED_TRACE(hints ? "hints on" : "hints off");
    SchedulerFixture f(testing::FakeConfig(), hints ? framework::FeatureGates{} : gates, {sc_add});
    EventHandlers h(f.sched());
    f.AddNode(Node("n1"));
    f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "pod has unbound immediate PersistentVolumeClaims");
    f.AddPod(Pod("p"));
    f.ScheduleOne();
    ASSERT_EQ(Names(f.sched().Queue().UnschedulablePods()), std::vector<std::string>{"p"});
    auto immediate = std::make_shared<api::StorageClass>();
    immediate->metadata.name = "fast";
    h.OnResourceEvent(sc_add, {}, std::shared_ptr<const api::StorageClass>(immediate));
    EXPECT_EQ(Names(f.sched().Queue().UnschedulablePods()).size(), hints ? 0u : 1u);
    auto late = std::make_shared<api::StorageClass>();
    late->metadata.name = "late";
    late->volume_binding_mode = "WaitForFirstConsumer";
    h.OnResourceEvent(sc_add, {}, std::shared_ptr<const api::StorageClass>(late));
    EXPECT_TRUE(f.sched().Queue().UnschedulablePods().empty());
  }
}

TEST(EventHandlersPreCheckTest, HintsOffChecksTheNodeFit) {
  framework::FeatureGates gates;
  gates.scheduler_queueing_hints = false;
  SchedulerFixture f(testing::FakeConfig(), gates);
  EventHandlers h(f.sched());
  f.AddNode(MakeNode("small").Capacity({{"cpu", "1"}, {"pods", "10"}}).Taint("k", "v", "NoSchedule").Obj());
  queue::PreEnqueueCheck check = h.PreCheckForNode("small");
  ASSERT_TRUE(check);
  auto fits = MakePod("a").Req({{"cpu", "500m"}}).Toleration("k", "Equal", "v", "NoSchedule").Obj();
  auto too_big = MakePod("b").Req({{"cpu", "2"}}).Toleration("k", "Equal", "v", "NoSchedule").Obj();
  auto untolerated = MakePod("c").Req({{"cpu", "500m"}}).Obj();
  EXPECT_TRUE(check(*fits));
  EXPECT_FALSE(check(*too_big));
  EXPECT_FALSE(check(*untolerated));

  SchedulerFixture with_hints;
  EventHandlers h2(with_hints.sched());
  with_hints.AddNode(Node("n"));
  EXPECT_FALSE(h2.PreCheckForNode("n"));
}

// DRA events registered by a plugin get their informers: the factory ends up
// watching exactly the registered resources besides pods and nodes.
TEST(EventHandlersDraTest, RegisteredDraResourcesAreWatched) {
  const framework::ClusterEvent claim_add(framework::resource::kResourceClaim, framework::ActionType::kAdd);
  const framework::ClusterEvent slice_update(framework::resource::kResourceSlice, framework::ActionType::kUpdate);
  const framework::ClusterEvent class_add(framework::resource::kDeviceClass, framework::ActionType::kAdd);
  SchedulerFixture f(testing::FakeConfig(), {}, {claim_add, slice_update, class_add});
  EventHandlers h(f.sched());
  util::FakeClock clock;
  informer::InformerFactory factory(
      [](const informer::ResourceType&) { return std::make_unique<informer::FakeListerWatcher>(); }, clock, {});
  auto registrations = h.Register(factory);
  EXPECT_EQ(factory.Resources(),
            (std::vector<std::string>{"deviceclasses", "nodes", "pods", "resourceclaims", "resourceslices"}));
  // Pods twice (assigned, unassigned), nodes, and one per DRA resource.
  EXPECT_EQ(registrations.size(), 6u);
  factory.Shutdown();
}

// With DRADeviceTaintRules the rules are watched too (their changes are
// ResourceSlice updates); without it, or without a ResourceSlice update
// registered, they are not.
TEST(EventHandlersDraTest, DeviceTaintRulesAreWatchedWithTheirGate) {
  const framework::ClusterEvent slice_update(framework::resource::kResourceSlice, framework::ActionType::kUpdate);
  const framework::ClusterEvent claim_add(framework::resource::kResourceClaim, framework::ActionType::kAdd);
  auto watched = [](framework::FeatureGates features, framework::ClusterEvent event) {
    SchedulerFixture f(testing::FakeConfig(), features, {event});
    EventHandlers h(f.sched());
    util::FakeClock clock;
    informer::InformerFactory factory(
        [](const informer::ResourceType&) { return std::make_unique<informer::FakeListerWatcher>(); }, clock, {});
    auto registrations = h.Register(factory);
    std::vector<std::string> resources = factory.Resources();
    factory.Shutdown();
    return resources;
  };
  framework::FeatureGates rules = framework::FeatureGates::ForMinor(37);
  EXPECT_EQ(watched(rules, slice_update), (std::vector<std::string>{"devicetaintrules", "nodes", "pods", "resourceslices"}));
  EXPECT_EQ(watched(rules, claim_add), (std::vector<std::string>{"nodes", "pods", "resourceclaims"}));
  EXPECT_EQ(watched(framework::FeatureGates::ForMinor(36), slice_update),
            (std::vector<std::string>{"nodes", "pods", "resourceslices"}));
}

}  // namespace
}  // namespace ksched::scheduler
