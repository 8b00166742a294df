#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/helper/other_args.h"
#include "pkg/scheduler/plugins/interpodaffinity/inter_pod_affinity.h"
#include "pkg/scheduler/plugins/interpodaffinity/test_util.h"

namespace ksched::scheduler::plugins::interpodaffinity {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::EventObject;
using framework::QueueingHint;
using testing::MakeNamespace;
using testing::MakeNode;
using testing::PodBuilder;
using testing::Sel;
using testing::Term;
using PodPtr = std::shared_ptr<const api::Pod>;

constexpr QueueingHint kQueue = QueueingHint::kQueue;
constexpr QueueingHint kSkip = QueueingHint::kQueueSkip;

TEST(InterPodAffinityPluginTest, Factory) {
  testing::FakeHandle handle;
  auto p = New(std::monostate{}, handle);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), "InterPodAffinity");

  InterPodAffinityArgs bad;
  bad.hard_pod_affinity_weight = 101;
  auto invalid = New(bad, handle);
  ASSERT_FALSE(invalid.ok());
  EXPECT_NE(invalid.status().message().find("hardPodAffinityWeight"), std::string::npos)
      << invalid.status().message();

  auto wrong = New(helper::OtherArgs{}, handle);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "want args to be of type InterPodAffinityArgs, got OtherArgs");
}

TEST(InterPodAffinityPluginTest, EventsToRegister) {
  for (bool hints : {true, false}) {
    SCOPED_TRACE(hints);
    framework::FeatureGates gates;
    gates.scheduler_queueing_hints = hints;
    testing::FakeHandle handle(gates);
    auto p = New(std::monostate{}, handle);
    ASSERT_TRUE(p.ok());
    auto events = (*p)->EventsToRegister();
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 2u);
    EXPECT_EQ((*events)[0].event,
              ClusterEvent(framework::resource::kPod,
                           ActionType::kAdd | ActionType::kUpdatePodLabel | ActionType::kDelete));
    ActionType node = ActionType::kAdd | ActionType::kUpdateNodeLabel;
    if (!hints) node |= ActionType::kUpdateNodeTaint;
    EXPECT_EQ((*events)[1].event, ClusterEvent(framework::resource::kNode, node));
    EXPECT_TRUE((*events)[0].queueing_hint_fn);
    EXPECT_TRUE((*events)[1].queueing_hint_fn);
  }
}

class HintTest : public ::testing::Test {
 protected:
  HintTest() {
    handle_.listers().namespaces.Set(MakeNamespace("team1-a", {{"team", "team1"}}));
    handle_.listers().namespaces.Set(MakeNamespace("team2-a", {{"team", "team2"}}));
    plugin_ = *New(std::monostate{}, handle_);
  }
  QueueingHint PodHint(const api::Pod& pod, EventObject old_obj, EventObject new_obj) {
    auto h = plugin_->IsSchedulableAfterPodChange(pod, old_obj, new_obj);
    EXPECT_TRUE(h.ok()) << h.status().ToString();
    return h.ok() ? *h : kQueue;
  }
  QueueingHint NodeHint(const api::Pod& pod, EventObject old_obj, EventObject new_obj) {
    auto h = plugin_->IsSchedulableAfterNodeChange(pod, old_obj, new_obj);
    EXPECT_TRUE(h.ok()) << h.status().ToString();
    return h.ok() ? *h : kQueue;
  }

  testing::FakeHandle handle_;
  std::shared_ptr<InterPodAffinity> plugin_;
};

TEST_F(HintTest, PodAdded) {
  PodPtr pod = PodBuilder()
                   .RequiredAffinity(Term(Sel().Label("app", "db"), "zone"))
                   .RequiredAffinity(Term(Sel().Exists("tier"), "zone"))
                   .Obj();
  EXPECT_EQ(PodHint(*pod, {}, PodBuilder("x").Labels({{"app", "db"}, {"tier", "1"}}).Obj()), kSkip)
      << "unassigned pods do not count";
  EXPECT_EQ(PodHint(*pod, {}, PodBuilder("x").Node("n").Labels({{"app", "db"}, {"tier", "1"}}).Obj()), kQueue);
  EXPECT_EQ(PodHint(*pod, {}, PodBuilder("x").Node("n").Label("app", "db").Obj()), kSkip)
      << "must match all terms";
  EXPECT_EQ(PodHint(*PodBuilder().Obj(), {}, PodBuilder("x").Node("n").Label("app", "db").Obj()), kSkip);
  PodPtr anti_only = PodBuilder().RequiredAntiAffinity(Term(Sel().Label("app", "db"), "zone")).Obj();
  EXPECT_EQ(PodHint(*anti_only, {}, PodBuilder("x").Node("n").Label("app", "db").Obj()), kSkip)
      << "an added pod never lifts anti-affinity";
}

TEST_F(HintTest, PodAddedInSelectedNamespace) {
  PodPtr pod = PodBuilder()
                   .Namespace("team1-a")
                   .RequiredAffinity(Term(Sel().Label("app", "db"), "zone", {}, Sel().Label("team", "team1").get()))
                   .Obj();
  EXPECT_EQ(PodHint(*pod, {}, PodBuilder("x").Namespace("team1-a").Node("n").Label("app", "db").Obj()), kQueue);
  EXPECT_EQ(PodHint(*pod, {}, PodBuilder("x").Namespace("team2-a").Node("n").Label("app", "db").Obj()), kSkip);
}

TEST_F(HintTest, PodUpdated) {
  PodPtr pod = PodBuilder()
                   .RequiredAffinity(Term(Sel().Label("app", "db"), "zone"))
                   .RequiredAntiAffinity(Term(Sel().Label("app", "web"), "hostname"))
                   .RequiredAntiAffinity(Term(Sel().Label("env", "prod"), "zone"))
                   .Obj();
  PodPtr plain = PodBuilder("x").Node("n").Label("app", "cache").Obj();
  EXPECT_EQ(PodHint(*pod, plain, PodBuilder("x").Node("n").Label("app", "db").Obj()), kQueue)
      << "starts matching affinity";
  EXPECT_EQ(PodHint(*pod, PodBuilder("x").Node("n").Labels({{"app", "web"}, {"env", "prod"}}).Obj(),
                    PodBuilder("x").Node("n").Labels({{"app", "web"}, {"env", "dev"}}).Obj()),
            kQueue)
      << "stops matching one anti-affinity term";
  EXPECT_EQ(PodHint(*pod, PodBuilder("x").Node("n").Label("app", "db").Obj(),
                    PodBuilder("x").Node("n").Labels({{"app", "db"}, {"x", "y"}}).Obj()),
            kSkip)
      << "already matched affinity";
  EXPECT_EQ(PodHint(*pod, plain, PodBuilder("x").Node("n").Label("app", "web").Obj()), kSkip)
      << "starts matching anti-affinity";
  EXPECT_EQ(PodHint(*pod, PodBuilder("x").Label("app", "cache").Obj(), PodBuilder("x").Node("n").Label("app", "db").Obj()),
            kSkip)
      << "old object unassigned";
}

TEST_F(HintTest, PodDeleted) {
  PodPtr pod = PodBuilder()
                   .Namespace("team1-a")
                   .Label("app", "web")
                   .RequiredAntiAffinity(Term(Sel().Label("app", "db"), "zone"))
                   .Obj();
  EXPECT_EQ(PodHint(*pod, PodBuilder("x").Namespace("team1-a").Node("n").Label("app", "db").Obj(), {}), kQueue);
  EXPECT_EQ(PodHint(*pod, PodBuilder("x").Namespace("team1-a").Node("n").Label("app", "cache").Obj(), {}), kSkip);
  EXPECT_EQ(PodHint(*pod, PodBuilder("x").Namespace("team1-a").Label("app", "db").Obj(), {}), kSkip)
      << "unassigned";
  // The deleted pod's own anti-affinity repelled the pod.
  PodPtr hater = PodBuilder("h")
                     .Namespace("other")
                     .Node("n")
                     .RequiredAntiAffinity(Term(Sel().Label("app", "web"), "zone", {"team1-a"}))
                     .Obj();
  EXPECT_EQ(PodHint(*PodBuilder().Namespace("team1-a").Label("app", "web").Obj(), hater, {}), kQueue);
  EXPECT_EQ(PodHint(*PodBuilder().Namespace("team2-a").Label("app", "web").Obj(), hater, {}), kSkip);
  PodPtr ns_hater = PodBuilder("h")
                        .Namespace("other")
                        .Node("n")
                        .RequiredAntiAffinity(Term(Sel().Label("app", "web"), "zone", {}, Sel().Label("team", "team2").get()))
                        .Obj();
  EXPECT_EQ(PodHint(*PodBuilder().Namespace("team2-a").Label("app", "web").Obj(), ns_hater, {}), kQueue);
  EXPECT_EQ(PodHint(*PodBuilder().Namespace("team1-a").Label("app", "web").Obj(), ns_hater, {}), kSkip);
}

TEST_F(HintTest, PodHintRejectsOtherObjects) {
  auto h = plugin_->IsSchedulableAfterPodChange(*PodBuilder().Obj(), {}, EventObject(MakeNode("n", {})));
  EXPECT_FALSE(h.ok());
  auto bad = plugin_->IsSchedulableAfterPodChange(
      *PodBuilder().RequiredAffinity(Term(Sel().In("app", {"{{bad}}"}), "zone")).Obj(), {},
      PodBuilder("x").Node("n").Obj());
  EXPECT_FALSE(bad.ok());
}

TEST_F(HintTest, NodeChangesForAffinity) {
  PodPtr pod = PodBuilder().RequiredAffinity(Term(Sel().Label("app", "db"), "zone")).Obj();
  auto zone_a = MakeNode("n", {{"zone", "a"}});
  auto zone_b = MakeNode("n", {{"zone", "b"}});
  auto bare = MakeNode("n", {});
  auto zone_a_more = MakeNode("n", {{"zone", "a"}, {"x", "y"}});
  EXPECT_EQ(NodeHint(*pod, {}, zone_a), kQueue);
  EXPECT_EQ(NodeHint(*pod, {}, bare), kSkip);
  EXPECT_EQ(NodeHint(*pod, bare, zone_a), kQueue) << "gained the key";
  EXPECT_EQ(NodeHint(*pod, zone_a, zone_b), kQueue) << "changed domain";
  EXPECT_EQ(NodeHint(*pod, zone_a, zone_a_more), kSkip);
  EXPECT_EQ(NodeHint(*pod, zone_a, bare), kSkip) << "lost the key";
}

TEST_F(HintTest, NodeChangesForAntiAffinity) {
  PodPtr pod = PodBuilder().RequiredAntiAffinity(Term(Sel().Label("app", "db"), "zone")).Obj();
  auto zone_a = MakeNode("n", {{"zone", "a"}});
  auto zone_b = MakeNode("n", {{"zone", "b"}});
  auto bare = MakeNode("n", {});
  EXPECT_EQ(NodeHint(*pod, {}, bare), kQueue) << "any new node";
  EXPECT_EQ(NodeHint(*pod, {}, zone_a), kQueue);
  EXPECT_EQ(NodeHint(*pod, zone_a, bare), kQueue) << "lost the key";
  EXPECT_EQ(NodeHint(*pod, zone_a, zone_b), kQueue) << "changed domain";
  EXPECT_EQ(NodeHint(*pod, bare, zone_a), kSkip) << "gained the key";
  EXPECT_EQ(NodeHint(*pod, zone_a, MakeNode("n", {{"zone", "a"}, {"x", "y"}})), kSkip);
}

TEST_F(HintTest, NodeChangesForSymmetryOnly) {
  PodPtr pod = PodBuilder().Label("app", "web").Obj();
  auto zone_a = MakeNode("n", {{"zone", "a"}});
  EXPECT_EQ(NodeHint(*pod, {}, zone_a), kQueue);
  EXPECT_EQ(NodeHint(*pod, zone_a, MakeNode("n", {{"zone", "b"}})), kQueue);
  auto tainted = std::make_shared<api::Node>(*zone_a);
  tainted->spec.taints.push_back(api::Taint{"k", "v", "NoSchedule", std::nullopt});
  EXPECT_EQ(NodeHint(*pod, zone_a, std::shared_ptr<const api::Node>(tainted)), kSkip);
}

TEST_F(HintTest, NodeHintRejectsOtherObjects) {
  EXPECT_FALSE(plugin_->IsSchedulableAfterNodeChange(*PodBuilder().Obj(), {}, PodBuilder("x").Obj()).ok());
  EXPECT_FALSE(plugin_->IsSchedulableAfterNodeChange(*PodBuilder().Obj(), MakeNode("n", {}), {}).ok());
}

TEST_F(HintTest, RegisteredHintsCallThePlugin) {
  auto events = plugin_->EventsToRegister();
  ASSERT_TRUE(events.ok());
  PodPtr pod = PodBuilder().RequiredAffinity(Term(Sel().Label("app", "db"), "zone")).Obj();
  auto q = (*events)[0].queueing_hint_fn(*pod, {}, PodBuilder("x").Node("n").Label("app", "db").Obj());
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, kQueue);
  auto n = (*events)[1].queueing_hint_fn(*pod, {}, MakeNode("n", {}));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, kSkip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::interpodaffinity
