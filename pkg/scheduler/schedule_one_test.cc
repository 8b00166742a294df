#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "pkg/scheduler/apiwriter/pod_status_patch.h"
#include "pkg/scheduler/scheduler.h"
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
using Kind = apiwriter::testing::FakeApiWriterClient::Kind;

std::vector<std::string> Names(const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->metadata.name);
  return out;
}

// The PodScheduled condition of the last status patch written for `pod`.
nlohmann::json LastCondition(SchedulerFixture& f, const std::string& pod) {
  for (int i = 0; i < 100; ++i) {
    auto calls = f.writer_client().CallsOf(Kind::kPatchPodStatus);
    for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
      if (it->name == pod) return it->patch["status"]["conditions"][0];
    }
    f.writer_client().WaitForCalls(f.writer_client().Calls().size() + 1);
  }
  return nullptr;
}

TEST(ScheduleOneTest, BindsToTheBestScoredFeasibleNode) {
  SchedulerFixture f;
  for (const char* n : {"n1", "n2", "n3"}) f.AddNode(Node(n));
  f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
  f.behaviour().score = {{"n1", 100}, {"n2", 10}, {"n3", 50}};
  f.AddPod(Pod("p"));
  f.ScheduleOne();

  EXPECT_EQ(f.binding_client().Binds(), std::vector<std::string>{"p@n3"});
  auto pod = f.sched().Cache().GetPod(*Pod("p"));
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->spec.node_name, "n3");
  auto events = f.CreatedEvents(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].reason, "Scheduled");
  EXPECT_EQ(events[0].type, "Normal");
  EXPECT_EQ(events[0].note, "Successfully assigned default/p to n3");
  EXPECT_EQ(events[0].reporting_controller, "ksched");
  EXPECT_TRUE(f.sched().Queue().PendingPods().pods.empty());
}

TEST(ScheduleOneTest, FitErrorRequeuesWithRejectorsAndReportsKubeMessage) {
  SchedulerFixture f;
  for (const char* n : {"n1", "n2", "n3", "n4", "n5"}) f.AddNode(Node(n));
  for (const char* n : {"n1", "n2", "n3"}) f.behaviour().filter[n] = Status(Code::kUnschedulable, "Insufficient cpu");
  for (const char* n : {"n4", "n5"}) {
    f.behaviour().filter[n] = Status(Code::kUnschedulableAndUnresolvable, "node(s) had untolerated taint(s)");
  }
  f.AddPod(Pod("p"));
  f.ScheduleOne();

  const std::string want = "0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 Insufficient cpu.";
  EXPECT_TRUE(f.binding_client().Binds().empty());
  EXPECT_EQ(Names(f.sched().Queue().UnschedulablePods()), std::vector<std::string>{"p"});
  auto info = f.sched().Queue().GetPod("p", "default");
  ASSERT_TRUE(info.has_value());
  EXPECT_TRUE(info->unschedulable_plugins.Has(testing::kFakeFilter));
  EXPECT_EQ(info->attempts, 1);

  auto events = f.CreatedEvents(1);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].reason, "FailedScheduling");
  EXPECT_EQ(events[0].type, "Warning");
  EXPECT_EQ(events[0].action, "Scheduling");
  EXPECT_EQ(events[0].note, want);
  nlohmann::json cond = LastCondition(f, "p");
  EXPECT_EQ(cond["type"], "PodScheduled");
  EXPECT_EQ(cond["status"], "False");
  EXPECT_EQ(cond["reason"], "Unschedulable");
  EXPECT_EQ(cond["message"], want);
  auto debug = f.sched().PendingPodsDebug();
  ASSERT_EQ(debug.size(), 1u);
  EXPECT_EQ(debug[0].queue, "unschedulable");
  EXPECT_EQ(debug[0].last_failure_message, want);
}

// The PodScheduled=False patch of a failed attempt, still in flight when the
// next attempt binds the pod, lands before the binding and not after it,
// where it would leave a bound pod saying Unschedulable (issue 34).
TEST(ScheduleOneTest, BindingWaitsForTheStatusPatchInFlight) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
  f.writer_client().Hold();
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  ASSERT_TRUE(f.writer_client().WaitForHeldCalls(2));  // its Event and its patch
  f.behaviour().filter.erase("n1");
  f.sched().Queue().Activate({Pod("p")});
  f.sched().ScheduleOne();
  // The binding cycle waits for the patch (without the wait it binds, and
  // the loop ends on the bind instead).
  while (f.writer().NumSettling() == 0 && f.binding_client().Binds().empty()) std::this_thread::yield();
  EXPECT_EQ(f.writer().NumSettling(), 1u);
  EXPECT_TRUE(f.binding_client().Binds().empty());
  f.writer_client().Release();
  f.sched().WaitForBindingCycles();
  EXPECT_EQ(f.binding_client().Binds(), std::vector<std::string>{"p@n1"});
  EXPECT_EQ(f.writer_client().CallsOf(Kind::kPatchPodStatus).size(), 1u);
}

// scheduler_pod_scheduled_after_flush_total counts a pod bound in the
// attempt the unschedulable pods' leftover flush gave it, not one an event
// moved.
TEST(ScheduleOneTest, CountsPodsBoundAfterTheLeftoverFlush) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
  f.AddPod(Pod("flushed"));
  f.ScheduleOne();
  f.behaviour().filter.erase("n1");
  f.clock().Step(std::chrono::minutes(6));
  f.sched().Queue().FlushUnschedulablePodsLeftover();
  f.ScheduleOne();
  ASSERT_EQ(f.binding_client().Binds(), std::vector<std::string>{"flushed@n1"});
  EXPECT_EQ(f.metrics().PodScheduledAfterFlush()->Value(), 1);

  f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
  f.AddPod(Pod("moved"));
  f.ScheduleOne();
  f.behaviour().filter.erase("n1");
  f.clock().Step(std::chrono::minutes(1));
  f.sched().Queue().Activate({Pod("moved")});
  f.ScheduleOne();
  ASSERT_EQ(f.binding_client().Binds().size(), 2u);
  EXPECT_EQ(f.metrics().PodScheduledAfterFlush()->Value(), 1);
}

TEST(ScheduleOneTest, NoNodesGoesToBackoffWithoutRejectors) {
  SchedulerFixture f;
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  EXPECT_EQ(Names(f.sched().Queue().PodsInBackoffQ()), std::vector<std::string>{"p"});
  auto events = f.CreatedEvents(1);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].note, "no nodes available to schedule pods");
  EXPECT_EQ(LastCondition(f, "p")["reason"], "Unschedulable");
}

TEST(ScheduleOneTest, SkipsPodsBeingDeleted) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  auto pod = MakePod("p").SchedulerName(testing::kProfile);
  pod.pod().metadata.deletion_timestamp = api::Time{};
  f.AddPod(pod.Obj());
  f.ScheduleOne();
  EXPECT_TRUE(f.binding_client().Binds().empty());
  EXPECT_TRUE(f.sched().Queue().PendingPods().pods.empty());
  auto events = f.CreatedEvents(1);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].reason, "FailedScheduling");
  EXPECT_EQ(events[0].note, "skip schedule deleting pod: default/p");
}

TEST(ScheduleOneTest, PreFilterRejectionMessageReplacesTheHistogram) {
  SchedulerFixture f;
  for (const char* n : {"n1", "n2"}) f.AddNode(Node(n));
  f.behaviour().pre_filter = Status(Code::kUnschedulableAndUnresolvable, "pod has unbound immediate claims");
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  auto events = f.CreatedEvents(1);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].note, "0/2 nodes are available: pod has unbound immediate claims.");
  auto info = f.sched().Queue().GetPod("p", "default");
  ASSERT_TRUE(info.has_value());
  EXPECT_TRUE(info->unschedulable_plugins.Has(testing::kFakeFilter));
}

TEST(ScheduleOneTest, PreFilterResultLimitsTheNodes) {
  SchedulerFixture f;
  for (const char* n : {"n1", "n2", "n3"}) f.AddNode(Node(n));
  f.behaviour().pre_filter_nodes = std::set<std::string, std::less<>>{"n2", "ghost"};
  f.behaviour().filter["n2"] = Status(Code::kUnschedulable, "Insufficient memory");
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  auto events = f.CreatedEvents(1);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].note,
            "0/3 nodes are available: 1 Insufficient memory, 2 node(s) didn't satisfy plugin(s) [FakeFilter].");
  // Only n2 was filtered.
  EXPECT_EQ(f.behaviour().filtered, std::vector<std::string>{"p@n2"});
}

TEST(ScheduleOneTest, NominatedNodeIsTriedFirstAndAlone) {
  SchedulerFixture f;
  for (const char* n : {"n1", "n2", "n3"}) f.AddNode(Node(n));
  f.behaviour().score = {{"n1", 100}};
  f.AddPod(MakePod("p").SchedulerName(testing::kProfile).NominatedNode("n2").Obj());
  f.ScheduleOne();
  EXPECT_EQ(f.binding_client().Binds(), std::vector<std::string>{"p@n2"});
  EXPECT_EQ(f.behaviour().filtered, std::vector<std::string>{"p@n2"});
}

TEST(ScheduleOneTest, TiesAreBrokenAcrossNodes) {
  SchedulerFixture f;
  for (const char* n : {"n1", "n2", "n3"}) f.AddNode(Node(n));
  std::set<std::string> hosts;
  for (int i = 0; i < 40; ++i) {
    auto pod = Pod("p" + std::to_string(i));
    f.AddPod(pod);
    f.ScheduleOne();
  }
  for (const std::string& b : f.binding_client().Binds()) hosts.insert(b.substr(b.find('@') + 1));
  EXPECT_EQ(hosts, (std::set<std::string>{"n1", "n2", "n3"}));
}

// Nodes n0..n299 scored at 50 %: 150 feasible nodes are enough. With
// `parallelism` 1, Filter visits the nodes in order on one thread.
std::unique_ptr<SchedulerFixture> ThreeHundredNodesAtHalf(std::optional<int32_t> parallelism = std::nullopt) {
  auto config = testing::FakeConfig();
  config.percentage_of_nodes_to_score = 50;
  config.parallelism = parallelism;
  auto f = std::make_unique<SchedulerFixture>(config);
  for (int i = 0; i < 300; ++i) f->AddNode(Node("n" + std::to_string(i)));
  return f;
}

TEST(ScheduleOneTest, FilterStopsAtNumFeasibleNodesAndRotatesTheStart) {
  auto fixture = ThreeHundredNodesAtHalf();
  SchedulerFixture& f = *fixture;
  f.AddPod(Pod("p"));
  f.sched().ScheduleOne();
  f.sched().WaitForBindingCycles();
  // 300 nodes at 50%: 150 feasible nodes are enough; the next cycle starts
  // after the nodes this one processed.
  EXPECT_EQ(f.sched().NextStartNodeIndex(), 150u);
  EXPECT_GE(f.behaviour().filtered.size(), 150u);
  EXPECT_LT(f.behaviour().filtered.size(), 300u);
}

// As kube's per-node check on one thread: once enough nodes are feasible,
// rejected nodes still count as processed until the next feasible node
// stops the search, whatever run of nodes Filter evaluated them in.
TEST(ScheduleOneTest, NodesRejectedAfterEnoughFeasibleOnesCountAsProcessed) {
  auto fixture = ThreeHundredNodesAtHalf(/*parallelism=*/1);
  SchedulerFixture& f = *fixture;
  for (const char* rejected : {"n150", "n151", "n152"}) {
    f.behaviour().filter[rejected] = Status(Code::kUnschedulable, "no");
  }
  f.AddPod(Pod("p"));
  f.sched().ScheduleOne();
  f.sched().WaitForBindingCycles();
  // n0..n149 are the 150 feasible nodes; n150..n152 rejected; n153 stops.
  EXPECT_EQ(f.sched().NextStartNodeIndex(), 153u);
  ASSERT_EQ(f.binding_client().Binds().size(), 1u);
}

// As kube's per-node check on one thread: a Filter error ends the search at
// its node; the nodes before it were processed, those after it were not.
TEST(ScheduleOneTest, AFilterErrorEndsTheSearchAtItsNode) {
  auto fixture = ThreeHundredNodesAtHalf(/*parallelism=*/1);
  SchedulerFixture& f = *fixture;
  f.behaviour().filter["n3"] = Status(Code::kUnschedulable, "no");
  f.behaviour().filter["n5"] = Status::Error("boom");
  f.AddPod(Pod("p"));
  f.sched().ScheduleOne();
  f.sched().WaitForBindingCycles();
  EXPECT_TRUE(f.binding_client().Binds().empty());
  EXPECT_EQ(LastCondition(f, "p")["reason"], "SchedulerError");
  // n0, n1, n2 and n4 feasible, n3 rejected: five processed.
  EXPECT_EQ(f.sched().NextStartNodeIndex(), 5u);
}

