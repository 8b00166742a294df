#include "pkg/scheduler/plugins/nodename/node_name.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "pkg/scheduler/plugins/filter_nodes_test_util.h"

namespace ksched::scheduler::plugins::nodename {
namespace {

using framework::ActionType;
using framework::Code;

std::shared_ptr<const api::Node> MakeNode(const std::string& name) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = name;
  return n;
}

api::Pod MakePod(const std::string& node_name) {
  api::Pod p;
  p.metadata.name = "p";
  p.spec.node_name = node_name;
  return p;
}

TEST(NodeNameTest, Filter) {
  struct Case {
    const char* name;
    std::string pod_node;
    Code want;
  };
  const Case cases[] = {
      {"no host specified", "", Code::kSuccess},
      {"host matches", "foo", Code::kSuccess},
      {"host doesn't match", "bar", Code::kUnschedulableAndUnresolvable},
  };
  auto pl = New(framework::FeatureGates());
  EXPECT_EQ(pl->Name(), "NodeName");
  framework::NodeInfo node_info(MakeNode("foo"));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    framework::CycleState state;
    framework::Status s = plugins::testing::FilterBothWays(*pl, state, MakePod(c.pod_node), node_info);
    EXPECT_EQ(s.code(), c.want);
    if (c.want != Code::kSuccess) {
      ASSERT_EQ(s.reasons().size(), 1u);
      EXPECT_EQ(s.reasons()[0], "node(s) didn't match the requested node name");
    }
  }
}

TEST(NodeNameTest, FilterWithoutNodeIsError) {
  auto pl = New(framework::FeatureGates());
  framework::CycleState state;
  framework::NodeInfo ghost;
  EXPECT_EQ(plugins::testing::FilterBothWays(*pl, state, MakePod(""), ghost).code(), Code::kError);
}

TEST(NodeNameTest, ARunOfNodesForAPodThatNamesNone) {
  auto pl = New(framework::FeatureGates());
  framework::CycleState state;
  framework::NodeInfo foo(MakeNode("foo"));
  framework::NodeInfo bar(MakeNode("bar"));
  framework::NodeInfo ghost;
  const framework::Status untouched(Code::kUnschedulable, "untouched");

  // Every node has a Node: all pass, no status is written.
  std::array<const framework::NodeInfo*, 3> run = {&foo, &bar, &foo};
  std::array<framework::Status, 3> out = {untouched, untouched, untouched};
  uint64_t alive = 0b111;
  pl->FilterNodes(state, MakePod(""), run, &alive, out.data());
  EXPECT_EQ(alive, 0b111u);
  EXPECT_EQ(out[1], untouched);

  // A ghost among them is an error; the others still pass, and a node whose
  // bit is clear is not read.
  run = {&foo, &ghost, nullptr};
  out = {untouched, untouched, untouched};
  alive = 0b011;
  pl->FilterNodes(state, MakePod(""), run, &alive, out.data());
  EXPECT_EQ(alive, 0b001u);
  EXPECT_EQ(out[0], untouched);
  EXPECT_EQ(out[1].code(), Code::kError);
  EXPECT_EQ(out[2], untouched);
}

TEST(NodeNameTest, EventsToRegister) {
  {
    auto events = New(framework::FeatureGates())->EventsToRegister();
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 1u);
    EXPECT_EQ((*events)[0].event, framework::ClusterEvent(framework::resource::kNode, ActionType::kAdd));
    EXPECT_FALSE((*events)[0].queueing_hint_fn);
  }
  {
    framework::FeatureGates off;
    off.scheduler_queueing_hints = false;
    auto events = New(off)->EventsToRegister();
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 1u);
    EXPECT_EQ((*events)[0].event,
              framework::ClusterEvent(framework::resource::kNode,
                                      ActionType::kAdd | ActionType::kUpdateNodeTaint | ActionType::kUpdateNodeLabel));
    EXPECT_FALSE((*events)[0].queueing_hint_fn);
  }
}

// kube 1.37 gave NodeName a PreFilter that narrows Filter to spec.nodeName.
TEST(NodeNameTest, PreFilterFromKube137) {
  EXPECT_EQ(dynamic_cast<framework::PreFilterPlugin*>(New(framework::FeatureGates::ForMinor(36)).get()), nullptr);
  std::unique_ptr<NodeName> pl = New(framework::FeatureGates::ForMinor(37));
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(pl.get());
  ASSERT_NE(pre, nullptr);
  EXPECT_EQ(pre->Name(), "NodeName");
  framework::CycleState state;
  auto [named, s1] = pre->PreFilter(state, MakePod("n2"), {});
  EXPECT_TRUE(s1.IsSuccess());
  EXPECT_EQ(named, framework::PreFilterResult::Nodes({"n2"}));
  auto [any, s2] = pre->PreFilter(state, MakePod(""), {});
  EXPECT_TRUE(s2.IsSuccess());
  EXPECT_TRUE(any.AllNodes());
  EXPECT_EQ(pre->GetPreFilterExtensions(), nullptr);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodename
