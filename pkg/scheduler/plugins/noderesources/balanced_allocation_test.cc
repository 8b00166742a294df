#include "pkg/scheduler/plugins/noderesources/balanced_allocation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/plugins/dynamicresources/dra_manager.h"
#include "pkg/scheduler/plugins/noderesources/fit_args.h"
#include "pkg/scheduler/plugins/noderesources/test_util.h"
#include "pkg/scheduler/plugins/score_nodes_test_util.h"

namespace ksched::scheduler::plugins::noderesources {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakeNodeInfo;
using testing::MakePod;
using testing::Requests;

std::shared_ptr<api::Pod> CpuOnly(const std::string& uid, const std::string& node = "") {
  return MakePod(uid, {{{"cpu", "1000m"}, {"memory", "0"}}, {{"cpu", "2000m"}, {"memory", "0"}}}, {}, node);
}
std::shared_ptr<api::Pod> CpuAndMemory(const std::string& uid, const std::string& node = "") {
  return MakePod(uid, {{{"cpu", "1000m"}, {"memory", "2000"}}, {{"cpu", "2000m"}, {"memory", "3000"}}}, {}, node);
}
std::shared_ptr<const api::Node> Node(const std::string& name, const std::string& cpu, const std::string& memory,
                                      Requests extra = {}) {
  extra["cpu"] = cpu;
  extra["memory"] = memory;
  return MakeNode(name, extra);
}

std::unique_ptr<BalancedAllocation> NewOrDie(std::vector<ResourceSpec> resources = {},
                                             const framework::FeatureGates& features = {}) {
  config::PluginArgs args = std::monostate();
  if (!resources.empty()) args = NodeResourcesBalancedAllocationArgs{std::move(resources)};
  auto pl = NewBalancedAllocation(args, features);
  EXPECT_TRUE(pl.ok()) << pl.status().ToString();
  return std::move(pl).value();
}

TEST(BalancedAllocationTest, Score) {
  struct Case {
    const char* name;
    std::shared_ptr<api::Pod> pod;
    std::vector<std::shared_ptr<const api::Node>> nodes;
    std::vector<std::shared_ptr<api::Pod>> existing;
    std::vector<ResourceSpec> resources;
    std::vector<int64_t> want;
    // From kube 1.36: 50 + (50 + balance with the pod - balance without) / 2.
    std::vector<int64_t> want_half_difference;
  };
  const std::vector<ResourceSpec> gpu = {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 1}};
  const Case cases[] = {
      // node1: fractions 0.75 and 0.5, std 0.125 -> 87; node2: 0.5 and 0.5 -> 100.
      {"nothing scheduled, resources requested, differently sized nodes",
       CpuAndMemory("p"),
       {Node("node1", "4000m", "10000"), Node("node2", "6000m", "10000")},
       {},
       {},
       {87, 100},
       {68, 75}},
      // node1: 0.6 and 0.25 -> 82; node2: 0.6 and 0.5 -> 95.
      {"resources requested, pods scheduled with resources",
       CpuAndMemory("p"),
       {Node("node1", "10000m", "20000"), Node("node2", "10000m", "20000")},
       {CpuOnly("a", "node1"), CpuAndMemory("b", "node2")},
       {},
       {82, 95},
       {73, 74}},
      // node2: 0.6 and 0.2 -> 80.
      {"resources requested, pods scheduled with resources, differently sized nodes",
       CpuAndMemory("p"),
       {Node("node1", "10000m", "20000"), Node("node2", "10000m", "50000")},
       {CpuOnly("a", "node1"), CpuAndMemory("b", "node2")},
       {},
       {82, 80},
       {73, 70}},
      // node1: 1 and 0 -> 50; node2: 1 and 0.5 -> 75.
      {"requested resources at node capacity",
       CpuOnly("p"),
       {Node("node1", "6000m", "10000"), Node("node2", "6000m", "10000")},
       {CpuOnly("a", "node1"), CpuAndMemory("b", "node2")},
       {},
       {50, 75},
       {62, 62}},
      // Fractions over 1 are capped: 1 and 0.5 -> 75.
      {"requests exceed capacity", CpuAndMemory("p"), {Node("node1", "1000m", "10000")}, {}, {}, {75}, {62}},
      // 0.25, 0.5, 0.5: mean 5/12, std sqrt(1/72) = 0.1179 -> 88.
      {"three resources",
       MakePod("p", {{{"cpu", "1000m"}, {"memory", "5000"}, {"nvidia.com/gpu", "2"}}}),
       {Node("node1", "4000m", "10000", {{"nvidia.com/gpu", "4"}})},
       {},
       gpu,
       {88},
       {69}},
      // The node offers no GPU: only cpu 0.25 and memory 0.5 count -> 87.
      {"scalar resource missing on the node",
       MakePod("p", {{{"cpu", "1000m"}, {"memory", "5000"}, {"nvidia.com/gpu", "2"}}}),
       {Node("node1", "4000m", "10000")},
       {},
       gpu,
       {87},
       {68}},
      // The pod requests no GPU, so it is left out even where offered.
      {"scalar resource not requested",
       CpuAndMemory("p"),
       {Node("node1", "4000m", "10000", {{"nvidia.com/gpu", "4"}})},
       {},
       gpu,
       {87},
       {68}},
      // Actual requests, no non-zero defaults: an empty container adds
      // nothing, the existing pod's cpu does (0.5 and 0.5 -> 100 vs 0.75
      // and 0.5 -> 87).
      {"existing pods count their actual requests",
       MakePod("p", {{{"cpu", "1000m"}, {"memory", "5000"}}}),
       {Node("node1", "4000m", "10000"), Node("node2", "4000m", "10000")},
       {MakePod("a", {{}}, {}, "node1"), MakePod("b", {{{"cpu", "2000m"}}}, {}, "node2")},
       {},
       {87, 87},
       {68, 81}},
  };
  for (const Case& c : cases) {
    for (int minor : {35, 36}) {
      SCOPED_TRACE(std::string(c.name) + " at 1." + std::to_string(minor));
      const std::vector<int64_t>& want = minor >= 36 ? c.want_half_difference : c.want;
      auto pl = NewOrDie(c.resources, framework::FeatureGates::ForMinor(minor));
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
      ASSERT_TRUE(pl->PreScore(state, *c.pod, list).IsSuccess());
      std::vector<int64_t> got;
      std::vector<int64_t> fallback;
      framework::CycleState no_prescore;
      for (const auto& ni : infos) {
        auto [score, status] = pl->Score(state, *c.pod, ni);
        EXPECT_TRUE(status.IsSuccess());
        got.push_back(score);
        fallback.push_back(pl->Score(no_prescore, *c.pod, ni).first);
      }
      EXPECT_EQ(got, want);
      EXPECT_EQ(fallback, want);
      EXPECT_EQ(plugins::testing::ScoreNodesOf(*pl, state, *c.pod, list), want);
      // Again, from the nodes' memo when the scorer keeps one.
      EXPECT_EQ(plugins::testing::ScoreNodesOf(*pl, state, *c.pod, list), want);
      EXPECT_EQ(plugins::testing::ScoreNodesOf(*pl, no_prescore, *c.pod, list), want);
    }
  }
}

TEST(BalancedAllocationTest, ScoresAreKeptInTheMemoUntilTheNodeChanges) {
  auto pl = NewOrDie();
  framework::NodeInfo node = MakeNodeInfo(Node("node1", "4000m", "10000"));
  const framework::NodeInfoList list = {&node};
  auto pod = CpuAndMemory("p");
  framework::CycleState state;
  ASSERT_TRUE(pl->PreScore(state, *pod, list).IsSuccess());
  const int64_t fresh = pl->Score(state, *pod, node).first;
  EXPECT_EQ(plugins::testing::ScoreNodesOf(*pl, state, *pod, list), std::vector<int64_t>{fresh});
  // Read from the memo: a score planted there is taken as is.
  const framework::NodeMemo::Slot slot = framework::NodeMemo::kBalancedAllocation;
  const uint64_t key = state.Lookup<PodRequestsState>(framework::StateKey(kBalancedAllocationPreScoreStateKey))->memo_key;
  ASSERT_NE(key, 0u);
  EXPECT_EQ(node.memo().Get(slot, key), fresh + 1);
  node.memo().Set(slot, key, 7 + 1);
  EXPECT_EQ(plugins::testing::ScoreNodesOf(*pl, state, *pod, list), std::vector<int64_t>{7});
  // A change of the node clears it.
  node.AddPod(CpuOnly("a", "node1"));
  EXPECT_EQ(plugins::testing::ScoreNodesOf(*pl, state, *pod, list),
            std::vector<int64_t>{pl->Score(state, *pod, node).first});
}

TEST(BalancedAllocationTest, BestEffortPodsAreSkipped) {
  auto pl = NewOrDie();
  EXPECT_EQ(pl->Name(), "NodeResourcesBalancedAllocation");
  framework::NodeInfo node_info = MakeNodeInfo(Node("node1", "4000m", "10000"), {CpuOnly("a", "node1")});
  for (const auto& pod : {MakePod("empty", {}), MakePod("no-requests", {{}, {}})}) {
    framework::CycleState state;
    EXPECT_EQ(pl->PreScore(state, *pod, {&node_info}).code(), Code::kSkip);
    auto [score, status] = pl->Score(state, *pod, node_info);
    EXPECT_TRUE(status.IsSuccess());
    EXPECT_EQ(score, 0);
  }
}

TEST(BalancedAllocationTest, Args) {
  auto bad = NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{{{"cpu", 2}}}, framework::FeatureGates());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("resources[0].weight"), std::string::npos) << bad.status().message();
  auto wrong = NewBalancedAllocation(NodeResourcesFitArgs{}, framework::FeatureGates());
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "want args to be of type NodeResourcesBalancedAllocationArgs, got NodeResourcesFitArgs");
}

// A node's devices of a class count as a device plugin's allocatable would:
// four devices with one held by a claim score as an allocatable of 4 with a
// pod using 1.
TEST(BalancedAllocationTest, DraExtendedResourceCountsTheNodesDevices) {
  framework::InMemorySharedListers listers;
  auto gpu = std::make_shared<api::DeviceClass>();
  gpu->metadata.name = "gpu";
  gpu->spec.extended_resource_name = "example.com/gpu";
  listers.device_classes.Set(gpu);
  listers.resource_slices.Set(testing::DeviceSlice("dra", "gpu.example.com", "dra", {"g0", "g1", "g2", "g3"}));
  listers.resource_claims.Set(testing::HeldClaim("held", "gpu.example.com", "dra", "g2"));

  framework::FeatureGates features;
  features.dra_extended_resource = true;
  auto pl = NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{{{"cpu", 1}, {"example.com/gpu", 1}}},
                                  features, dra::NewSharedDRAManager(listers, features));
  ASSERT_TRUE(pl.ok()) << pl.status().ToString();
  auto pod = MakePod("p", {{{"cpu", "1000m"}, {"example.com/gpu", "1"}}});
  framework::NodeInfo dra = MakeNodeInfo(Node("dra", "4000m", "10000"));
  framework::NodeInfo plugin = MakeNodeInfo(Node("plugin", "4000m", "10000", {{"example.com/gpu", "4"}}),
                                            {MakePod("user", {{{"example.com/gpu", "1"}}}, {}, "plugin")});
  framework::NodeInfo none = MakeNodeInfo(Node("none", "4000m", "10000"));
  framework::CycleState state;
  ASSERT_TRUE((*pl)->PreScore(state, *pod, {&dra, &plugin, &none}).IsSuccess());
  const int64_t on_devices = (*pl)->Score(state, *pod, dra).first;
  EXPECT_EQ(on_devices, (*pl)->Score(state, *pod, plugin).first);
  // Without devices only cpu is scored: a single fraction is balanced.
  EXPECT_EQ((*pl)->Score(state, *pod, none).first, 100);
  // cpu 0.25 and gpu 0.5 with the pod: std 0.125 -> 87.
  EXPECT_EQ(on_devices, 87);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::noderesources