TEST(ScheduleOneTest, WithoutScorePluginsOneFeasibleNodeIsEnough) {
  SchedulerFixture f(testing::FakeConfig(/*with_score=*/false));
  for (int i = 0; i < 10; ++i) f.AddNode(Node("n" + std::to_string(i)));
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  ASSERT_EQ(f.binding_client().Binds().size(), 1u);
  // One feasible node processed: the next cycle starts one further.
  EXPECT_EQ(f.sched().NextStartNodeIndex(), 1u);
}

TEST(ScheduleOneTest, ReserveRejectionUnreservesForgetsAndRequeues) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.behaviour().reserve = Status(Code::kUnschedulable, "volume conflict");
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  EXPECT_TRUE(f.binding_client().Binds().empty());
  EXPECT_EQ(f.behaviour().unreserved, std::vector<std::string>{"p@n1"});
  EXPECT_EQ(f.sched().Cache().GetPod(*Pod("p")), nullptr);
  auto info = f.sched().Queue().GetPod("p", "default");
  ASSERT_TRUE(info.has_value());
  EXPECT_TRUE(info->unschedulable_plugins.Has(testing::kFakeReserve));
  auto events = f.CreatedEvents(1);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].note, "0/1 nodes are available: 1 volume conflict.");
}

TEST(ScheduleOneTest, ReserveErrorIsASchedulerError) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.behaviour().reserve = Status::Error("disk on fire");
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  EXPECT_EQ(Names(f.sched().Queue().PodsInBackoffQ()), std::vector<std::string>{"p"});
  EXPECT_EQ(LastCondition(f, "p")["reason"], "SchedulerError");
}

TEST(ScheduleOneTest, PermitWaitThenAllowBinds) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.behaviour().permit = Status(Code::kWait);
  f.AddPod(Pod("p"));
  f.sched().ScheduleOne();
  // The binding cycle waits at Permit; allow it from this thread.
  std::shared_ptr<framework::WaitingPod> wp;
  for (int i = 0; i < 1000 && wp == nullptr; ++i) {
    wp = f.sched().Profile(testing::kProfile)->GetWaitingPod(Pod("p")->metadata.uid);
    if (wp == nullptr) std::this_thread::yield();
  }
  ASSERT_NE(wp, nullptr);
  wp->Allow(testing::kFakeReserve);
  f.sched().WaitForBindingCycles();
  EXPECT_EQ(f.binding_client().Binds(), std::vector<std::string>{"p@n1"});
}

TEST(ScheduleOneTest, PermitTimeoutRejectsInTheBindingCycle) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.behaviour().permit = Status(Code::kWait);
  f.behaviour().permit_timeout = std::chrono::seconds(5);
  f.AddPod(Pod("p"));
  f.sched().ScheduleOne();
  f.clock().Step(std::chrono::seconds(6));
  f.sched().WaitForBindingCycles();
  EXPECT_TRUE(f.binding_client().Binds().empty());
  EXPECT_EQ(f.behaviour().unreserved, std::vector<std::string>{"p@n1"});
  EXPECT_EQ(f.sched().Cache().GetPod(*Pod("p")), nullptr);
  auto info = f.sched().Queue().GetPod("p", "default");
  ASSERT_TRUE(info.has_value());
  EXPECT_TRUE(info->unschedulable_plugins.Has(testing::kFakeReserve));
  EXPECT_EQ(LastCondition(f, "p")["reason"], "Unschedulable");
}

