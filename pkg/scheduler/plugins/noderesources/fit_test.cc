#include "pkg/scheduler/plugins/noderesources/fit.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "pkg/config/args_as.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/plugins/dynamicresources/dra_manager.h"
#include "pkg/scheduler/plugins/helper/other_args.h"
#include "pkg/scheduler/plugins/noderesources/test_util.h"
#include "pkg/scheduler/plugins/filter_nodes_test_util.h"
#include "pkg/scheduler/plugins/score_nodes_test_util.h"

namespace ksched::scheduler::plugins::noderesources {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using testing::MakeNode;
using testing::MakeNodeInfo;
using testing::MakePod;
using testing::Requests;

// kube's makeAllocatableResources(10, 20, 32, 5, 20, 5).
const Requests kNodeAllocatable = {
    {"cpu", "10m"},        {"memory", "20"}, {"pods", "32"}, {"example.com/aaa", "5"}, {"ephemeral-storage", "20"},
    {"hugepages-2Mi", "5"}};

Requests CpuMem(int milli_cpu, int memory) {
  return {{"cpu", std::to_string(milli_cpu) + "m"}, {"memory", std::to_string(memory)}};
}

std::unique_ptr<Fit> NewFitOrDie(NodeResourcesFitArgs args = {}) {
  auto pl = NewFit(args.scoring_strategy ? config::PluginArgs(args) : config::PluginArgs(std::monostate()),
                   framework::FeatureGates());
  EXPECT_TRUE(pl.ok()) << pl.status().ToString();
  return std::move(pl).value();
}

framework::Status RunFilter(Fit& pl, const api::Pod& pod, const framework::NodeInfo& node_info) {
  framework::CycleState state;
  auto [result, status] = pl.PreFilter(state, pod, {&node_info});
  EXPECT_TRUE(status.IsSuccess()) << status.ToString();
  EXPECT_TRUE(result.AllNodes());
  return plugins::testing::FilterBothWays(pl, state, pod, node_info);
}

TEST(FitTest, Filter) {
  struct Case {
    const char* name;
    std::shared_ptr<api::Pod> pod;
    std::vector<Requests> existing;  // one pod per entry
    std::vector<std::string> ignored_resources;
    std::vector<std::string> ignored_groups;
    Code want;
    std::vector<std::string> want_reasons;
  };
  const Case cases[] = {
      {"no resources requested always fits", MakePod("p", {}), {CpuMem(10, 20)}, {}, {}, Code::kSuccess, {}},
      {"too many resources fails",
       MakePod("p", {CpuMem(1, 1)}),
       {CpuMem(10, 20)},
       {},
       {},
       Code::kUnschedulable,
       {"Insufficient cpu", "Insufficient memory"}},
      {"too many resources fails due to init container cpu",
       MakePod("p", {CpuMem(1, 1)}, {CpuMem(3, 1)}),
       {CpuMem(8, 19)},
       {},
       {},
       Code::kUnschedulable,
       {"Insufficient cpu"}},
      {"too many resources fails due to highest init container cpu",
       MakePod("p", {CpuMem(1, 1)}, {CpuMem(3, 1), CpuMem(2, 1)}),
       {CpuMem(8, 19)},
       {},
       {},
       Code::kUnschedulable,
       {"Insufficient cpu"}},
      {"too many resources fails due to init container memory",
       MakePod("p", {CpuMem(1, 1)}, {CpuMem(1, 3)}),
       {CpuMem(9, 19)},
       {},
       {},
       Code::kUnschedulable,
       {"Insufficient memory"}},
      {"init container fits because it's the max, not sum, of containers and init containers",
       MakePod("p", {CpuMem(1, 1)}, {CpuMem(1, 1)}),
       {CpuMem(9, 19)},
       {},
       {},
       Code::kSuccess,
       {}},
      {"multiple init containers fit",
       MakePod("p", {CpuMem(1, 1)}, {CpuMem(1, 1), CpuMem(1, 1)}),
       {CpuMem(9, 19)},
       {},
       {},
       Code::kSuccess,
       {}},
      {"both resources fit", MakePod("p", {CpuMem(1, 1)}), {CpuMem(5, 5)}, {}, {}, Code::kSuccess, {}},
      {"one resource memory fits",
       MakePod("p", {CpuMem(2, 1)}),
       {CpuMem(9, 5)},
       {},
       {},
       Code::kUnschedulable,
       {"Insufficient cpu"}},
      {"one resource cpu fits",
       MakePod("p", {CpuMem(1, 2)}),
       {CpuMem(5, 19)},
       {},
       {},
       Code::kUnschedulable,
       {"Insufficient memory"}},
      {"equal edge case", MakePod("p", {CpuMem(5, 1)}), {CpuMem(5, 19)}, {}, {}, Code::kSuccess, {}},
      {"equal edge case for init container",
       MakePod("p", {CpuMem(4, 1)}, {CpuMem(5, 1)}),
       {CpuMem(5, 19)},
       {},
       {},
       Code::kSuccess,
       {}},
      {"request larger than the whole node is unresolvable",
       MakePod("p", {CpuMem(11, 1)}),
       {},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient cpu"}},
      {"extended resource fits", MakePod("p", {{{"example.com/aaa", "1"}}}), {}, {}, {}, Code::kSuccess, {}},
      {"extended resource fits for init container",
       MakePod("p", {}, {{{"example.com/aaa", "1"}}}),
       {},
       {},
       {},
       Code::kSuccess,
       {}},
      {"extended resource capacity enforced",
       MakePod("p", {{{"example.com/aaa", "10"}}}),
       {},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable enforced",
       MakePod("p", {{{"example.com/aaa", "1"}}}),
       {{{"example.com/aaa", "5"}}},
       {},
       {},
       Code::kUnschedulable,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable enforced for multiple containers",
       MakePod("p", {{{"example.com/aaa", "3"}}, {{"example.com/aaa", "3"}}}),
       {{{"example.com/aaa", "2"}}},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable admits multiple init containers",
       MakePod("p", {}, {{{"example.com/aaa", "3"}}, {{"example.com/aaa", "2"}}}),
       {{{"example.com/aaa", "2"}}},
       {},
       {},
       Code::kSuccess,
       {}},
      {"extended resource allocatable enforced for unknown resource",
       MakePod("p", {{{"example.com/bbb", "1"}}}),
       {},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient example.com/bbb"}},
      {"kubernetes.io resource capacity enforced",
       MakePod("p", {{{"kubernetes.io/something", "1"}}}),
       {},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient kubernetes.io/something"}},
      {"hugepages resource capacity enforced",
       MakePod("p", {{{"hugepages-2Mi", "10"}}}),
       {},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient hugepages-2Mi"}},
      {"hugepages resource allocatable enforced for multiple containers",
       MakePod("p", {{{"hugepages-2Mi", "3"}}, {{"hugepages-2Mi", "3"}}}),
       {{{"hugepages-2Mi", "2"}}},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient hugepages-2Mi"}},
      {"skip checking ignored extended resource",
       MakePod("p", {{{"example.com/bbb", "1"}}}),
       {},
       {"example.com/bbb"},
       {},
       Code::kSuccess,
       {}},
      {"skip checking ignored extended resource via resource groups",
       MakePod("p", {{{"example.com/bbb", "1"}}}),
       {},
       {},
       {"example.com"},
       Code::kSuccess,
       {}},
      {"ignored resource groups do not apply to prefixed native resources",
       MakePod("p", {{{"kubernetes.io/something", "1"}}}),
       {},
       {},
       {"kubernetes.io"},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient kubernetes.io/something"}},
      {"skip checking resource request with quantity zero",
       MakePod("p", {{{"example.com/bbb", "0"}}}),
       {},
       {},
       {},
       Code::kSuccess,
       {}},
      {"ephemeral storage enforced",
       MakePod("p", {{{"ephemeral-storage", "25"}}}),
       {{{"ephemeral-storage", "2"}}},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient ephemeral-storage"}},
      {"ephemeral storage fits",
       MakePod("p", {{{"ephemeral-storage", "10"}}}),
       {{{"ephemeral-storage", "2"}}},
       {},
       {},
       Code::kSuccess,
       {}},
      {"all insufficient resources are reported",
       MakePod("p", {{{"cpu", "2m"}, {"memory", "2"}, {"example.com/aaa", "1"}}}),
       {{{"cpu", "9m"}, {"memory", "19"}, {"example.com/aaa", "5"}}},
       {},
       {},
       Code::kUnschedulable,
       {"Insufficient cpu", "Insufficient memory", "Insufficient example.com/aaa"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeResourcesFitArgs args = *config::ArgsAs<NodeResourcesFitArgs>(config::PluginArgs());
    args.ignored_resources = c.ignored_resources;
    args.ignored_resource_groups = c.ignored_groups;
    auto pl = NewFitOrDie(args);
    std::vector<std::shared_ptr<api::Pod>> existing;
    for (size_t i = 0; i < c.existing.size(); ++i) {
      existing.push_back(MakePod("e" + std::to_string(i), {c.existing[i]}, {}, "node"));
    }
    framework::NodeInfo node_info = MakeNodeInfo(MakeNode("node", kNodeAllocatable), existing);
    framework::Status s = RunFilter(*pl, *c.pod, node_info);
    EXPECT_EQ(s.code(), c.want) << s.ToString();
    EXPECT_EQ(s.reasons(), c.want_reasons);
  }
}

TEST(FitTest, PodOverhead) {
  auto pl = NewFitOrDie();
  framework::NodeInfo node_info =
      MakeNodeInfo(MakeNode("node", kNodeAllocatable), {MakePod("e", {CpuMem(5, 5)}, {}, "node")});
  auto fits = MakePod("p", {CpuMem(1, 1)});
  fits->spec.overhead = testing::ToResourceList(CpuMem(3, 13));
  EXPECT_TRUE(RunFilter(*pl, *fits, node_info).IsSuccess());

  auto too_big = MakePod("p", {CpuMem(1, 1)});
  too_big->spec.overhead = testing::ToResourceList(CpuMem(1, 15));
  framework::Status s = RunFilter(*pl, *too_big, node_info);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"Insufficient memory"});
}

// Pod-level requests replace the containers' (kube's "pod-level resources"
// Filter cases); a bound pod's resize counts what it holds.
TEST(FitTest, PodLevelRequestsAndResizedPods) {
  auto pl = NewFitOrDie();
  framework::NodeInfo node_info =
      MakeNodeInfo(MakeNode("node", kNodeAllocatable), {MakePod("e", {CpuMem(5, 5)}, {}, "node")});
  auto small = MakePod("p", {CpuMem(1, 1)});
  small->spec.resources.emplace();
  small->spec.resources->requests = testing::ToResourceList({{"cpu", "6m"}});
  framework::Status s = RunFilter(*pl, *small, node_info);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"Insufficient cpu"});
  small->spec.resources->requests = testing::ToResourceList({{"cpu", "5m"}, {"memory", "15"}});
  EXPECT_TRUE(RunFilter(*pl, *small, node_info).IsSuccess());
  // Only cpu, memory and hugepages are read at pod level.
  small->spec.resources->requests = testing::ToResourceList({{"example.com/aaa", "9"}});
  EXPECT_TRUE(RunFilter(*pl, *small, node_info).IsSuccess());

  // e's container status reports 8m (a resize down not yet applied): the
  // node has 2m left.
  auto resized = MakePod("e", {CpuMem(5, 5)}, {}, "node");
  api::ContainerStatus cs;
  cs.name = resized->spec.containers[0].name;
  cs.resources.emplace();
  cs.resources->requests = testing::ToResourceList({{"cpu", "8m"}});
  resized->status.container_statuses.push_back(cs);
  framework::NodeInfo held = MakeNodeInfo(MakeNode("node", kNodeAllocatable), {resized});
  EXPECT_EQ(RunFilter(*pl, *MakePod("p", {CpuMem(3, 1)}), held).reasons(), std::vector<std::string>{"Insufficient cpu"});
  EXPECT_TRUE(RunFilter(*pl, *MakePod("p", {CpuMem(2, 1)}), held).IsSuccess());
  // Its resize applied: a scale-down event the pending pod's hint queues on.
  auto applied = std::make_shared<api::Pod>(*resized);
  applied->status.container_statuses[0].resources->requests = testing::ToResourceList({{"cpu", "5m"}});
  auto hint = pl->IsSchedulableAfterPodEvent(*MakePod("p", {CpuMem(3, 1)}), EventObject(resized), EventObject(applied));
  ASSERT_TRUE(hint.ok());
  EXPECT_EQ(*hint, QueueingHint::kQueue);
  hint = pl->IsSchedulableAfterPodEvent(*MakePod("p", {CpuMem(3, 1)}), EventObject(applied), EventObject(resized));
  ASSERT_TRUE(hint.ok());
  EXPECT_EQ(*hint, QueueingHint::kQueueSkip);
}

TEST(FitTest, TooManyPods) {
  auto pl = NewFitOrDie();
  framework::NodeInfo node_info = MakeNodeInfo(MakeNode("node", {{"cpu", "10m"}, {"memory", "20"}, {"pods", "1"}}),
                                               {MakePod("e", {CpuMem(0, 0)}, {}, "node")});
  framework::Status s = RunFilter(*pl, *MakePod("p", {}), node_info);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"Too many pods"});

  s = RunFilter(*pl, *MakePod("p", {CpuMem(1, 1)}), node_info);
  EXPECT_EQ(s.reasons(), (std::vector<std::string>{"Too many pods"}));

  s = RunFilter(*pl, *MakePod("p", {CpuMem(11, 1)}), node_info);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.reasons(), (std::vector<std::string>{"Too many pods", "Insufficient cpu"}));

  // A node that lists no pod capacity takes no pods.
  framework::NodeInfo no_pods = MakeNodeInfo(MakeNode("node", {{"cpu", "10m"}}));
  EXPECT_EQ(RunFilter(*pl, *MakePod("p", {}), no_pods).reasons(), std::vector<std::string>{"Too many pods"});
}

// FilterNodes' answer for one node, as the framework asks for it.
bool FilterNodesPasses(Fit& pl, framework::CycleState& state, const api::Pod& pod, const framework::NodeInfo& node) {
  const framework::NodeInfo* run[] = {&node};
  uint64_t alive = 1;
  framework::Status out[1];
  pl.FilterNodes(state, pod, run, &alive, out);
  return alive == 1;
}

TEST(FitTest, TheMemoAnswersOnlyForItsPodShapeAndNodeState) {
  auto pl = NewFitOrDie();
  framework::NodeInfo node = MakeNodeInfo(MakeNode("n1", {{"cpu", "4"}, {"memory", "4Gi"}, {"pods", "10"}}));
  const framework::NodeInfoList list = {&node};
  auto small = MakePod("small", {CpuMem(3000, 1024)});
  auto big = MakePod("big", {CpuMem(5000, 1024)});

  framework::CycleState small_state;
  ASSERT_TRUE(pl->PreFilter(small_state, *small, list).second.IsSuccess());
  const framework::NodeMemoRef small_memo = small_state.FilterResourceMemo();
  ASSERT_NE(small_memo.key, 0u);
  EXPECT_EQ(small_memo.slot, framework::NodeMemo::kNodeResourcesFit);
  EXPECT_TRUE(FilterNodesPasses(*pl, small_state, *small, node));
  EXPECT_EQ(node.memo().Get(small_memo.slot, small_memo.key), 0x80);  // fits, score not known yet
  ASSERT_TRUE(pl->PreScore(small_state, *small, list).IsSuccess());
  const int64_t small_score = plugins::testing::ScoreNodesOf(*pl, small_state, *small, list)[0];
  EXPECT_EQ(node.memo().Get(small_memo.slot, small_memo.key), 0x80 | (small_score + 1));

  // An alike pod (another cycle) gets the same key; another shape another
  // key, and the node's own answer.
  framework::CycleState again;
  ASSERT_TRUE(pl->PreFilter(again, *MakePod("small-2", {CpuMem(3000, 1024)}), list).second.IsSuccess());
  EXPECT_EQ(again.FilterResourceMemo().key, small_memo.key);
  framework::CycleState big_state;
  ASSERT_TRUE(pl->PreFilter(big_state, *big, list).second.IsSuccess());
  EXPECT_NE(big_state.FilterResourceMemo().key, small_memo.key);
  EXPECT_FALSE(FilterNodesPasses(*pl, big_state, *big, node));
  EXPECT_FALSE(big_state.FilterResourceMemo().Answers(node.memo()));

  // The answers are read from the memo: one planted there is taken as is.
  node.memo().Set(small_memo.slot, small_memo.key, 0x80 | (42 + 1));
  EXPECT_EQ(plugins::testing::ScoreNodesOf(*pl, small_state, *small, list), std::vector<int64_t>{42});

  // Once the node changes, they are computed again: with 2 cpus taken, the
  // small pod no longer fits.
  node.AddPod(MakePod("taken", {CpuMem(2000, 0)}, {}, "n1"));
  EXPECT_FALSE(small_memo.Answers(node.memo()));
  EXPECT_FALSE(FilterNodesPasses(*pl, small_state, *small, node));
  EXPECT_FALSE(pl->Filter(small_state, *small, node).IsSuccess());
  EXPECT_FALSE(small_memo.Answers(node.memo()));  // a rejection is not kept

  // A pod requesting a scalar resource keeps no memo.
  framework::CycleState scalar_state;
  ASSERT_TRUE(pl->PreFilter(scalar_state, *MakePod("gpu", {{{"example.com/gpu", "1"}}}), list).second.IsSuccess());
  EXPECT_EQ(scalar_state.FilterResourceMemo().key, 0u);
}

TEST(FitTest, FilterWithoutPreFilterIsError) {
  auto pl = NewFitOrDie();
  framework::CycleState state;
  framework::NodeInfo node_info = MakeNodeInfo(MakeNode("node", kNodeAllocatable));
  framework::Status s = pl->Filter(state, *MakePod("p", {}), node_info);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "error reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
}

TEST(FitTest, FitsHelper) {
  framework::NodeInfo node_info = MakeNodeInfo(MakeNode("node", kNodeAllocatable));
  EXPECT_TRUE(Fits(*MakePod("p", {CpuMem(10, 20)}), node_info).empty());
  std::vector<InsufficientResource> got = Fits(*MakePod("p", {CpuMem(11, 2)}), node_info);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].resource_name, "cpu");
  EXPECT_EQ(got[0].reason, "Insufficient cpu");
  EXPECT_EQ(got[0].requested, 11);
  EXPECT_EQ(got[0].used, 0);
  EXPECT_EQ(got[0].capacity, 10);
  EXPECT_TRUE(got[0].unresolvable);
}

TEST(FitTest, NewFitRejectsBadArgs) {
  NodeResourcesFitArgs bad = *config::ArgsAs<NodeResourcesFitArgs>(config::PluginArgs());
  bad.scoring_strategy->resources = {{"memory", -1}, {"cpu", 1}};
  auto got = NewFit(bad, framework::FeatureGates());
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("scoringStrategy.resources[0].weight"), std::string::npos)
      << got.status().message();

  auto wrong_type = NewFit(helper::OtherArgs{}, framework::FeatureGates());
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_EQ(wrong_type.status().message(), "want args to be of type NodeResourcesFitArgs, got OtherArgs");
}

TEST(FitTest, EventsToRegister) {
  struct Case {
    const char* name;
    FitOptions options;
    ActionType pod_actions;
    ActionType node_actions;
  };
  const Case cases[] = {
      {"hints and in-place resize",
       {true, true},
       ActionType::kDelete | ActionType::kUpdatePodScaleDown,
       ActionType::kAdd | ActionType::kUpdateNodeAllocatable},
      {"hints, no in-place resize",
       {false, true},
       ActionType::kDelete,
       ActionType::kAdd | ActionType::kUpdateNodeAllocatable},
      {"no hints",
       {true, false},
       ActionType::kDelete | ActionType::kUpdatePodScaleDown,
       ActionType::kAdd | ActionType::kUpdateNodeAllocatable | ActionType::kUpdateNodeTaint |
           ActionType::kUpdateNodeLabel},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Fit pl(*config::ArgsAs<NodeResourcesFitArgs>(config::PluginArgs()), c.options);
    auto events = pl.EventsToRegister();
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 2u);
    EXPECT_EQ((*events)[0].event, ClusterEvent(framework::resource::kPod, c.pod_actions));
    EXPECT_TRUE((*events)[0].queueing_hint_fn);
    EXPECT_EQ((*events)[1].event, ClusterEvent(framework::resource::kNode, c.node_actions));
    EXPECT_TRUE((*events)[1].queueing_hint_fn);
  }
  framework::FeatureGates off;
  off.scheduler_queueing_hints = false;
  auto from_gates = NewFit(std::monostate(), off);
  ASSERT_TRUE(from_gates.ok());
  auto events = (*from_gates)->EventsToRegister();
  ASSERT_TRUE(events.ok());
  EXPECT_EQ((*events)[1].event.action_type, ActionType::kAdd | ActionType::kUpdateNodeAllocatable |
                                                ActionType::kUpdateNodeTaint | ActionType::kUpdateNodeLabel);
}

TEST(FitTest, IsSchedulableAfterPodEvent) {
  auto target = MakePod("target", {{{"cpu", "1"}, {"example.com/aaa", "1"}}});
  auto assigned = [](std::shared_ptr<api::Pod> p) {
    p->spec.node_name = "node";
    return p;
  };
  auto nominated = MakePod("d", {{{"cpu", "1"}}});
  nominated->status.nominated_node_name = "node";
  struct Case {
    const char* name;
    bool in_place;
    EventObject old_obj;
    EventObject new_obj;
    bool want_error;
    QueueingHint want;
  };
  const Case cases[] = {
      {"wrong object", true, EventObject(MakeNode("n", {})), EventObject(), true, QueueingHint::kQueue},
      {"no object", true, EventObject(), EventObject(), true, QueueingHint::kQueue},
      {"unassigned pod deleted", true, EventObject(MakePod("d", {{{"cpu", "1"}}})), EventObject(), false,
       QueueingHint::kQueueSkip},
      {"assigned pod deleted", true, EventObject(assigned(MakePod("d", {{{"cpu", "1"}}}))), EventObject(), false,
       QueueingHint::kQueue},
      {"nominated pod deleted", true, EventObject(nominated), EventObject(), false, QueueingHint::kQueue},
      {"the target itself scaled down", true, EventObject(MakePod("target", {{{"cpu", "2"}}})), EventObject(target),
       false, QueueingHint::kQueue},
      {"unassigned pod scaled down", true, EventObject(MakePod("o", {{{"cpu", "2"}}})),
       EventObject(MakePod("o", {{{"cpu", "1"}}})), false, QueueingHint::kQueueSkip},
      {"assigned pod released cpu", true, EventObject(assigned(MakePod("o", {{{"cpu", "2"}}}))),
       EventObject(assigned(MakePod("o", {{{"cpu", "1"}}}))), false, QueueingHint::kQueue},
      {"assigned pod released an extended resource the target requests", true,
       EventObject(assigned(MakePod("o", {{{"example.com/aaa", "2"}}}))),
       EventObject(assigned(MakePod("o", {{{"example.com/aaa", "1"}}}))), false, QueueingHint::kQueue},
      {"assigned pod released memory the target does not request", true,
       EventObject(assigned(MakePod("o", {{{"memory", "2"}}}))),
       EventObject(assigned(MakePod("o", {{{"memory", "1"}}}))), false, QueueingHint::kQueueSkip},
      {"scale down without in-place resize", false, EventObject(assigned(MakePod("o", {{{"cpu", "2"}}}))),
       EventObject(assigned(MakePod("o", {{{"cpu", "1"}}}))), false, QueueingHint::kQueueSkip},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FitOptions options;
    options.enable_in_place_pod_vertical_scaling = c.in_place;
    Fit pl(*config::ArgsAs<NodeResourcesFitArgs>(config::PluginArgs()), options);
    auto got = pl.IsSchedulableAfterPodEvent(*target, c.old_obj, c.new_obj);
    ASSERT_EQ(!got.ok(), c.want_error);
    if (got.ok()) {
      EXPECT_EQ(*got, c.want);
    }
    // The registered hint is the same function.
    auto events = pl.EventsToRegister();
    ASSERT_TRUE(events.ok());
    auto via_registration = (*events)[0].queueing_hint_fn(*target, c.old_obj, c.new_obj);
    ASSERT_EQ(via_registration.ok(), got.ok());
    if (got.ok()) {
      EXPECT_EQ(*via_registration, *got);
    }
  }
}

TEST(FitTest, IsSchedulableAfterNodeChange) {
  auto pod = MakePod("p", {{{"cpu", "1"}}});
  auto node = [](const std::string& cpu, const std::string& memory, const std::string& pods) {
    return EventObject(MakeNode("n", {{"cpu", cpu}, {"memory", memory}, {"pods", pods}}));
  };
  struct Case {
    const char* name;
    std::shared_ptr<api::Pod> pod;
    EventObject old_obj;
    EventObject new_obj;
    bool want_error;
    QueueingHint want;
  };
  const Case cases[] = {
      {"wrong new object", pod, EventObject(), EventObject(MakePod("x", {})), true, QueueingHint::kQueue},
      {"wrong old object", pod, EventObject(MakePod("x", {})), node("1", "1", "32"), true, QueueingHint::kQueue},
      {"node added that fits", pod, EventObject(), node("1", "1", "32"), false, QueueingHint::kQueue},
      {"node added without enough cpu", pod, EventObject(), node("500m", "1", "32"), false, QueueingHint::kQueueSkip},
      {"node added without pod capacity", pod, EventObject(), node("1", "1", "0"), false, QueueingHint::kQueueSkip},
      {"requested resource grew", pod, node("1", "1", "32"), node("2", "1", "32"), false, QueueingHint::kQueue},
      {"unrequested resource grew", pod, node("1", "1", "32"), node("1", "2", "32"), false, QueueingHint::kQueueSkip},
      {"pod capacity grew", pod, node("1", "1", "32"), node("1", "1", "33"), false, QueueingHint::kQueue},
      {"node became too small", pod, node("1", "1", "32"), node("500m", "1", "32"), false, QueueingHint::kQueueSkip},
      {"node became big enough", pod, node("500m", "1", "32"), node("1", "1", "32"), false, QueueingHint::kQueue},
      {"pod without requests, unrelated update", MakePod("e", {}), node("1", "1", "32"), node("2", "1", "32"), false,
       QueueingHint::kQueueSkip},
      {"extended resource grew", MakePod("g", {{{"example.com/gpu", "1"}}}),
       EventObject(MakeNode("n", {{"pods", "32"}, {"example.com/gpu", "1"}})),
       EventObject(MakeNode("n", {{"pods", "32"}, {"example.com/gpu", "2"}})), false, QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = Fit::IsSchedulableAfterNodeChange(*c.pod, c.old_obj, c.new_obj);
    ASSERT_EQ(!got.ok(), c.want_error);
    if (got.ok()) {
      EXPECT_EQ(*got, c.want);
    }
  }
}

// ---------------------------------------------------------------- DRAExtendedResource

std::shared_ptr<const api::DeviceClass> GpuClass(std::optional<std::string> extended = "example.com/gpu") {
  auto c = std::make_shared<api::DeviceClass>();
  c->metadata.name = "gpu";
  c->spec.extended_resource_name = std::move(extended);
  return c;
}

std::unique_ptr<Fit> NewDraFit(const framework::SharedListers& listers, bool gate = true,
                               const config::PluginArgs& args = std::monostate()) {
  framework::FeatureGates features;
  features.dra_extended_resource = gate;
  auto pl = NewFit(args, features, dra::NewSharedDRAManager(listers, features));
  EXPECT_TRUE(pl.ok()) << pl.status().ToString();
  return std::move(pl).value();
}

TEST(FitTest, DraExtendedResourceDelegation) {
  framework::InMemorySharedListers listers;
  listers.device_classes.Set(GpuClass());
  auto pod = MakePod("p", {{{"cpu", "1m"}, {"example.com/gpu", "2"}}});
  auto implicit_pod = MakePod("q", {{{"deviceclass.resource.kubernetes.io/gpu", "1"}}});
  auto unmapped_pod = MakePod("r", {{{"example.com/other", "1"}}});
  auto without = MakeNodeInfo(MakeNode("a", {{"cpu", "1"}, {"memory", "1Gi"}, {"pods", "10"}}));
  auto zero = MakeNodeInfo(MakeNode("b", {{"cpu", "1"}, {"memory", "1Gi"}, {"pods", "10"}, {"example.com/gpu", "0"}}));
  auto device_plugin =
      MakeNodeInfo(MakeNode("c", {{"cpu", "1"}, {"memory", "1Gi"}, {"pods", "10"}, {"example.com/gpu", "1"}}));

  auto pl = NewDraFit(listers);
  // Not advertised (absent or zero): DynamicResources decides.
  EXPECT_TRUE(RunFilter(*pl, *pod, without).IsSuccess());
  EXPECT_TRUE(RunFilter(*pl, *pod, zero).IsSuccess());
  EXPECT_TRUE(RunFilter(*pl, *implicit_pod, without).IsSuccess());
  // Advertised by a device plugin: checked here, as without DRA.
  framework::Status s = RunFilter(*pl, *pod, device_plugin);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"Insufficient example.com/gpu"});
  // No class names it.
  EXPECT_EQ(RunFilter(*pl, *unmapped_pod, without).reasons(),
            std::vector<std::string>{"Insufficient example.com/other"});

  // Gate off: no delegation.
  auto off = NewDraFit(listers, /*gate=*/false);
  EXPECT_EQ(RunFilter(*off, *pod, without).reasons(), std::vector<std::string>{"Insufficient example.com/gpu"});
  // The class loses its name: no delegation either.
  listers.device_classes.Set(GpuClass(std::nullopt));
  EXPECT_EQ(RunFilter(*pl, *pod, without).reasons(), std::vector<std::string>{"Insufficient example.com/gpu"});
  EXPECT_TRUE(RunFilter(*pl, *implicit_pod, without).IsSuccess());
}

TEST(FitTest, DraExtendedResourceEventsAndHints) {
  framework::InMemorySharedListers listers;
  listers.device_classes.Set(GpuClass());
  auto pl = NewDraFit(listers);
  auto events = pl->EventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[2].event,
            ClusterEvent(framework::resource::kDeviceClass, ActionType::kAdd | ActionType::kUpdate));
  EXPECT_EQ(NewFitOrDie()->EventsToRegister()->size(), 2u);

  auto pod = MakePod("p", {{{"example.com/gpu", "1"}}});
  auto implicit_pod = MakePod("q", {{{"deviceclass.resource.kubernetes.io/gpu", "1"}}});
  // A node without the resource fits the pod once DRA serves it.
  EventObject plain(MakeNode("n", {{"pods", "32"}}));
  auto hint = [&](const EventObject& o, const EventObject& n) { return (*events)[1].queueing_hint_fn(*pod, o, n); };
  EXPECT_EQ(hint(EventObject(), plain).value(), QueueingHint::kQueue);
  EXPECT_EQ(hint(plain, EventObject(MakeNode("n", {{"pods", "32"}, {"cpu", "1"}}))).value(), QueueingHint::kQueue);
  EXPECT_EQ(Fit::IsSchedulableAfterNodeChange(*pod, EventObject(), plain).value(), QueueingHint::kQueueSkip);

  auto cls = [](std::string name, std::optional<std::string> extended) {
    auto c = std::make_shared<api::DeviceClass>();
    c->metadata.name = std::move(name);
    c->spec.extended_resource_name = std::move(extended);
    return EventObject(std::shared_ptr<const api::DeviceClass>(c));
  };
  auto class_hint = [&](const api::Pod& p, const EventObject& o, const EventObject& n) {
    return Fit::IsSchedulableAfterDeviceClassEvent(p, o, n).value();
  };
  EXPECT_EQ(class_hint(*pod, EventObject(), cls("gpu", "example.com/gpu")), QueueingHint::kQueue);
  EXPECT_EQ(class_hint(*pod, EventObject(), cls("gpu", "example.com/other")), QueueingHint::kQueueSkip);
  EXPECT_EQ(class_hint(*implicit_pod, EventObject(), cls("gpu", std::nullopt)), QueueingHint::kQueue);
  EXPECT_EQ(class_hint(*implicit_pod, EventObject(), cls("tpu", std::nullopt)), QueueingHint::kQueueSkip);
  EXPECT_EQ(class_hint(*pod, cls("gpu", std::nullopt), cls("gpu", "example.com/gpu")), QueueingHint::kQueue);
  EXPECT_EQ(class_hint(*pod, cls("gpu", "example.com/gpu"), cls("gpu", "example.com/gpu")),
            QueueingHint::kQueueSkip);
  // An update never changes the implicit name.
  EXPECT_EQ(class_hint(*implicit_pod, cls("gpu", std::nullopt), cls("gpu", "example.com/x")),
            QueueingHint::kQueueSkip);
  EXPECT_FALSE(Fit::IsSchedulableAfterDeviceClassEvent(*pod, EventObject(), EventObject(MakePod("x", {}))).ok());
}

// ---------------------------------------------------------------- scoring

const std::vector<ResourceSpec> kDefaultResources = {{"cpu", 1}, {"memory", 1}};
const std::vector<ResourceSpec> kExtendedResources = {{"cpu", 1}, {"memory", 1}, {"abc.com/xyz", 1}};

struct ScoreCase {
  const char* name;
  std::shared_ptr<api::Pod> pod;
  std::vector<std::shared_ptr<const api::Node>> nodes;
  std::vector<std::shared_ptr<api::Pod>> existing;  // spec.node_name says where
  std::vector<ResourceSpec> resources;
  std::vector<int64_t> want;
};

// Whether Fit keeps the case's answers in the nodes' memo: only cpu,
// memory and ephemeral storage scored, and no scalar resource requested.
bool KeepsAMemo(const ScoreCase& c) {
  for (const ResourceSpec& r : c.resources) {
    if (r.name != "cpu" && r.name != "memory" && r.name != "ephemeral-storage") return false;
  }
  return ComputePodResourceRequest(*c.pod).scalar_resources.empty();
}

void RunScoreCases(const std::string& strategy, const std::vector<config::UtilizationShapePoint>* shape,
                   const std::vector<ScoreCase>& cases) {
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    NodeResourcesFitArgs args;
    args.scoring_strategy = ScoringStrategy{strategy, c.resources, std::nullopt};
    if (shape != nullptr)
      args.scoring_strategy->requested_to_capacity_ratio = RequestedToCapacityRatioParam{*shape};
    auto pl = NewFit(args, framework::FeatureGates());
    ASSERT_TRUE(pl.ok()) << pl.status().ToString();
    std::vector<framework::NodeInfo> infos;
    for (const auto& n : c.nodes) {
      std::vector<std::shared_ptr<api::Pod>> pods;
      for (const auto& p : c.existing) {
        if (p->spec.node_name == n->metadata.name) pods.push_back(p);
      }
      infos.push_back(MakeNodeInfo(n, pods));
    }
    framework::NodeInfoList list;
    for (const auto& ni : infos) list.push_back(&ni);
    framework::CycleState state;
    ASSERT_TRUE((*pl)->PreScore(state, *c.pod, list).IsSuccess());
    std::vector<int64_t> got;
    for (const auto& ni : infos) {
      auto [score, status] = (*pl)->Score(state, *c.pod, ni);
      EXPECT_TRUE(status.IsSuccess()) << status.ToString();
      got.push_back(score);
    }
    EXPECT_EQ(got, c.want);
    EXPECT_EQ(plugins::testing::ScoreNodesOf(**pl, state, *c.pod, list), c.want);
    // Score falls back to computing the requests when PreScore did not run.
    framework::CycleState no_prescore;
    std::vector<int64_t> fallback;
    for (const auto& ni : infos) fallback.push_back((*pl)->Score(no_prescore, *c.pod, ni).first);
    EXPECT_EQ(fallback, c.want);
    EXPECT_EQ(plugins::testing::ScoreNodesOf(**pl, no_prescore, *c.pod, list), c.want);
    // After PreFilter, ScoreNodes keeps the scores in the nodes' memo (when
    // every scored resource is a field) and reads them back the next time.
    framework::CycleState with_prefilter;
    ASSERT_TRUE((*pl)->PreFilter(with_prefilter, *c.pod, list).second.IsSuccess());
    ASSERT_TRUE((*pl)->PreScore(with_prefilter, *c.pod, list).IsSuccess());
    const framework::NodeMemoRef memo = with_prefilter.FilterResourceMemo();
    EXPECT_EQ(memo.key != 0, KeepsAMemo(c));
    EXPECT_EQ(plugins::testing::ScoreNodesOf(**pl, with_prefilter, *c.pod, list), c.want);
    for (size_t i = 0; memo.key != 0 && i < infos.size(); ++i) {
      EXPECT_EQ(infos[i].memo().Get(memo.slot, memo.key), 0x80 | (c.want[i] + 1)) << "node " << i;
    }
    EXPECT_EQ(plugins::testing::ScoreNodesOf(**pl, with_prefilter, *c.pod, list), c.want);
  }
}


std::shared_ptr<const api::Node> Node(const std::string& name, const std::string& cpu, const std::string& memory,
                                      Requests extra = {}) {
  extra["cpu"] = cpu;
  extra["memory"] = memory;
  return MakeNode(name, extra);
}

std::shared_ptr<api::Pod> OnNode(const std::string& node, Requests requests) {
  static int n = 0;
  return MakePod("existing-" + std::to_string(++n), {std::move(requests)}, {}, node);
}

// A pod without containers: no requests at all, and no non-zero defaults
// either.
std::shared_ptr<api::Pod> EmptyPod() { return MakePod("empty", {}); }
std::shared_ptr<api::Pod> Requesting3000And5000() {
  return MakePod("p", {{{"cpu", "1000"}, {"memory", "2000"}}, {{"cpu", "2000"}, {"memory", "3000"}}});
}

TEST(FitScoreTest, LeastAllocated) {
  RunScoreCases(
      kLeastAllocated, nullptr,
      {
          {"nothing scheduled, nothing requested",
           EmptyPod(),
           {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
           {},
           kDefaultResources,
           {100, 100}},
          // node1: cpu (4000-3000)*100/4000 = 25, memory 50 -> 37; node2: 50, 50 -> 50.
          {"nothing scheduled, resources requested, differently sized nodes",
           Requesting3000And5000(),
           {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
           {},
           kDefaultResources,
           {37, 50}},
          {"no resources requested, pods scheduled",
           EmptyPod(),
           {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
           {MakePod("a", {}, {}, "node1"), MakePod("b", {}, {}, "node2")},
           kDefaultResources,
           {100, 100}},
          // node1: cpu 40, memory 100 -> 70; node2: cpu 40, memory 75 -> 57.
          {"no resources requested, pods scheduled with resources",
           EmptyPod(),
           {Node("node1", "10000", "20000"), Node("node2", "10000", "20000")},
           {OnNode("node1", {{"cpu", "3000"}, {"memory", "0"}}), OnNode("node1", {{"cpu", "3000"}, {"memory", "0"}}),
            OnNode("node2", {{"cpu", "3000"}, {"memory", "0"}}),
            OnNode("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
           kDefaultResources,
           {70, 57}},
          // node1: cpu 40, memory 75 -> 57; node2: cpu 40, memory 50 -> 45.
          {"resources requested, pods scheduled with resources",
           Requesting3000And5000(),
           {Node("node1", "10000", "20000"), Node("node2", "10000", "20000")},
           {OnNode("node1", {{"cpu", "3000"}, {"memory", "0"}}),
            OnNode("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
           kDefaultResources,
           {57, 45}},
          // node1: cpu over capacity -> 0, memory 100 -> 50; node2: 0, 50 -> 25.
          {"requested resources exceed node capacity",
           MakePod("p", {{{"cpu", "3000"}, {"memory", "0"}}}),
           {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
           {OnNode("node1", {{"cpu", "3000"}, {"memory", "0"}}),
            OnNode("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
           kDefaultResources,
           {50, 25}},
          {"zero node resources, pods scheduled with resources",
           EmptyPod(),
           {MakeNode("node1", {}), MakeNode("node2", {})},
           {OnNode("node1", {{"cpu", "3000"}, {"memory", "0"}}),
            OnNode("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
           kDefaultResources,
           {0, 0}},
          // node1: (25*1 + 50*2) / 3 = 41; node2: (50 + 100) / 3 = 50.
          {"different weights on cpu and memory",
           Requesting3000And5000(),
           {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
           {},
           {{"memory", 2}, {"cpu", 1}},
           {41, 50}},
          // The pod does not request abc.com/xyz, so node2's supply of it is ignored.
          {"bypass extended resource if the pod does not request",
           Requesting3000And5000(),
           {Node("node1", "6000", "10000"), Node("node2", "6000", "10000", {{"abc.com/xyz", "4"}})},
           {},
           kExtendedResources,
           {50, 50}},
          // node1: (50 + 50 + 50) / 3; node2: (50 + 50 + 80) / 3 = 60.
          {"honor extended resource if the pod requests",
           MakePod("p", {{{"cpu", "3000"}, {"memory", "5000"}, {"abc.com/xyz", "2"}}}),
           {Node("node1", "6000", "10000", {{"abc.com/xyz", "4"}}),
            Node("node2", "6000", "10000", {{"abc.com/xyz", "10"}})},
           {},
           kExtendedResources,
           {50, 60}},
          // abc.com/xyz is absent from node1 and not requested: (50 + 60) / 2.
          {"if the node doesn't have a resource",
           MakePod("p", {{{"cpu", "3000"}, {"memory", "4000"}}}),
           {Node("node1", "6000", "10000"), Node("node2", "6000", "10000", {{"abc.com/xyz", "4"}})},
           {},
           {{"abc.com/xyz", 2}, {"cpu", 1}, {"memory", 1}},
           {55, 55}},
          // Containers without requests count 100m cpu and 200Mi memory:
          // cpu (1000-100)*100/1000 = 90, memory (1Gi-200Mi)*100/1Gi = 80 -> 85.
          {"non-zero defaults for containers without requests",
           MakePod("p", {{}}),
           {Node("node1", "1", "1Gi")},
           {},
           kDefaultResources,
           {85}},
      });
}

TEST(FitScoreTest, MostAllocated) {
  RunScoreCases(kMostAllocated, nullptr,
                {
                    {"nothing scheduled, nothing requested",
                     EmptyPod(),
                     {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
                     {},
                     kDefaultResources,
                     {0, 0}},
                    // node1: cpu 75, memory 50 -> 62; node2: 50, 50 -> 50.
                    {"nothing scheduled, resources requested, differently sized nodes",
                     Requesting3000And5000(),
                     {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                     {},
                     kDefaultResources,
                     {62, 50}},
                    // node1: cpu 60, memory 25 -> 42; node2: cpu 60, memory 50 -> 55.
                    {"resources requested, pods scheduled with resources",
                     Requesting3000And5000(),
                     {Node("node1", "10000", "20000"), Node("node2", "10000", "20000")},
                     {OnNode("node1", {{"cpu", "3000"}, {"memory", "0"}}),
                      OnNode("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
                     kDefaultResources,
                     {42, 55}},
                    // node1: (75*1 + 50*2) / 3 = 58; node2: (50 + 100) / 3 = 50.
                    {"different weights on cpu and memory",
                     Requesting3000And5000(),
                     {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                     {},
                     {{"memory", 2}, {"cpu", 1}},
                     {58, 50}},
                    // Over capacity is capped: node1 cpu 100, memory 50 -> 75.
                    {"requested resources exceed node capacity",
                     MakePod("p", {{{"cpu", "5000"}, {"memory", "5000"}}}),
                     {Node("node1", "4000", "10000")},
                     {},
                     kDefaultResources,
                     {75}},
                    // node1: (50 + 50 + 50) / 3; node2: (50 + 50 + 20) / 3 = 40.
                    {"honor extended resource if the pod requests",
                     MakePod("p", {{{"cpu", "3000"}, {"memory", "5000"}, {"abc.com/xyz", "2"}}}),
                     {Node("node1", "6000", "10000", {{"abc.com/xyz", "4"}}),
                      Node("node2", "6000", "10000", {{"abc.com/xyz", "10"}})},
                     {},
                     kExtendedResources,
                     {50, 40}},
                });
}

TEST(FitScoreTest, RequestedToCapacityRatio) {
  const std::vector<config::UtilizationShapePoint> spread = {{0, 10}, {100, 0}};
  const std::vector<config::UtilizationShapePoint> pack = {{0, 0}, {100, 10}};
  RunScoreCases(kRequestedToCapacityRatio, &spread,
                {
                    {"nothing scheduled, nothing requested",
                     EmptyPod(),
                     {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
                     {},
                     kDefaultResources,
                     {100, 100}},
                    // node1: cpu 75% -> 25, memory 50% -> 50, round(37.5) = 38; node2: 50.
                    {"nothing scheduled, resources requested, differently sized nodes",
                     Requesting3000And5000(),
                     {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                     {},
                     kDefaultResources,
                     {38, 50}},
                    // Over capacity counts as 100% utilization, which scores 0 and is
                    // left out of the average: only memory (50%) counts.
                    {"over capacity",
                     MakePod("p", {{{"cpu", "5000"}, {"memory", "5000"}}}),
                     {Node("node1", "4000", "10000")},
                     {},
                     kDefaultResources,
                     {50}},
                });
  RunScoreCases(kRequestedToCapacityRatio, &pack,
                {
                    // node1: cpu 75, memory 50 -> round(62.5) = 63; node2: 50.
                    {"bin packing",
                     Requesting3000And5000(),
                     {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                     {},
                     kDefaultResources,
                     {63, 50}},
                    // abc.com/xyz weight 3: node1 (75 + 50 + 3*50) / 5 = 55;
                    // node2 (50 + 50 + 3*20) / 5 = 32.
                    {"extended resource with weight",
                     MakePod("p", {{{"cpu", "3000"}, {"memory", "5000"}, {"abc.com/xyz", "2"}}}),
                     {Node("node1", "4000", "10000", {{"abc.com/xyz", "4"}}),
                      Node("node2", "6000", "10000", {{"abc.com/xyz", "10"}})},
                     {},
                     {{"cpu", 1}, {"memory", 1}, {"abc.com/xyz", 3}},
                     {55, 32}},
                });
}

TEST(FitScoreTest, NoResourcesIsError) {
  NodeResourcesFitArgs args;
  args.scoring_strategy = ScoringStrategy{kLeastAllocated, {}, std::nullopt};
  Fit pl(args, FitOptions());
  framework::NodeInfo node_info = MakeNodeInfo(Node("node1", "4000", "10000"));
  framework::CycleState state;
  auto pod = Requesting3000And5000();
  ASSERT_TRUE(pl.PreScore(state, *pod, {&node_info}).IsSuccess());
  auto [score, status] = pl.Score(state, *pod, node_info);
  EXPECT_EQ(score, 0);
  EXPECT_EQ(status.code(), Code::kError);
  EXPECT_EQ(status.Message(), "resources not found");
}

TEST(FitScoreTest, DraExtendedResourceScoredOverTheNodesDevices) {
  framework::InMemorySharedListers listers;
  auto gpu = std::make_shared<api::DeviceClass>(*GpuClass());
  gpu->spec.selectors.push_back(api::DeviceSelector{api::CELDeviceSelector{"device.driver == \"gpu.example.com\""}});
  listers.device_classes.Set(gpu);
  listers.resource_slices.Set(testing::DeviceSlice("a", "gpu.example.com", "a", {"g0", "g1", "g2", "g3"}));
  listers.resource_slices.Set(testing::DeviceSlice("b-gpu", "gpu.example.com", "b", {"g0", "g1", "g2"}));
  listers.resource_slices.Set(testing::DeviceSlice("b-nic", "nic.example.com", "b", {"n0", "n1"}));
  listers.resource_slices.Set(testing::DeviceSlice("everywhere", "gpu.example.com", "", {"remote"}));
  listers.resource_claims.Set(testing::HeldClaim("held", "gpu.example.com", "a", "g1"));

  NodeResourcesFitArgs args;
  args.scoring_strategy = ScoringStrategy{kLeastAllocated, {{"example.com/gpu", 1}}, std::nullopt};
  auto pod = MakePod("p", {{{"example.com/gpu", "1"}}});
  std::vector<framework::NodeInfo> infos = {
      MakeNodeInfo(MakeNode("a", {{"pods", "10"}})),
      MakeNodeInfo(MakeNode("b", {{"pods", "10"}})),
      MakeNodeInfo(MakeNode("c", {{"pods", "10"}, {"example.com/gpu", "8"}})),  // a device plugin's
      MakeNodeInfo(MakeNode("d", {{"pods", "10"}})),
  };
  framework::NodeInfoList list;
  for (const auto& ni : infos) list.push_back(&ni);
  const auto scores = [&](Fit& pl, framework::CycleState& state) {
    std::vector<int64_t> got;
    for (const auto& ni : infos) {
      auto [score, status] = pl.Score(state, *pod, ni);
      EXPECT_TRUE(status.IsSuccess()) << status.ToString();
      got.push_back(score);
    }
    return got;
  };

  // a: 5 devices (4 + the shared one), 1 held: (5 - 2) * 100 / 5 = 60.
  // b: 4 devices of the class (its NICs are not): (4 - 1) * 100 / 4 = 75.
  // c: the device plugin's 8: (8 - 1) * 100 / 8 = 87. d: only the shared
  // device: (1 - 1) * 100 / 1 = 0.
  auto pl = NewDraFit(listers, /*gate=*/true, args);
  framework::CycleState state;
  ASSERT_TRUE(pl->PreScore(state, *pod, list).IsSuccess());
  EXPECT_EQ(scores(*pl, state), (std::vector<int64_t>{60, 75, 87, 0}));
  framework::CycleState no_prescore;
  EXPECT_EQ(scores(*pl, no_prescore), (std::vector<int64_t>{60, 75, 87, 0}));

  // The view is the cycle's: a claim allocated later counts from the next
  // PreScore on.
  listers.resource_claims.Set(testing::HeldClaim("held-too", "gpu.example.com", "b-gpu", "g0"));
  EXPECT_EQ(scores(*pl, state), (std::vector<int64_t>{60, 75, 87, 0}));
  framework::CycleState next;
  ASSERT_TRUE(pl->PreScore(next, *pod, list).IsSuccess());
  EXPECT_EQ(scores(*pl, next), (std::vector<int64_t>{60, 50, 87, 0}));

  // A class selector that fails to evaluate leaves the resource out, as
  // does the gate turned off: only the device plugin's node scores.
  auto off = NewDraFit(listers, /*gate=*/false, args);
  framework::CycleState off_state;
  ASSERT_TRUE(off->PreScore(off_state, *pod, list).IsSuccess());
  EXPECT_EQ(scores(*off, off_state), (std::vector<int64_t>{0, 0, 87, 0}));
  auto broken_class = std::make_shared<api::DeviceClass>(*gpu);
  broken_class->spec.selectors[0].cel->expression = "device.attributes[\"x\"].missing";
  listers.device_classes.Set(broken_class);
  framework::CycleState broken;
  ASSERT_TRUE(pl->PreScore(broken, *pod, list).IsSuccess());
  EXPECT_EQ(scores(*pl, broken), (std::vector<int64_t>{0, 0, 87, 0}));
}

}  // namespace
}  // namespace ksched::scheduler::plugins::noderesources
