// Preemption through the whole scheduler (queue, cycle, API writer) with the
// in-tree NodeResourcesFit and DefaultPreemption, with SchedulerAsyncPreemption
// on (kube 1.34's default) and off. The informer is played by the test: it
// calls the event handlers as the API server's watch would.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "pkg/scheduler/eventhandlers.h"
#include "pkg/scheduler/plugins/defaultpreemption/default_preemption.h"
#include "pkg/scheduler/plugins/registry.h"
#include "pkg/scheduler/scheduler_test_util.h"

namespace ksched::scheduler {
namespace {

using framework::testing::MakeNode;
using framework::testing::MakePod;
using testing::SchedulerFixture;
using Kind = apiwriter::testing::FakeApiWriterClient::Kind;

config::KubeSchedulerConfiguration PreemptionConfig() {
  config::KubeSchedulerConfiguration c;
  c.parallelism = 2;
  c.percentage_of_nodes_to_score = 0;
  config::KubeSchedulerProfile p;
  p.scheduler_name = testing::kProfile;
  for (const char* name : {"PrioritySort", "NodeResourcesFit", "DefaultPreemption", "DefaultBinder"}) {
    p.plugins.multi_point.enabled.push_back(testing::P(name));
  }
  c.profiles.push_back(std::move(p));
  return c;
}

framework::Registry InTree() {
  auto r = plugins::InTreeRegistry();
  EXPECT_TRUE(r.ok());
  return std::move(r).value();
}

framework::FeatureGates Gates(bool async) {
  framework::FeatureGates g;
  g.scheduler_async_preemption = async;
  return g;
}

std::shared_ptr<const api::Node> Node(const std::string& name) {
  return MakeNode(name).Capacity({{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj();
}

std::shared_ptr<const api::Pod> Running(const std::string& name, const std::string& node, const std::string& cpu,
                                        int32_t prio) {
  api::Pod p = *MakePod(name).Node(node).Priority(prio).Req({{"cpu", cpu}}).Obj();
  p.status.start_time = api::Time(std::chrono::seconds(1'700'000'000));
  return std::make_shared<const api::Pod>(p);
}

// What the API server reports once a victim's DELETE was accepted: a
// deletion timestamp and the DisruptionTarget condition.
std::shared_ptr<const api::Pod> Terminating(const std::shared_ptr<const api::Pod>& p) {
  api::Pod c = *p;
  c.metadata.deletion_timestamp = api::Time(std::chrono::seconds(1'700'000'100));
  c.status.conditions.push_back(
      api::PodCondition{"DisruptionTarget", "True", "PreemptionByScheduler", "", std::nullopt, std::nullopt, {}});
  return std::make_shared<const api::Pod>(c);
}

// kube's scenario from the real-control-plane comparison: n1 runs two
// low-priority pods of 1 cpu, n2 one pod of higher priority than the
// preemptor; the preemptor needs 2 cpus.
class PreemptionScenario {
 public:
  explicit PreemptionScenario(bool async)
      : f_(PreemptionConfig(), Gates(async), {}, InTree()),
        v1_(Running("v1", "n1", "1", 0)),
        v2_(Running("v2", "n1", "1", 0)),
        high_(Running("high", "n2", "2", 1000)),
        preemptor_(MakePod("preemptor").SchedulerName(testing::kProfile).Priority(100).Req({{"cpu", "2"}}).Obj()) {
    h_.OnNodeAdd(Node("n1"));
    h_.OnNodeAdd(Node("n2"));
    for (const auto& p : {v1_, v2_, high_}) {
      f_.listers().pods.Set(p);
      h_.OnAssignedPodAdd(p);
    }
    f_.listers().pods.Set(preemptor_);
    h_.OnUnscheduledPodAdd(preemptor_);
  }

  // Waits (bounded, real time) until `pred` holds; the API writer's
  // workers run the asynchronous calls.
  template <class Pred>
  bool Eventually(Pred pred) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!pred()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }

  plugins::defaultpreemption::DefaultPreemption& plugin() {
    auto* p = dynamic_cast<plugins::defaultpreemption::DefaultPreemption*>(
        f_.sched().Profile(testing::kProfile)->GetPlugin("DefaultPreemption"));
    EXPECT_NE(p, nullptr);
    return *p;
  }
  bool Preempting() { return plugin().evaluator().IsPodRunningPreemption(*preemptor_); }

  // The informer's view once the preemptor's status patch (nominated node)
  // came back.
  void PreemptorNominated(const std::string& node) {
    api::Pod p = *preemptor_;
    p.status.nominated_node_name = node;
    p.metadata.resource_version = "2";
    auto updated = std::make_shared<const api::Pod>(p);
    f_.listers().pods.Set(updated);
    h_.OnUnscheduledPodUpdate(preemptor_, updated);
    preemptor_ = updated;
  }
  void VictimsTerminating() {
    for (auto* v : {&v1_, &v2_}) {
      auto t = Terminating(*v);
      f_.listers().pods.Set(t);
      h_.OnAssignedPodUpdate(*v, t);
      *v = t;
    }
  }
  void VictimsGone() {
    for (const auto& v : {v1_, v2_}) {
      f_.listers().pods.Delete(v->metadata.namespace_, v->metadata.name);
      h_.OnAssignedPodDelete(v);
    }
  }
  // Past any backoff, then what the queue's flusher would do.
  void Wait(std::chrono::seconds d) {
    f_.clock().Step(d);
    f_.sched().Queue().FlushBackoffQCompleted();
  }
  // Runs a cycle if a pod is ready; false if none was.
  bool TrySchedule() {
    if (f_.sched().Queue().PodsInActiveQ().empty() && f_.sched().Queue().PodsInBackoffQ().empty()) return false;
    f_.ScheduleOne();
    return true;
  }

  std::vector<api::Event> EventsWithReason(const std::string& reason) {
    f_.sched().Stop();
    f_.writer().Stop();  // every Event written
    std::vector<api::Event> out;
    for (const auto& c : f_.writer_client().CallsOf(Kind::kCreateEvent)) {
      if (c.event.reason == reason) out.push_back(c.event);
    }
    return out;
  }

  SchedulerFixture f_;
  EventHandlers h_{f_.sched()};
  std::shared_ptr<const api::Pod> v1_, v2_, high_, preemptor_;
};

TEST(AsyncPreemptionTest, OneFailedSchedulingThenBindOnceTheVictimsAreGone) {
  PreemptionScenario s(/*async=*/true);
  s.f_.writer_client().Hold();  // the victims' API calls wait
  s.f_.ScheduleOne();
  EXPECT_EQ(s.f_.sched().Queue().NominatedPodsForNode("n1").size(), 1u);
  EXPECT_TRUE(s.Preempting());
  // A deletion elsewhere that would make the pod worth retrying: held back.
  auto other = Running("other", "n2", "0", 0);
  s.h_.OnAssignedPodAdd(other);
  s.h_.OnAssignedPodDelete(other);
  s.Wait(std::chrono::seconds(11));
  EXPECT_FALSE(s.TrySchedule());
  auto info = s.f_.sched().Queue().GetPod("preemptor", "default");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->gating_plugin, "DefaultPreemption");

  s.f_.writer_client().Release();
  ASSERT_TRUE(s.Eventually([&] { return !s.Preempting(); }));
  EXPECT_EQ(s.f_.writer_client().CallsOf(Kind::kDeletePod).size(), 2u);
  s.PreemptorNominated("n1");
  s.VictimsTerminating();
  // Nothing brings the pod back while its victims terminate.
  s.Wait(std::chrono::seconds(11));
  EXPECT_FALSE(s.TrySchedule());

  s.VictimsGone();
  ASSERT_TRUE(s.TrySchedule());
  EXPECT_EQ(s.f_.binding_client().Binds(), std::vector<std::string>{"preemptor@n1"});
  std::vector<api::Event> failed = s.EventsWithReason("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].note, "0/2 nodes are available: 2 Insufficient cpu.");
}

TEST(AsyncPreemptionTest, FailedEvictionActivatesThePreemptor) {
  PreemptionScenario s(/*async=*/true);
  s.f_.writer_client().Hold();
  s.f_.writer_client().FailNext(Kind::kDeletePod, 1, util::InvalidArgument("refused"));
  s.f_.ScheduleOne();
  EXPECT_TRUE(s.f_.sched().Queue().PodsInActiveQ().empty());
  s.f_.writer_client().Release();
  ASSERT_TRUE(s.Eventually([&] { return !s.Preempting(); }));
  // Activated: straight to activeQ, no event needed.
  ASSERT_TRUE(s.Eventually([&] { return !s.f_.sched().Queue().PodsInActiveQ().empty(); }));
  EXPECT_EQ(s.f_.sched().Queue().PodsInActiveQ()[0]->metadata.name, "preemptor");
  EXPECT_EQ(s.f_.queue_metrics().IncomingPods(queue::QueueName::kActive, "ForceActivate"), 1);
}

TEST(AsyncPreemptionTest, SynchronousPreemptionWhenTheGateIsOff) {
  PreemptionScenario s(/*async=*/false);
  s.f_.ScheduleOne();
  EXPECT_FALSE(s.Preempting());
  ASSERT_TRUE(s.f_.writer_client().WaitForCalls(1));
  ASSERT_TRUE(s.Eventually([&] { return s.f_.writer_client().CallsOf(Kind::kDeletePod).size() == 2; }));
  s.PreemptorNominated("n1");
  s.VictimsTerminating();
  s.Wait(std::chrono::seconds(11));
  s.TrySchedule();
  s.VictimsGone();
  s.Wait(std::chrono::seconds(11));
  ASSERT_TRUE(s.TrySchedule());
  EXPECT_EQ(s.f_.binding_client().Binds(), std::vector<std::string>{"preemptor@n1"});
  EXPECT_FALSE(s.EventsWithReason("FailedScheduling").empty());
  EXPECT_EQ(s.EventsWithReason("Preempted").size(), 2u);
}

// From 1.36 (PreemptionCancelsPreBind) a victim whose binding cycle waits
// in PreBind is stopped there rather than deleted: it is not bound, goes
// back to the queue, and its Preempted event says it happened in memory.
// 1.35 deletes it through the API.
TEST(AsyncPreemptionTest, AVictimInPreBindIsCancelledNotDeletedFromKube136) {
  for (int minor : {35, 36}) {
    SCOPED_TRACE(minor);
    testing::Behaviour b;
    b.pre_bind_pre_flight = framework::Status();
    framework::Registry registry = InTree();
    ASSERT_TRUE(registry
                    .Register(testing::kFakeReserve,
                              [&b](const config::PluginArgs&, framework::Handle&)
                                  -> util::StatusOr<std::shared_ptr<framework::Plugin>> {
                                return std::shared_ptr<framework::Plugin>(
                                    std::make_shared<testing::FakeReservePlugin>(b));
                              })
                    .ok());
    config::KubeSchedulerConfiguration config = PreemptionConfig();
    config.profiles[0].plugins.pre_bind.enabled = {testing::P(testing::kFakeReserve)};
    SchedulerFixture f(config, framework::FeatureGates::ForMinor(minor), {}, std::move(registry));
    EventHandlers h(f.sched());
    h.OnNodeAdd(Node("n1"));
    auto low = MakePod("low").SchedulerName(testing::kProfile).Priority(0).Req({{"cpu", "2"}}).Obj();
    auto preemptor = MakePod("preemptor").SchedulerName(testing::kProfile).Priority(100).Req({{"cpu", "2"}}).Obj();
    // low's PreBind waits, as a binding-condition wait does, until it is
    // cancelled (bounded: at 1.35 nothing cancels it).
    std::atomic<bool> low_in_pre_bind{false};
    std::atomic<bool> low_cancelled{false};
    b.on_pre_bind = [&](const api::Pod& pod) {
      if (pod.metadata.name != "low") return;
      low_in_pre_bind = true;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(minor >= 36 ? 30 : 1);
      while (std::chrono::steady_clock::now() < deadline) {
        auto p = f.sched().Profile(testing::kProfile)->GetPodInPreBind(pod.metadata.uid);
        if (p != nullptr && p->cancellation().Cancelled()) {
          low_cancelled = true;
          return;
        }
        std::this_thread::yield();
      }
    };
    f.listers().pods.Set(low);
    h.OnUnscheduledPodAdd(low);
    f.sched().ScheduleOne();  // low's binding cycle goes on, into PreBind
    auto in_pre_bind_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!low_in_pre_bind && std::chrono::steady_clock::now() < in_pre_bind_by) std::this_thread::yield();
    ASSERT_TRUE(low_in_pre_bind);
    f.listers().pods.Set(preemptor);
    h.OnUnscheduledPodAdd(preemptor);
    f.sched().ScheduleOne();  // the preemptor finds low on n1
    f.sched().WaitForBindingCycles();
    auto& evaluator = dynamic_cast<plugins::defaultpreemption::DefaultPreemption*>(
                          f.sched().Profile(testing::kProfile)->GetPlugin("DefaultPreemption"))
                          ->evaluator();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (evaluator.IsPodRunningPreemption(*preemptor) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    const bool low_queued = f.sched().Queue().GetPod("low", low->metadata.namespace_).has_value();
    f.sched().Stop();
    f.writer().Stop();
    std::vector<std::string> preempted;
    for (const auto& c : f.writer_client().CallsOf(Kind::kCreateEvent)) {
      if (c.event.reason == "Preempted") preempted.push_back(c.event.note);
    }
    ASSERT_EQ(preempted.size(), 1u);
    if (minor < 36) {
      EXPECT_FALSE(low_cancelled);
      EXPECT_EQ(f.writer_client().CallsOf(Kind::kDeletePod).size(), 1u);
      EXPECT_EQ(f.binding_client().Binds(), std::vector<std::string>{"low@n1"});
      continue;
    }
    EXPECT_TRUE(low_cancelled);
    EXPECT_TRUE(f.writer_client().CallsOf(Kind::kDeletePod).empty());
    EXPECT_TRUE(f.binding_client().Binds().empty());
    EXPECT_TRUE(low_queued);  // back in the queue, to be tried again
    EXPECT_NE(preempted[0].find("(in kube-scheduler memory)."), std::string::npos) << preempted[0];
  }
}

}  // namespace
}  // namespace ksched::scheduler