// SettleBindingCycles returns once every binding cycle has ended or waits
// undecided at Permit, and names the waiting pods: what a driver of a fake
// clock (ksched simulate) needs to know before it moves on.
TEST(ScheduleOneTest, SettleBindingCyclesReturnsThePodsWaitingAtPermit) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.behaviour().permit = Status(Code::kWait);
  f.behaviour().permit_timeout = std::chrono::seconds(5);
  f.AddPod(Pod("a"));
  f.AddPod(Pod("b"));
  f.sched().ScheduleOne();
  f.sched().ScheduleOne();
  auto names = [](const std::vector<std::shared_ptr<framework::WaitingPod>>& waiting) {
    std::vector<std::string> out;
    for (const auto& wp : waiting) out.push_back(wp->pod()->metadata.name);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(names(f.sched().SettleBindingCycles()), (std::vector<std::string>{"a", "b"}));
  // A cycle that does not wait ends before Settle returns.
  f.behaviour().permit = Status();
  f.AddPod(Pod("c"));
  f.sched().ScheduleOne();
  EXPECT_EQ(names(f.sched().SettleBindingCycles()), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f.binding_client().Binds(), std::vector<std::string>{"c@n1"});
  // Allowed: a's cycle binds before Settle returns; b still waits.
  f.sched().Profile(testing::kProfile)->GetWaitingPod(Pod("a")->metadata.uid)->Allow(testing::kFakeReserve);
  EXPECT_EQ(names(f.sched().SettleBindingCycles()), std::vector<std::string>{"b"});
  EXPECT_EQ(f.binding_client().Binds(), (std::vector<std::string>{"c@n1", "a@n1"}));
  // Past the timeout: b's cycle fails and unreserves before Settle returns.
  f.clock().Step(std::chrono::seconds(5));
  EXPECT_TRUE(f.sched().SettleBindingCycles().empty());
  EXPECT_EQ(f.behaviour().unreserved, std::vector<std::string>{"b@n1"});
  EXPECT_EQ(f.binding_client().Binds().size(), 2u);
}

// kube-scheduler gives a 409 on the binding no path of its own: it is a
// binding error (handleBindingCycleError, FailureHandler). While the informer
// still shows the pod unbound, the pod goes to backoff as a SchedulerError,
// with the FailedScheduling Event and the PodScheduled=False condition.
TEST(ScheduleOneTest, BindingConflictIsABindingErrorAndBacksOff) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.binding_client().FailBinding("p", util::Status(util::StatusCode::kConflict,
                                                   "Operation cannot be fulfilled on pods/binding \"p\": pod p is "
                                                   "already assigned to node \"n2\""));
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  EXPECT_EQ(f.binding_client().Binds(), std::vector<std::string>{"p@n1"});
  EXPECT_EQ(f.sched().Cache().GetPod(*Pod("p")), nullptr);
  EXPECT_EQ(f.behaviour().unreserved, std::vector<std::string>{"p@n1"});
  EXPECT_EQ(Names(f.sched().Queue().PodsInBackoffQ()), std::vector<std::string>{"p"});
  nlohmann::json cond = LastCondition(f, "p");
  EXPECT_EQ(cond["reason"], "SchedulerError");
  EXPECT_NE(cond["message"].get<std::string>().find("already assigned to node"), std::string::npos) << cond;
  std::vector<api::Event> events = f.CreatedEvents(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].reason, "FailedScheduling");
  EXPECT_EQ(events[0].note, cond["message"].get<std::string>());
}

// When the informer already shows the pod bound (the other binder's update
// arrived first), FailureHandler does not requeue it; the Event and the
// condition are still written, as kube-scheduler writes them.
TEST(ScheduleOneTest, BindingConflictOfAPodTheInformerShowsBoundIsNotRequeued) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.binding_client().FailBinding("p", util::Status(util::StatusCode::kConflict, "pod p is already assigned"));
  f.AddPod(Pod("p"));
  f.listers().pods.Set(MakePod("p").SchedulerName(testing::kProfile).Req({{"cpu", "100m"}}).Node("n2").Obj());
  f.ScheduleOne();
  EXPECT_EQ(f.sched().Cache().GetPod(*Pod("p")), nullptr);
  EXPECT_EQ(f.behaviour().unreserved, std::vector<std::string>{"p@n1"});
  EXPECT_TRUE(f.sched().Queue().PendingPods().pods.empty());
  f.clock().Step(std::chrono::seconds(30));
  f.sched().Queue().FlushBackoffQCompleted();
  EXPECT_TRUE(f.sched().Queue().PendingPods().pods.empty());
  EXPECT_EQ(LastCondition(f, "p")["reason"], "SchedulerError");
}

TEST(ScheduleOneTest, BindingErrorGoesToBackoffAsSchedulerError) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.binding_client().FailBinding("p", util::Status(util::StatusCode::kUnavailable, "connection refused"));
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  EXPECT_EQ(Names(f.sched().Queue().PodsInBackoffQ()), std::vector<std::string>{"p"});
  EXPECT_EQ(f.sched().Cache().GetPod(*Pod("p")), nullptr);
  EXPECT_EQ(LastCondition(f, "p")["reason"], "SchedulerError");
}

