#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/helper/other_args.h"
#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread.h"
#include "pkg/scheduler/plugins/podtopologyspread/test_util.h"

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::EventObject;
using framework::QueueingHint;
using testing::Exists;
using testing::MakeNode;
using testing::PodBuilder;
using testing::Spread;
using PodPtr = std::shared_ptr<const api::Pod>;

constexpr QueueingHint kQueue = QueueingHint::kQueue;
constexpr QueueingHint kSkip = QueueingHint::kQueueSkip;

TEST(PodTopologySpreadPluginTest, Factory) {
  testing::FakeHandle handle;
  auto p = New(std::monostate{}, handle);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), "PodTopologySpread");

  PodTopologySpreadArgs list;
  list.defaulting_type = kListDefaulting;
  list.default_constraints.push_back(Spread{.max_skew = 1, .key = "zone", .when = "DoNotSchedule"}.Obj());
  ASSERT_TRUE(New(list, handle).ok());

  PodTopologySpreadArgs bad;
  bad.defaulting_type = kSystemDefaulting;
  bad.default_constraints = list.default_constraints;
  auto invalid = New(bad, handle);
  ASSERT_FALSE(invalid.ok());
  EXPECT_NE(invalid.status().message().find("defaultingType"), std::string::npos) << invalid.status().message();

  auto wrong = New(helper::OtherArgs{}, handle);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "want args to be of type PodTopologySpreadArgs, got OtherArgs");
}

TEST(PodTopologySpreadPluginTest, ListDefaultsApplyToFiltering) {
  testing::FakeHandle handle;
  testing::AddControllers(handle.listers());
  handle.SetSnapshot(cache::Snapshot::FromObjects(
      {PodBuilder("x").Node("a").Controller("apps/v1", "StatefulSet", "ss1").Obj()},
      {MakeNode("a", {{"zone", "z1"}}), MakeNode("b", {{"zone", "z2"}})}));
  PodTopologySpreadArgs list;
  list.defaulting_type = kListDefaulting;
  list.default_constraints.push_back(Spread{.max_skew = 1, .key = "zone", .when = "DoNotSchedule"}.Obj());
  auto p = *New(list, handle);
  PodPtr pod = PodBuilder().Controller("apps/v1", "StatefulSet", "ss1").Obj();
  framework::CycleState state;
  ASSERT_TRUE(p->PreFilter(state, *pod, handle.snapshot().NodeInfos().List()).second.IsSuccess());
  EXPECT_EQ(p->Filter(state, *pod, **handle.snapshot().NodeInfos().Get("a")).code(), framework::Code::kUnschedulable);
  EXPECT_TRUE(p->Filter(state, *pod, **handle.snapshot().NodeInfos().Get("b")).IsSuccess());
}

TEST(PodTopologySpreadPluginTest, EventsToRegister) {
  for (bool hints : {true, false}) {
    SCOPED_TRACE(hints);
    framework::FeatureGates gates;
    gates.scheduler_queueing_hints = hints;
    testing::FakeHandle handle(gates);
    auto p = *New(std::monostate{}, handle);
    auto events = p->EventsToRegister();
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 2u);
    ActionType pod = ActionType::kAdd | ActionType::kUpdatePodLabel | ActionType::kDelete;
    if (hints) pod |= ActionType::kUpdatePodToleration;
    EXPECT_EQ((*events)[0].event, ClusterEvent(framework::resource::kPod, pod));
    EXPECT_EQ((*events)[1].event,
              ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kDelete |
                                                           ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeTaint));
  }
}

class HintTest : public ::testing::Test {
 protected:
  HintTest() : plugin_(*New(std::monostate{}, handle_)) {}
  QueueingHint PodHint(const api::Pod& pod, EventObject o, EventObject n) {
    auto h = plugin_->IsSchedulableAfterPodChange(pod, o, n);
    EXPECT_TRUE(h.ok()) << h.status().ToString();
    return h.ok() ? *h : kQueue;
  }
  QueueingHint NodeHint(const api::Pod& pod, EventObject o, EventObject n) {
    auto h = plugin_->IsSchedulableAfterNodeChange(pod, o, n);
    EXPECT_TRUE(h.ok()) << h.status().ToString();
    return h.ok() ? *h : kQueue;
  }

