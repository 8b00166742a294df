#include "pkg/scheduler/plugins/nodeunschedulable/node_unschedulable.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pkg/scheduler/plugins/filter_nodes_test_util.h"

namespace ksched::scheduler::plugins::nodeunschedulable {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;

std::shared_ptr<const api::Node> MakeNode(bool unschedulable) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = "node";
  n->spec.unschedulable = unschedulable;
  return n;
}

std::shared_ptr<api::Pod> MakePod(const std::string& uid, std::vector<api::Toleration> tolerations = {}) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = "pod-" + uid;
  p->metadata.uid = uid;
  p->spec.tolerations = std::move(tolerations);
  return p;
}

api::Toleration Tol(std::string key, std::string op, std::string effect) {
  api::Toleration t;
  t.key = std::move(key);
  t.operator_ = std::move(op);
  t.effect = std::move(effect);
  return t;
}

TEST(NodeUnschedulableTest, Filter) {
  struct Case {
    const char* name;
    std::vector<api::Toleration> tolerations;
    bool unschedulable;
    Code want;
  };
  const Case cases[] = {
      {"schedulable node", {}, false, Code::kSuccess},
      {"unschedulable node", {}, true, Code::kUnschedulableAndUnresolvable},
      {"schedulable node, pod with toleration",
       {Tol("node.kubernetes.io/unschedulable", "Exists", "NoSchedule")},
       false,
       Code::kSuccess},
      {"unschedulable node, pod tolerates the taint",
       {Tol("node.kubernetes.io/unschedulable", "Exists", "NoSchedule")},
       true,
       Code::kSuccess},
      {"unschedulable node, pod tolerates everything", {Tol("", "Exists", "")}, true, Code::kSuccess},
      {"unschedulable node, toleration of another effect",
       {Tol("node.kubernetes.io/unschedulable", "Exists", "NoExecute")},
       true,
       Code::kUnschedulableAndUnresolvable},
      {"unschedulable node, toleration of another key",
       {Tol("foo", "Exists", "NoSchedule")},
       true,
       Code::kUnschedulableAndUnresolvable},
  };
  auto pl = New(framework::FeatureGates());
  EXPECT_EQ(pl->Name(), "NodeUnschedulable");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    framework::NodeInfo node_info(MakeNode(c.unschedulable));
    framework::CycleState state;
    framework::Status s = plugins::testing::FilterBothWays(*pl, state, *MakePod("u", c.tolerations), node_info);
    EXPECT_EQ(s.code(), c.want);
    if (c.want != Code::kSuccess) {
      ASSERT_EQ(s.reasons().size(), 1u);
      EXPECT_EQ(s.reasons()[0], "node(s) were unschedulable");
    }
  }
  framework::CycleState state;
  framework::NodeInfo ghost;
  EXPECT_EQ(plugins::testing::FilterBothWays(*pl, state, *MakePod("u"), ghost).code(), Code::kError);
}

TEST(NodeUnschedulableTest, EventsToRegister) {
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

TEST(NodeUnschedulableTest, IsSchedulableAfterNodeChange) {
  struct Case {
    const char* name;
    EventObject old_obj;
    EventObject new_obj;
    bool want_error;
    QueueingHint want;
  };
  const Case cases[] = {
      {"not a node", EventObject(), EventObject(MakePod("x")), true, QueueingHint::kQueue},
      {"old object not a node", EventObject(MakePod("x")), EventObject(MakeNode(false)), true, QueueingHint::kQueue},
      {"schedulable node added", EventObject(), EventObject(MakeNode(false)), false, QueueingHint::kQueue},
      {"unschedulable node added", EventObject(), EventObject(MakeNode(true)), false, QueueingHint::kQueueSkip},
      {"node became schedulable", EventObject(MakeNode(true)), EventObject(MakeNode(false)), false,
       QueueingHint::kQueue},
      {"node stayed schedulable", EventObject(MakeNode(false)), EventObject(MakeNode(false)), false,
       QueueingHint::kQueueSkip},
      {"node became unschedulable", EventObject(MakeNode(false)), EventObject(MakeNode(true)), false,
       QueueingHint::kQueueSkip},
  };
  auto pod = MakePod("u");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = NodeUnschedulable::IsSchedulableAfterNodeChange(*pod, c.old_obj, c.new_obj);
    ASSERT_EQ(!got.ok(), c.want_error);
    if (got.ok()) {
      EXPECT_EQ(*got, c.want);
    }
  }
}

TEST(NodeUnschedulableTest, IsSchedulableAfterPodTolerationChange) {
  auto pod = MakePod("u");
  const auto tolerating = Tol("node.kubernetes.io/unschedulable", "Exists", "NoSchedule");
  struct Case {
    const char* name;
    EventObject new_obj;
    bool want_error;
    QueueingHint want;
  };
  const Case cases[] = {
      {"not a pod", EventObject(MakeNode(false)), true, QueueingHint::kQueue},
      {"another pod gets the toleration", EventObject(MakePod("other", {tolerating})), false, QueueingHint::kQueueSkip},
      {"this pod gets the toleration", EventObject(MakePod("u", {tolerating})), false, QueueingHint::kQueue},
      {"this pod gets an unrelated toleration", EventObject(MakePod("u", {Tol("foo", "Exists", "NoSchedule")})), false,
       QueueingHint::kQueueSkip},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = NodeUnschedulable::IsSchedulableAfterPodTolerationChange(*pod, EventObject(pod), c.new_obj);
    ASSERT_EQ(!got.ok(), c.want_error);
    if (got.ok()) {
      EXPECT_EQ(*got, c.want);
    }
  }
}

// kube 1.37 gave NodeUnschedulable a PreFilter that lets every node through.
TEST(NodeUnschedulableTest, PreFilterFromKube137) {
  EXPECT_EQ(dynamic_cast<framework::PreFilterPlugin*>(New(framework::FeatureGates::ForMinor(36)).get()), nullptr);
  auto pl = New(framework::FeatureGates::ForMinor(37));
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(pl.get());
  ASSERT_NE(pre, nullptr);
  EXPECT_EQ(pre->Name(), "NodeUnschedulable");
  framework::CycleState state;
  api::Pod pod;
  auto [result, status] = pre->PreFilter(state, pod, {});
  EXPECT_TRUE(status.IsSuccess());
  EXPECT_TRUE(result.AllNodes());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodeunschedulable
