#include "pkg/scheduler/explain_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pkg/scheduler/scheduler_test_util.h"

namespace ksched::scheduler {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using testing::Code;
using testing::Node;
using testing::Pod;
using testing::SchedulerFixture;
using testing::Status;

TEST(ExplainJsonTest, DescribesClusterEventsReadably) {
  EXPECT_EQ(DescribeClusterEvent(ClusterEvent("Node", ActionType::kAdd | ActionType::kUpdateNodeAllocatable)),
            "Node Add/UpdateNodeAllocatable");
  EXPECT_EQ(DescribeClusterEvent(ClusterEvent("AssignedPod", ActionType::kDelete)), "AssignedPod Delete");
  EXPECT_EQ(DescribeClusterEvent(ClusterEvent("Pod", ActionType::kAll)), "Pod All");
  EXPECT_EQ(DescribeClusterEvent(ClusterEvent("Node", ActionType::kAdd | ActionType::kUpdate)), "Node Update/Add");
  EXPECT_EQ(DescribeClusterEvent(framework::kEventUnschedulableTimeout), "UnschedulableTimeout");
}

TEST(ExplainJsonTest, RequeueEventsAreTheRejectorsRegistrations) {
  queue::QueueingHintMap map;
  map.Register(ClusterEvent("Node", ActionType::kAdd), "Fit", nullptr);
  map.Register(ClusterEvent("Node", ActionType::kAdd), "Taint", nullptr);
  map.Register(ClusterEvent("Pod", ActionType::kDelete), "Fit",
               [](const api::Pod&, const framework::EventObject&,
                  const framework::EventObject&) -> util::StatusOr<framework::QueueingHint> {
                 return framework::QueueingHint::kQueue;
               });
  map.Register(ClusterEvent("PersistentVolume", ActionType::kAdd), "Volume", nullptr);
  std::vector<RequeueEvent> events = RequeueEventsFor(map, framework::PluginSet{"Fit"});
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event, "Node Add");
  EXPECT_EQ(events[0].plugins, std::vector<std::string>{"Fit"});
  EXPECT_FALSE(events[0].hinted);
  EXPECT_EQ(events[1].event, "Pod Delete");
  EXPECT_TRUE(events[1].hinted);
  EXPECT_EQ(RequeueEventsFor(map, framework::PluginSet{"Fit", "Taint"})[0].plugins.size(), 2u);
  EXPECT_TRUE(RequeueEventsFor(map, framework::PluginSet{"Other"}).empty());
}

TEST(ExplainJsonTest, ExplainsAnUnschedulablePodWithItsAttemptAndRequeueEvents) {
  util::FakeClock record_clock;
  AttemptRecord record(10, 10, record_clock);
  SchedulerFixture f(testing::FakeConfig(), {}, {}, std::nullopt, &record);
  f.AddNode(Node("n1"));
  f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
  f.AddPod(Pod("big"));
  f.ScheduleOne();

  PodExplainState s = f.sched().ExplainPod("default", "big");
  nlohmann::json j = nlohmann::json::parse(ExplainPodJson(s, record.Get("default", "big"), true, f.clock()));
  EXPECT_EQ(j["pod"]["name"], "big");
  EXPECT_EQ(j["pod"]["schedulerName"], "ksched");
  EXPECT_EQ(j["location"], "unschedulable");
  EXPECT_EQ(j["attempts"], 1);
  EXPECT_EQ(j["unschedulablePlugins"], nlohmann::json::array({testing::kFakeFilter}));
  EXPECT_EQ(j["unschedulableSince"], api::FormatMicroTime(f.clock().WallNow()));
  EXPECT_EQ(j["unschedulableTimeoutSeconds"], 300);
  // FakeFilter's registrations, and Node/UpdateNodeTaint, which the queue
  // adds to a plugin registering Node/Add without it (kube issue 109437).
  ASSERT_EQ(j["requeueEvents"].size(), 3u) << j["requeueEvents"].dump();
  EXPECT_EQ(j["requeueEvents"][0]["event"], "Node Add");
  EXPECT_EQ(j["requeueEvents"][0]["plugins"], nlohmann::json::array({testing::kFakeFilter}));
  EXPECT_EQ(j["requeueEvents"][1]["event"], "Pod Delete");
  EXPECT_EQ(j["requeueEvents"][2]["event"], "Node UpdateNodeTaint");
  EXPECT_EQ(j["lastFailureMessage"], "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_EQ(j["lastAttempt"]["result"], "Unschedulable");
  EXPECT_EQ(j["lastAttempt"]["filterCounts"][0]["reason"], "Insufficient cpu");
  EXPECT_EQ(j["lastAttempt"]["filterCounts"][0]["nodes"], 1);
  EXPECT_EQ(j["lastAttempt"]["message"], "0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(ExplainJsonTest, LocatesQueuedBoundMissingAndForeignPods) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.AddPod(Pod("queued"));
  EXPECT_EQ(f.sched().ExplainPod("default", "queued").location, "activeQ");
  EXPECT_EQ(f.sched().ExplainPod("default", "nobody").location, "notFound");
  auto bound = framework::testing::MakePod("bound").SchedulerName(testing::kProfile).Node("n1").Obj();
  f.listers().pods.Set(bound);
  PodExplainState b = f.sched().ExplainPod("default", "bound");
  EXPECT_EQ(b.location, "bound");
  EXPECT_EQ(b.node, "n1");
  f.listers().pods.Set(framework::testing::MakePod("other").SchedulerName("default-scheduler").Obj());
  EXPECT_EQ(f.sched().ExplainPod("default", "other").location, "notOurs");

  nlohmann::json j = nlohmann::json::parse(
      ExplainPodJson(f.sched().ExplainPod("default", "bound"), std::nullopt, false, f.clock()));
  EXPECT_EQ(j["location"], "bound");
  EXPECT_TRUE(j["lastAttempt"].is_null());
  EXPECT_EQ(j["recordEnabled"], false);
  EXPECT_FALSE(j.contains("backoffUntil"));
}

TEST(ExplainJsonTest, AttemptJsonCarriesTheScoreTable) {
  Attempt a;
  a.result = "Scheduled";
  a.node = "n2";
  a.score_columns = std::make_shared<ScoreColumns>(ScoreColumns{{"Fit", "Spread"}, {1, 2}});
  const size_t row = a.AddTopNode("n2", 130);
  a.SetScore(row, 0, 900, 90);  // Fit: raw, normalized
  a.SetScore(row, 1, 3, 20);    // Spread
  a.victims.push_back(VictimRef{"default", "low", "n2"});
  nlohmann::ordered_json j = AttemptJson(a);
  EXPECT_EQ(j["scorePlugins"][1]["name"], "Spread");
  EXPECT_EQ(j["scorePlugins"][1]["weight"], 2);
  EXPECT_EQ(j["topNodes"][0]["node"], "n2");
  EXPECT_EQ(j["topNodes"][0]["total"], 130);
  EXPECT_EQ(j["topNodes"][0]["scores"][1]["raw"], 3);
  EXPECT_EQ(j["topNodes"][0]["scores"][1]["normalized"], 20);
  EXPECT_EQ(j["topNodes"][0]["scores"][1]["weighted"], 40);
  EXPECT_EQ(j["victims"][0]["name"], "low");
}

TEST(ExplainJsonTest, QueueSummaryCountsQueuesPluginsAndListsTheOldest) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
  f.AddPod(framework::testing::MakePod("old").SchedulerName(testing::kProfile).Obj());
  f.ScheduleOne();
  f.AddPod(Pod("new"));

  std::vector<PendingPodDebug> pods = f.sched().PendingPodsDebug();
  auto older = std::make_shared<api::Pod>(*pods[1].pod);
  older->metadata.creation_timestamp = api::Time(std::chrono::seconds(1000));
  pods[1].pod = older;
  nlohmann::json j = nlohmann::json::parse(QueueSummaryJson(pods, AttemptRate{6, 42}, 1));
  EXPECT_EQ(j["counts"]["activeQ"], 1);
  EXPECT_EQ(j["counts"]["unschedulable"], 1);
  EXPECT_EQ(j["counts"]["backoffQ"], 0);
  EXPECT_EQ(j["rejectingPlugins"][testing::kFakeFilter], 1);
  ASSERT_EQ(j["oldestPending"].size(), 1u);
  EXPECT_EQ(j["oldestPending"][0]["name"], pods[1].pod->metadata.name);
  EXPECT_EQ(j["attempts"]["lastMinute"], 6);
  EXPECT_DOUBLE_EQ(j["attempts"]["perSecond"].get<double>(), 0.1);
  EXPECT_EQ(j["attempts"]["total"], 42);
  EXPECT_FALSE(nlohmann::json::parse(QueueSummaryJson(pods, std::nullopt, 5)).contains("attempts"));
}

TEST(ExplainJsonTest, ServeExplainRoutesPodAndSummaryAndRejectsMalformedNames) {
  util::FakeClock record_clock;
  AttemptRecord record(10, 10, record_clock);
  SchedulerFixture f(testing::FakeConfig(), {}, {}, std::nullopt, &record);
  f.AddNode(Node("n1"));
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  ExplainResponse r = ServeExplain(f.sched(), &record, std::string("default/p"));
  EXPECT_EQ(r.status, 200);
  nlohmann::json j = nlohmann::json::parse(r.body);
  // Bound, but the informer has not said so yet: still assumed in the cache.
  EXPECT_EQ(j["location"], "assumed");
  EXPECT_EQ(j["node"], "n1");
  EXPECT_EQ(j["lastAttempt"]["result"], "Scheduled");
  EXPECT_EQ(j["lastAttempt"]["node"], "n1");
  EXPECT_EQ(nlohmann::json::parse(ServeExplain(f.sched(), &record, std::string("p")).body)["pod"]["namespace"],
            "default");
  EXPECT_EQ(ServeExplain(f.sched(), &record, std::string("a/b/c")).status, 400);
  EXPECT_EQ(ServeExplain(f.sched(), &record, std::string("/x")).status, 400);
  ExplainResponse summary = ServeExplain(f.sched(), &record, std::nullopt);
  EXPECT_EQ(summary.status, 200);
  EXPECT_EQ(nlohmann::json::parse(summary.body)["attempts"]["total"], 1);
  EXPECT_FALSE(nlohmann::json::parse(ServeExplain(f.sched(), nullptr, std::nullopt).body).contains("attempts"));
}

}  // namespace
}  // namespace ksched::scheduler