  testing::FakeHandle handle_;
  std::shared_ptr<PodTopologySpread> plugin_;
};

TEST_F(HintTest, PodAddedOrDeleted) {
  PodPtr pod = PodBuilder("p").Label("foo", "").Spread({.max_skew = 1, .key = "zone", .selector = Exists("foo")}).Obj();
  PodPtr matching = PodBuilder("x").Node("n").Label("foo", "").Obj();
  PodPtr unrelated = PodBuilder("x").Node("n").Label("bar", "").Obj();
  EXPECT_EQ(PodHint(*pod, {}, matching), kQueue);
  EXPECT_EQ(PodHint(*pod, {}, unrelated), kSkip);
  EXPECT_EQ(PodHint(*pod, {}, PodBuilder("x").Label("foo", "").Obj()), kSkip) << "unassigned";
  EXPECT_EQ(PodHint(*pod, {}, PodBuilder("x").Namespace("ns").Node("n").Label("foo", "").Obj()), kSkip)
      << "other namespace";
  EXPECT_EQ(PodHint(*pod, matching, {}), kQueue);
  EXPECT_EQ(PodHint(*pod, unrelated, {}), kSkip);
  PodPtr soft_only =
      PodBuilder("p").Spread({.max_skew = 1, .key = "zone", .when = "ScheduleAnyway", .selector = Exists("foo")}).Obj();
  EXPECT_EQ(PodHint(*soft_only, {}, matching), kSkip) << "only hard constraints reject";
}

TEST_F(HintTest, PodUpdated) {
  PodPtr pod = PodBuilder("p").Label("foo", "").Spread({.max_skew = 1, .key = "zone", .selector = Exists("foo")}).Obj();
  auto assigned = [](api::StringMap labels) {
    PodBuilder b("x");
    b.Node("n");
    for (const auto& [k, v] : labels) b.Label(k, v);
    return b.Obj();
  };
  EXPECT_EQ(PodHint(*pod, assigned({{"foo", ""}}), assigned({{"bar", ""}})), kQueue) << "stops matching";
  EXPECT_EQ(PodHint(*pod, assigned({{"bar", ""}}), assigned({{"foo", ""}})), kQueue) << "starts matching";
  EXPECT_EQ(PodHint(*pod, assigned({{"foo", ""}}), assigned({{"foo", ""}, {"x", "y"}})), kSkip) << "still matching";
  EXPECT_EQ(PodHint(*pod, assigned({{"foo", ""}}), assigned({{"foo", ""}})), kSkip) << "labels unchanged";
  // The pod itself (unassigned) changes labels.
  EXPECT_EQ(PodHint(*pod, PodBuilder("p").Label("foo", "").Obj(), PodBuilder("p").Label("bar", "").Obj()), kQueue);
}

TEST_F(HintTest, OwnTolerationsWithHonorTaints) {
  Spread honor{.max_skew = 1, .key = "zone", .selector = Exists("foo"), .node_taints_policy = "Honor"};
  PodPtr before = PodBuilder("p").Label("foo", "").Spread(honor).Obj();
  PodPtr after = PodBuilder("p").Label("foo", "").Toleration("t", "NoSchedule").Spread(honor).Obj();
  EXPECT_EQ(PodHint(*before, before, after), kQueue);
  Spread ignore{.max_skew = 1, .key = "zone", .selector = Exists("foo")};
  PodPtr ignore_before = PodBuilder("p").Label("foo", "").Spread(ignore).Obj();
  PodPtr ignore_after = PodBuilder("p").Label("foo", "").Toleration("t", "NoSchedule").Spread(ignore).Obj();
  EXPECT_EQ(PodHint(*ignore_before, ignore_before, ignore_after), kSkip);
  // Another pod's tolerations are irrelevant.
  PodPtr other_before = PodBuilder("o").Node("n").Label("foo", "").Obj();
  PodPtr other_after = PodBuilder("o").Node("n").Label("foo", "").Toleration("t", "NoSchedule").Obj();
  EXPECT_EQ(PodHint(*before, other_before, other_after), kSkip);
}

TEST_F(HintTest, NodeChanges) {
  PodPtr pod = PodBuilder("p")
                   .Label("foo", "")
                   .Spread({.max_skew = 1, .key = "zone", .selector = Exists("foo")})
                   .Spread({.max_skew = 1, .key = "node", .selector = Exists("foo")})
                   .Obj();
  auto full = MakeNode("n", {{"zone", "z1"}, {"node", "n"}});
  auto other_zone = MakeNode("n", {{"zone", "z2"}, {"node", "n"}});
  auto partial = MakeNode("n", {{"zone", "z1"}});
  auto full_extra = MakeNode("n", {{"zone", "z1"}, {"node", "n"}, {"x", "y"}});
  auto full_tainted = MakeNode("n", {{"zone", "z1"}, {"node", "n"}}, {api::Taint{"t", "", "NoSchedule", {}}});
  auto partial_tainted = MakeNode("n", {{"zone", "z1"}}, {api::Taint{"t", "", "NoSchedule", {}}});
  EXPECT_EQ(NodeHint(*pod, {}, full), kQueue);
  EXPECT_EQ(NodeHint(*pod, {}, partial), kSkip);
  EXPECT_EQ(NodeHint(*pod, full, {}), kQueue);
  EXPECT_EQ(NodeHint(*pod, partial, {}), kSkip);
  EXPECT_EQ(NodeHint(*pod, partial, full), kQueue) << "gained the keys";
  EXPECT_EQ(NodeHint(*pod, full, partial), kQueue) << "lost a key";
  EXPECT_EQ(NodeHint(*pod, full, other_zone), kQueue) << "changed domain";
  EXPECT_EQ(NodeHint(*pod, full, full_tainted), kQueue) << "taints changed";
  EXPECT_EQ(NodeHint(*pod, full, full_extra), kSkip) << "unrelated label";
  EXPECT_EQ(NodeHint(*pod, partial, partial_tainted), kSkip) << "still lacks a key";
}

TEST_F(HintTest, RejectsOtherObjects) {
  PodPtr pod = PodBuilder("p").Spread({.max_skew = 1, .key = "zone", .selector = Exists("foo")}).Obj();
  EXPECT_FALSE(plugin_->IsSchedulableAfterPodChange(*pod, {}, MakeNode("n", {})).ok());
  EXPECT_FALSE(plugin_->IsSchedulableAfterNodeChange(*pod, {}, PodBuilder("x").Obj()).ok());
  EXPECT_FALSE(plugin_->IsSchedulableAfterNodeChange(*pod, {}, {}).ok());
  api::LabelSelector bad;
  bad.match_expressions.push_back(api::LabelSelectorRequirement{"foo", "Bogus", {}});
  PodPtr bad_pod = PodBuilder("p").Spread({.max_skew = 1, .key = "zone", .selector = bad}).Obj();
  EXPECT_FALSE(plugin_->IsSchedulableAfterNodeChange(*bad_pod, {}, MakeNode("n", {})).ok());
  EXPECT_FALSE(plugin_->IsSchedulableAfterPodChange(*bad_pod, {}, PodBuilder("x").Node("n").Obj()).ok());
}

TEST_F(HintTest, RegisteredHintsCallThePlugin) {
  auto events = plugin_->EventsToRegister();
  ASSERT_TRUE(events.ok());
  PodPtr pod = PodBuilder("p").Spread({.max_skew = 1, .key = "zone", .selector = Exists("foo")}).Obj();
  auto q = (*events)[0].queueing_hint_fn(*pod, {}, PodBuilder("x").Node("n").Label("foo", "").Obj());
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, kQueue);
  auto n = (*events)[1].queueing_hint_fn(*pod, {}, MakeNode("n", {}));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, kSkip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
