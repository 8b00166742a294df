#include "pkg/scheduler/plugins/tainttoleration/taint_toleration.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/filter_nodes_test_util.h"
#include "pkg/scheduler/plugins/score_nodes_test_util.h"

namespace ksched::scheduler::plugins::tainttoleration {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;

api::Taint T(std::string key, std::string value, std::string effect) {
  api::Taint t;
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

api::Toleration Tol(std::string key, std::string op, std::string value, std::string effect) {
  api::Toleration t;
  t.key = std::move(key);
  t.operator_ = std::move(op);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

std::shared_ptr<const api::Node> MakeNode(const std::string& name, std::vector<api::Taint> taints) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = name;
  n->spec.taints = std::move(taints);
  return n;
}

std::shared_ptr<api::Pod> MakePod(const std::string& uid, std::vector<api::Toleration> tolerations) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = "pod-" + uid;
  p->metadata.uid = uid;
  p->spec.tolerations = std::move(tolerations);
  return p;
}

TEST(TaintTolerationTest, Filter) {
  struct Case {
    const char* name;
    std::vector<api::Toleration> tolerations;
    std::vector<api::Taint> taints;
    Code want;
    std::string want_reason;
  };
  const Case cases[] = {
      {"a pod having no tolerations can't be scheduled onto a node with nonempty taints",
       {},
       {T("dedicated", "user1", "NoSchedule")},
       Code::kUnschedulableAndUnresolvable,
       "node(s) had untolerated taint(s)"},
      {"a pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
       {Tol("dedicated", "Equal", "user1", "NoSchedule")},
       {T("dedicated", "user1", "NoSchedule")},
       Code::kSuccess,
       ""},
      {"a pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
       {Tol("dedicated", "Equal", "user2", "NoSchedule")},
       {T("dedicated", "user1", "NoSchedule")},
       Code::kUnschedulableAndUnresolvable,
       "node(s) had untolerated taint(s)"},
      {"a toleration with operator Exists tolerates the taint",
       {Tol("foo", "Exists", "", "NoSchedule")},
       {T("foo", "bar", "NoSchedule")},
       Code::kSuccess,
       ""},
      {"multiple tolerations tolerate multiple taints",
       {Tol("dedicated", "Equal", "user2", "NoSchedule"), Tol("foo", "Exists", "", "NoSchedule")},
       {T("dedicated", "user2", "NoSchedule"), T("foo", "bar", "NoSchedule")},
       Code::kSuccess,
       ""},
      {"matching key and value but another effect",
       {Tol("foo", "Equal", "bar", "PreferNoSchedule")},
       {T("foo", "bar", "NoSchedule")},
       Code::kUnschedulableAndUnresolvable,
       "node(s) had untolerated taint(s)"},
      {"an empty toleration effect matches NoSchedule",
       {Tol("foo", "Equal", "bar", "")},
       {T("foo", "bar", "NoSchedule")},
       Code::kSuccess,
       ""},
      {"untolerated PreferNoSchedule taints do not filter",
       {Tol("dedicated", "Equal", "user2", "NoSchedule")},
       {T("dedicated", "user1", "PreferNoSchedule")},
       Code::kSuccess,
       ""},
      {"no tolerations, PreferNoSchedule taint", {}, {T("dedicated", "user1", "PreferNoSchedule")}, Code::kSuccess, ""},
      {"untolerated NoExecute taint",
       {Tol("foo", "Exists", "", "NoSchedule")},
       {T("foo", "", "NoExecute")},
       Code::kUnschedulableAndUnresolvable,
       "node(s) had untolerated taint(s)"},
      {"several untolerated taints give one reason, naming none",
       {Tol("a", "Exists", "", "")},
       {T("pref", "x", "PreferNoSchedule"), T("a", "1", "NoSchedule"), T("b", "2", "NoExecute"),
        T("c", "3", "NoSchedule")},
       Code::kUnschedulableAndUnresolvable,
       "node(s) had untolerated taint(s)"},
  };
  auto pl = New(framework::FeatureGates());
  EXPECT_EQ(pl->Name(), "TaintToleration");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    framework::NodeInfo node_info(MakeNode("node", c.taints));
    framework::CycleState state;
    framework::Status s = plugins::testing::FilterBothWays(*pl, state, *MakePod("p", c.tolerations), node_info);
    EXPECT_EQ(s.code(), c.want);
    if (c.want != Code::kSuccess) {
      EXPECT_EQ(s.reasons(), std::vector<std::string>{c.want_reason});
    }
  }
}