// A binding cycle that throws (a plugin's bug) fails like any binding
// error: Unreserve, forgotten by the cache, back to the queue. The pod is
// never left assumed on its node forever.
TEST(ScheduleOneTest, ThrowingBindingCycleUnreservesForgetsAndRequeues) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.binding_client().ThrowOnBind("p");
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  EXPECT_EQ(f.sched().Cache().GetPod(*Pod("p")), nullptr);
  EXPECT_EQ(f.sched().Cache().AssumedPodCount(), 0u);
  EXPECT_EQ(f.behaviour().unreserved, std::vector<std::string>{"p@n1"});
  EXPECT_EQ(Names(f.sched().Queue().PodsInBackoffQ()), std::vector<std::string>{"p"});
  EXPECT_EQ(LastCondition(f, "p")["reason"], "SchedulerError");
}

TEST(ScheduleOneTest, FailedPodThatLeftTheInformerIsNotRequeued) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
  // Queued but already gone from the informer cache.
  f.sched().Queue().Add(Pod("p"));
  f.ScheduleOne();
  EXPECT_TRUE(f.sched().Queue().PendingPods().pods.empty());
}

// kube 1.36: a pod deleted and created again under its name while its
// attempt failed is left to its new self; before, the new pod was requeued
// with the old attempt's failure.
TEST(ScheduleOneTest, RecreatedPodIsNotRequeuedFromKube136) {
  for (int minor : {35, 36}) {
    SCOPED_TRACE(minor);
    SchedulerFixture f(testing::FakeConfig(), framework::FeatureGates::ForMinor(minor));
    f.AddNode(Node("n1"));
    f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
    f.AddPod(Pod("p"));
    api::Pod again = *Pod("p");
    again.metadata.uid = "p-recreated";
    f.listers().pods.Set(std::make_shared<const api::Pod>(again));
    f.ScheduleOne();
    f.writer().Stop();
    const size_t patches = f.writer_client().CallsOf(Kind::kPatchPodStatus).size();
    if (minor >= 36) {
      EXPECT_TRUE(f.sched().Queue().PendingPods().pods.empty());
      EXPECT_EQ(patches, 0u);
    } else {
      EXPECT_EQ(f.sched().Queue().PendingPods().pods.size(), 1u);
      EXPECT_EQ(patches, 1u);
    }
  }
}

// NominatedNodeNameForExpectation (on from 1.35): before a PreBind with
// work, the pod's nominatedNodeName names its node; a PreBind plugin whose
// PreBindPreFlight skips is not run.
TEST(ScheduleOneTest, PreBindWithWorkNominatesTheNodeFirstFromKube135) {
  for (int minor : {34, 35}) {
    for (bool work : {false, true}) {
      SCOPED_TRACE(fmt::format("minor {} work {}", minor, work));
      config::KubeSchedulerConfiguration config = testing::FakeConfig();
      config.profiles[0].plugins.pre_bind.enabled = {testing::P(testing::kFakeReserve)};
      SchedulerFixture f(config, framework::FeatureGates::ForMinor(minor));
      f.AddNode(Node("n1"));
      if (work) f.behaviour().pre_bind_pre_flight = Status();
      // PreBind looks at what was written by then.
      size_t patches_before_pre_bind = 0;
      f.behaviour().on_pre_bind = [&](const api::Pod&) {
        if (minor >= 35 && work) f.writer_client().WaitForCalls(1);
        patches_before_pre_bind = f.writer_client().CallsOf(Kind::kPatchPodStatus).size();
      };
      f.AddPod(Pod("p"));
      f.sched().ScheduleOne();
      f.sched().WaitForBindingCycles();
      EXPECT_EQ(f.binding_client().Binds(), std::vector<std::string>{"p@n1"});
      const bool pre_bind_runs = minor < 35 || work;
      EXPECT_EQ(f.behaviour().pre_bound, pre_bind_runs ? std::vector<std::string>{"p@n1"}
                                                       : std::vector<std::string>{});
      auto patches = f.writer_client().CallsOf(Kind::kPatchPodStatus);
      if (minor >= 35 && work) {
        EXPECT_EQ(patches_before_pre_bind, 1u);
        ASSERT_EQ(patches.size(), 1u);
        EXPECT_EQ(patches[0].patch["status"]["nominatedNodeName"], "n1");
      } else {
        EXPECT_EQ(patches_before_pre_bind, 0u);
        EXPECT_TRUE(patches.empty());
      }
    }
  }
}

// What only the scheduling cycle reads is freed before the binding cycle;
// the rest stays readable there.
TEST(ScheduleOneTest, TheBindingCycleHoldsOnlyWhatItMayRead) {
  struct Data final : framework::StateData {
    explicit Data(bool read_after) : read_after(read_after) {}
    std::shared_ptr<framework::StateData> Clone() const override { return std::make_shared<Data>(read_after); }
    bool ReadAfterSchedulingCycle() const override { return read_after; }
    const bool read_after;
  };
  config::KubeSchedulerConfiguration config = testing::FakeConfig();
  config.profiles[0].plugins.pre_bind.enabled = {testing::P(testing::kFakeReserve)};
  SchedulerFixture f(config);
  f.AddNode(Node("n1"));
  f.behaviour().pre_bind_pre_flight = Status();
  std::weak_ptr<Data> filter_only;
  std::weak_ptr<Data> for_binding;
  f.behaviour().on_pre_filter = [&](framework::CycleState& state) {
    auto a = std::make_shared<Data>(false);
    auto b = std::make_shared<Data>(true);
    filter_only = a;
    for_binding = b;
    state.Write("schedule-one-test/filter-only", std::move(a));
    state.Write("schedule-one-test/for-binding", std::move(b));
  };
  bool filter_only_freed = false;
  bool for_binding_kept = false;
  f.behaviour().on_pre_bind = [&](const api::Pod&) {
    filter_only_freed = filter_only.expired();
    for_binding_kept = !for_binding.expired();
  };
  f.AddPod(Pod("p"));
  f.sched().ScheduleOne();
  f.sched().WaitForBindingCycles();
  EXPECT_EQ(f.behaviour().pre_bound, std::vector<std::string>{"p@n1"});
  EXPECT_TRUE(filter_only_freed);
  EXPECT_TRUE(for_binding_kept);
}

// Each failure replaces the last attempt's rejectors, whether Pop cleared
// them (1.35) or kept them (1.36): an error leaves none.
TEST(ScheduleOneTest, AFailureReplacesTheLastAttemptsRejectors) {
  for (int minor : {35, 36}) {
    SCOPED_TRACE(minor);
    SchedulerFixture f(testing::FakeConfig(), framework::FeatureGates::ForMinor(minor));
    f.AddNode(Node("n1"));
    f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
    auto p = Pod("p");
    f.AddPod(p);
    f.ScheduleOne();
    auto info = f.sched().Queue().GetPod("p", p->metadata.namespace_);
    ASSERT_TRUE(info.has_value());
    EXPECT_TRUE(info->unschedulable_plugins.Has(testing::kFakeFilter));

    f.behaviour().filter.clear();
    f.behaviour().reserve = Status::Error("boom");
    f.sched().Queue().Activate({p});
    f.ScheduleOne();
    info = f.sched().Queue().GetPod("p", p->metadata.namespace_);
    ASSERT_TRUE(info.has_value());
    EXPECT_FALSE(info->HasRejectors());
  }
}

// From 1.36 a pod in PreBind can be cancelled (preemption does it): it is
// not bound, and goes back to the queue with the cause as its error.
TEST(ScheduleOneTest, APodCancelledInPreBindIsNotBoundFromKube136) {
  for (int minor : {35, 36}) {
    SCOPED_TRACE(minor);
    config::KubeSchedulerConfiguration config = testing::FakeConfig();
    config.profiles[0].plugins.pre_bind.enabled = {testing::P(testing::kFakeReserve)};
    SchedulerFixture f(config, framework::FeatureGates::ForMinor(minor));
    f.AddNode(Node("n1"));
    f.behaviour().pre_bind_pre_flight = Status();
    bool tracked = false;
    f.behaviour().on_pre_bind = [&](const api::Pod& pod) {
      std::shared_ptr<framework::PodInPreBind> p = f.sched().Profile(testing::kProfile)->GetPodInPreBind(pod.metadata.uid);
      tracked = p != nullptr;
      if (tracked) {
        EXPECT_TRUE(p->CancelPod("preempted by DefaultPreemption"));
      }
    };
    f.AddPod(Pod("p"));
    f.ScheduleOne();
    EXPECT_EQ(tracked, minor >= 36);
    EXPECT_EQ(f.sched().Profile(testing::kProfile)->GetPodInPreBind(Pod("p")->metadata.uid), nullptr);
    f.writer().Stop();
    if (minor < 36) {
      EXPECT_EQ(f.binding_client().Binds(), std::vector<std::string>{"p@n1"});
      continue;
    }
    EXPECT_TRUE(f.binding_client().Binds().empty());
    EXPECT_EQ(f.behaviour().unreserved, std::vector<std::string>{"p@n1"});
    EXPECT_EQ(f.sched().Queue().PodsInBackoffQ().size(), 1u);
    auto patches = f.writer_client().CallsOf(Kind::kPatchPodStatus);
    ASSERT_FALSE(patches.empty());
    EXPECT_EQ(patches.back().patch["status"]["conditions"][0]["reason"], "SchedulerError");
    EXPECT_EQ(patches.back().patch["status"]["conditions"][0]["message"], "preempted by DefaultPreemption");
  }
}

// A pod that will wait at Permit is nominated too, though no PreBind has
// work.
TEST(ScheduleOneTest, PermitWaitNominatesTheNodeFromKube135) {
  SchedulerFixture f(testing::FakeConfig(), framework::FeatureGates::ForMinor(35));
  f.AddNode(Node("n1"));
  f.behaviour().permit = Status(Code::kWait);
  f.behaviour().permit_timeout = std::chrono::seconds(5);
  f.AddPod(Pod("p"));
  f.sched().ScheduleOne();
  ASSERT_TRUE(f.writer_client().WaitForCalls(1));
  auto patches = f.writer_client().CallsOf(Kind::kPatchPodStatus);
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].patch["status"]["nominatedNodeName"], "n1");
  // Rejected at the timeout: the nomination is left as it is, as kube
  // leaves it (the failure's patch compares with the pod it assumed).
  f.clock().Step(std::chrono::seconds(6));
  f.sched().WaitForBindingCycles();
  f.writer().Stop();
  EXPECT_TRUE(f.binding_client().Binds().empty());
  patches = f.writer_client().CallsOf(Kind::kPatchPodStatus);
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches[1].patch["status"]["conditions"][0]["reason"], "Unschedulable");
  EXPECT_FALSE(patches[1].patch["status"].contains("nominatedNodeName"));
}

TEST(ScheduleOneTest, AssumedPodSeenAgainIsSkipped) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  auto assumed = MakePod("p").SchedulerName(testing::kProfile).Node("n1").Obj();
  ASSERT_TRUE(f.sched().Cache().AssumePod(assumed).ok());
  f.AddPod(Pod("p"));
  f.ScheduleOne();
  EXPECT_TRUE(f.binding_client().Binds().empty());
  EXPECT_TRUE(f.sched().Queue().PendingPods().pods.empty());
}

TEST(ScheduleOneTest, ScheduledPodsTakeTheirResourcesInTheNextCycle) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.AddPod(Pod("a"));
  f.ScheduleOne();
  auto ni = f.sched().Cache().GetNodeInfo("n1");
  ASSERT_TRUE(ni.ok());
  EXPECT_EQ(ni->requested().milli_cpu, 100);
  EXPECT_EQ(f.sched().Cache().AssumedPodCount(), 1u);
}

TEST(SchedulerNewTest, UnavailableDefaultPluginsAreDroppedButExplicitOnesAreRequired) {
  testing::Behaviour b;
  framework::Registry registry = testing::FakeRegistry(b);
  config::KubeSchedulerConfiguration c = testing::FakeConfig();
  // As the defaults would add it (no origin): dropped with a warning.
  c.profiles[0].plugins.post_filter.enabled.push_back(config::Plugin{"DefaultPreemption", std::nullopt, ""});
  SchedulerOptions o;
  auto s = Scheduler::New(c, registry, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE((*s)->Profile(testing::kProfile)->HasPostFilterPlugins());

  // Written by the user: the profile cannot run without it.
  c.profiles[0].plugins.post_filter.enabled.back().origin = "profiles[0].plugins.postFilter.enabled[0]";
  auto bad = Scheduler::New(c, registry, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("initializing profile \"ksched\""), std::string::npos);
  EXPECT_NE(bad.status().message().find("DefaultPreemption"), std::string::npos);
}

}  // namespace
}  // namespace ksched::scheduler