TEST(TaintTolerationTest, Score) {
  struct Case {
    const char* name;
    std::vector<api::Toleration> tolerations;
    std::vector<std::vector<api::Taint>> node_taints;
    std::vector<int64_t> want;
  };
  const Case cases[] = {
      {"nodes whose taints are tolerated score higher",
       {Tol("foo", "Equal", "bar", "PreferNoSchedule")},
       {{T("foo", "bar", "PreferNoSchedule")}, {T("foo", "blah", "PreferNoSchedule")}},
       {100, 0}},
      {"all-tolerated nodes score the same whatever the number of taints",
       {Tol("cpu-type", "Equal", "arm64", "PreferNoSchedule"), Tol("disk-type", "Equal", "ssd", "PreferNoSchedule")},
       {{},
        {T("cpu-type", "arm64", "PreferNoSchedule")},
        {T("cpu-type", "arm64", "PreferNoSchedule"), T("disk-type", "ssd", "PreferNoSchedule")}},
       {100, 100, 100}},
      {"the more intolerable taints, the lower the score",
       {Tol("foo", "Equal", "bar", "PreferNoSchedule")},
       {{},
        {T("cpu-type", "arm64", "PreferNoSchedule")},
        {T("cpu-type", "arm64", "PreferNoSchedule"), T("disk-type", "ssd", "PreferNoSchedule")}},
       {100, 50, 0}},
      {"only PreferNoSchedule taints and tolerations count",
       {Tol("cpu-type", "Equal", "arm64", "NoSchedule"), Tol("disk-type", "Equal", "ssd", "NoSchedule")},
       {{},
        {T("cpu-type", "arm64", "NoSchedule")},
        {T("cpu-type", "arm64", "PreferNoSchedule"), T("disk-type", "ssd", "PreferNoSchedule")}},
       {100, 100, 0}},
      {"no taints and tolerations: lands on the node without taints",
       {},
       {{}, {T("cpu-type", "arm64", "PreferNoSchedule")}},
       {100, 0}},
      {"an empty-effect toleration tolerates PreferNoSchedule",
       {Tol("foo", "Exists", "", "")},
       {{T("foo", "x", "PreferNoSchedule")}, {T("bar", "x", "PreferNoSchedule")}},
       {100, 0}},
      {"nothing untolerated anywhere", {}, {{}, {}}, {100, 100}},
  };
  auto pl = New(framework::FeatureGates());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto pod = MakePod("p", c.tolerations);
    std::vector<framework::NodeInfo> infos;
    for (size_t i = 0; i < c.node_taints.size(); ++i) {
      infos.emplace_back(MakeNode("node" + std::to_string(i), c.node_taints[i]));
    }
    framework::NodeInfoList list;
    for (const auto& ni : infos) list.push_back(&ni);
    framework::CycleState state;
    ASSERT_TRUE(pl->PreScore(state, *pod, list).IsSuccess());
    framework::NodeScoreList scores;
    for (const auto& ni : infos) {
      auto [score, status] = pl->Score(state, *pod, ni);
      ASSERT_TRUE(status.IsSuccess());
      scores.push_back({ni.node_name(), score});
    }
    std::vector<int64_t> raw;
    for (const auto& s : scores) raw.push_back(s.score);
    EXPECT_EQ(plugins::testing::ScoreNodesOf(*pl, state, *pod, list), raw);
    ASSERT_NE(pl->GetScoreExtensions(), nullptr);
    ASSERT_TRUE(pl->GetScoreExtensions()->NormalizeScore(state, *pod, scores).IsSuccess());
    std::vector<int64_t> got;
    for (const auto& s : scores) got.push_back(s.score);
    EXPECT_EQ(got, c.want);
  }
}

TEST(TaintTolerationTest, ScoreWithoutPreScoreIsError) {
  auto pl = New(framework::FeatureGates());
  framework::CycleState state;
  framework::NodeInfo node_info(MakeNode("node", {}));
  auto [score, status] = pl->Score(state, *MakePod("p", {}), node_info);
  EXPECT_EQ(status.code(), Code::kError);
}

TEST(TaintTolerationTest, NormalizeScoreScalesByMax) {
  auto pl = New(framework::FeatureGates());
  framework::CycleState state;
  framework::NodeScoreList scores = {{"a", 0}, {"b", 1}, {"c", 3}, {"d", 2}};
  ASSERT_TRUE(pl->NormalizeScore(state, *MakePod("p", {}), scores).IsSuccess());
  // 100 - 100*s/3: 100, 67, 0, 34.
  EXPECT_EQ(scores[0].score, 100);
  EXPECT_EQ(scores[1].score, 67);
  EXPECT_EQ(scores[2].score, 0);
  EXPECT_EQ(scores[3].score, 34);
}

TEST(TaintTolerationTest, EventsToRegister) {
  auto on = New(framework::FeatureGates())->EventsToRegister();
  ASSERT_TRUE(on.ok());
  ASSERT_EQ(on->size(), 2u);
  EXPECT_EQ((*on)[0].event, ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint));
  EXPECT_TRUE((*on)[0].queueing_hint_fn);
  EXPECT_EQ((*on)[1].event, ClusterEvent(framework::resource::kPod, ActionType::kUpdatePodToleration));
  EXPECT_TRUE((*on)[1].queueing_hint_fn);

  framework::FeatureGates gates;
  gates.scheduler_queueing_hints = false;
  auto off = New(gates)->EventsToRegister();
  ASSERT_TRUE(off.ok());
  ASSERT_EQ(off->size(), 1u);
  EXPECT_EQ((*off)[0].event, ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint |
                                                                          ActionType::kUpdateNodeLabel));
  EXPECT_TRUE((*off)[0].queueing_hint_fn);
}

TEST(TaintTolerationTest, IsSchedulableAfterNodeChange) {
  auto pod = MakePod("p", {Tol("foo", "Equal", "bar", "NoSchedule")});
  struct Case {
    const char* name;
    EventObject old_obj;
    EventObject new_obj;
    bool want_error;
    QueueingHint want;
  };
  const Case cases[] = {
      {"wrong new object", EventObject(), EventObject(MakePod("x", {})), true, QueueingHint::kQueue},
      {"wrong old object", EventObject(MakePod("x", {})), EventObject(MakeNode("n", {})), true, QueueingHint::kQueue},
      {"node added with a tolerated taint", EventObject(), EventObject(MakeNode("n", {T("foo", "bar", "NoSchedule")})),
       false, QueueingHint::kQueue},
      {"node added with an untolerated taint", EventObject(),
       EventObject(MakeNode("n", {T("foo", "baz", "NoSchedule")})), false, QueueingHint::kQueueSkip},
      {"untolerated taint removed", EventObject(MakeNode("n", {T("foo", "baz", "NoSchedule")})),
       EventObject(MakeNode("n", {})), false, QueueingHint::kQueue},
      {"untolerated taint replaced by a tolerated one", EventObject(MakeNode("n", {T("foo", "baz", "NoSchedule")})),
       EventObject(MakeNode("n", {T("foo", "bar", "NoSchedule")})), false, QueueingHint::kQueue},
      {"tolerated before and after", EventObject(MakeNode("n", {T("foo", "bar", "NoSchedule")})),
       EventObject(MakeNode("n", {})), false, QueueingHint::kQueueSkip},
      {"still untolerated", EventObject(MakeNode("n", {T("foo", "baz", "NoSchedule")})),
       EventObject(MakeNode("n", {T("foo", "qux", "NoExecute")})), false, QueueingHint::kQueueSkip},
      {"PreferNoSchedule taints do not matter", EventObject(MakeNode("n", {T("foo", "baz", "NoSchedule")})),
       EventObject(MakeNode("n", {T("other", "x", "PreferNoSchedule")})), false, QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = TaintToleration::IsSchedulableAfterNodeChange(*pod, c.old_obj, c.new_obj);
    ASSERT_EQ(!got.ok(), c.want_error);
    if (got.ok()) {
      EXPECT_EQ(*got, c.want);
    }
  }
}

TEST(TaintTolerationTest, IsSchedulableAfterPodTolerationChange) {
  auto pod = MakePod("p", {});
  auto self = TaintToleration::IsSchedulableAfterPodTolerationChange(
      *pod, EventObject(pod), EventObject(MakePod("p", {Tol("foo", "Exists", "", "")})));
  ASSERT_TRUE(self.ok());
  EXPECT_EQ(*self, QueueingHint::kQueue);
  auto other = TaintToleration::IsSchedulableAfterPodTolerationChange(
      *pod, EventObject(MakePod("o", {})), EventObject(MakePod("o", {Tol("foo", "Exists", "", "")})));
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(*other, QueueingHint::kQueueSkip);
  EXPECT_FALSE(
      TaintToleration::IsSchedulableAfterPodTolerationChange(*pod, EventObject(), EventObject(MakeNode("n", {}))).ok());
}

// kube 1.37 gave TaintToleration a PreFilter that lets every node through.
TEST(TaintTolerationTest, PreFilterFromKube137) {
  EXPECT_EQ(dynamic_cast<framework::PreFilterPlugin*>(New(framework::FeatureGates::ForMinor(36)).get()), nullptr);
  auto pl = New(framework::FeatureGates::ForMinor(37));
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(pl.get());
  ASSERT_NE(pre, nullptr);
  EXPECT_EQ(pre->Name(), "TaintToleration");
  framework::CycleState state;
  api::Pod pod;
  auto [result, status] = pre->PreFilter(state, pod, {});
  EXPECT_TRUE(status.IsSuccess());
  EXPECT_TRUE(result.AllNodes());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::tainttoleration
