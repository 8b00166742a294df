#include "pkg/scheduler/plugins/noderesources/resource_allocation.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pkg/scheduler/plugins/noderesources/test_util.h"

namespace ksched::scheduler::plugins::noderesources {
namespace {

using testing::MakeNode;
using testing::MakeNodeInfo;
using testing::MakePod;

TEST(ResourceAllocationTest, PerResourceScores) {
  EXPECT_EQ(LeastRequestedScore(0, 0), 0);
  EXPECT_EQ(LeastRequestedScore(0, 100), 100);
  EXPECT_EQ(LeastRequestedScore(25, 100), 75);
  EXPECT_EQ(LeastRequestedScore(1, 3), 66);
  EXPECT_EQ(LeastRequestedScore(101, 100), 0);
  EXPECT_EQ(MostRequestedScore(0, 0), 0);
  EXPECT_EQ(MostRequestedScore(25, 100), 25);
  EXPECT_EQ(MostRequestedScore(2, 3), 66);
  EXPECT_EQ(MostRequestedScore(300, 100), 100);
}

TEST(ResourceAllocationTest, WeightedAverages) {
  const std::vector<ResourceSpec> resources = {{"cpu", 1}, {"memory", 3}, {"x.com/y", 5}};
  const int64_t requested[] = {50, 25, 7};
  const int64_t allocatable[] = {100, 100, 0};  // x.com/y not offered: ignored
  // (50*1 + 75*3) / 4 = 68; (50*1 + 25*3) / 4 = 31.
  EXPECT_EQ(LeastAllocatedScorer(resources)(requested, requested, allocatable, 3), 68);
  EXPECT_EQ(MostAllocatedScorer(resources)(requested, requested, allocatable, 3), 31);
  const int64_t none[] = {0, 0, 0};
  EXPECT_EQ(LeastAllocatedScorer(resources)(requested, requested, none, 3), 0);
  EXPECT_EQ(MostAllocatedScorer(resources)(requested, requested, none, 3), 0);
}

TEST(ResourceAllocationTest, RequestedToCapacityRatioShape) {
  // Shape points score 0-10 and are scaled to 0-100; a single resource makes
  // the node score the shape's value at the utilization.
  const std::vector<ResourceSpec> cpu = {{"cpu", 1}};
  ScoreFn fn = RequestedToCapacityRatioScorer(cpu, {{10, 1}, {50, 5}, {90, 9}});
  struct Case {
    int64_t requested;
    int64_t want;
  };
  const Case cases[] = {
      {0, 10}, {5, 10}, {10, 10}, {15, 15}, {40, 40}, {50, 50}, {60, 60}, {90, 90}, {95, 90}, {100, 90}, {150, 90},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.requested);
    const int64_t allocatable = 100;
    EXPECT_EQ(fn(&c.requested, &c.requested, &allocatable, 1), c.want);
  }
  // Utilization is an integer percentage: 1 of 3 is 33%.
  ScoreFn linear = RequestedToCapacityRatioScorer(cpu, {{0, 0}, {100, 10}});
  const int64_t req = 1;
  const int64_t cap = 3;
  EXPECT_EQ(linear(&req, &req, &cap, 1), 33);
}

TEST(ResourceAllocationTest, BalancedResourceScore) {
  const int64_t requested[] = {50, 50, 10, 99};
  const int64_t allocatable[] = {100, 100, 0, 100};
  // One fraction: deviation 0.
  EXPECT_EQ(BalancedResourceScore(requested, allocatable, 1), 100);
  // 0.5 and 0.5 (the third is not offered).
  EXPECT_EQ(BalancedResourceScore(requested, allocatable, 3), 100);
  // 0.5, 0.5, 0.99: mean 0.6633, std 0.231 -> 76.
  EXPECT_EQ(BalancedResourceScore(requested, allocatable, 4), 76);
  const int64_t over[] = {300, 0};
  const int64_t cap[] = {100, 100};
  // Capped at 1: |1 - 0| / 2 = 0.5.
  EXPECT_EQ(BalancedResourceScore(over, cap, 2), 50);
}

TEST(ResourceAllocationTest, PodRequests) {
  const std::vector<ResourceSpec> resources = {
      {"cpu", 1}, {"memory", 1}, {"ephemeral-storage", 1}, {"example.com/gpu", 1}, {"pods", 1}};
  auto pod = MakePod("p", {{}, {{"cpu", "1500m"}, {"ephemeral-storage", "1Gi"}, {"example.com/gpu", "2"}}});
  ResourceAllocationScorer non_zero(resources, false, LeastAllocatedScorer(resources), {});
  // The empty container counts 100m and 200Mi; the other one sets no memory
  // either, so it counts 200Mi too.
  EXPECT_EQ(non_zero.PodRequests(*pod), (std::vector<int64_t>{1600, 2 * 200 * 1024 * 1024, 1024 * 1024 * 1024, 2, 0}));
  ResourceAllocationScorer actual(resources, true, LeastAllocatedScorer(resources), {});
  EXPECT_EQ(actual.PodRequests(*pod), (std::vector<int64_t>{1500, 0, 1024 * 1024 * 1024, 2, 0}));
  EXPECT_FALSE(ResourceAllocationScorer::IsBestEffort(actual.PodRequests(*pod)));
  EXPECT_TRUE(ResourceAllocationScorer::IsBestEffort(actual.PodRequests(*MakePod("e", {{}}))));
}

// Fit's scorer (kube v1.34) reads neither pod-level nor status resources;
// BalancedAllocation's reads both.
TEST(ResourceAllocationTest, PodOptionsPerPlugin) {
  const std::vector<ResourceSpec> resources = {{"cpu", 1}, {"memory", 1}};
  auto pod = MakePod("p", {{{"cpu", "1"}}});
  pod->spec.resources.emplace();
  pod->spec.resources->requests = testing::ToResourceList({{"cpu", "3"}});
  api::ContainerStatus cs;
  cs.name = pod->spec.containers[0].name;
  cs.resources.emplace();
  cs.resources->requests = testing::ToResourceList({{"memory", "1Gi"}});
  pod->status.container_statuses.push_back(cs);
  api::PodResourcesOptions fit_options;
  fit_options.skip_pod_level_resources = true;
  ResourceAllocationScorer fit(resources, false, LeastAllocatedScorer(resources), fit_options);
  EXPECT_EQ(fit.PodRequests(*pod), (std::vector<int64_t>{1000, 200 * 1024 * 1024}));
  ResourceAllocationScorer balanced(resources, true, LeastAllocatedScorer(resources),
                                    api::SchedulingPodRequestOptions());
  EXPECT_EQ(balanced.PodRequests(*pod), (std::vector<int64_t>{3000, int64_t{1} << 30}));
}

TEST(ResourceAllocationTest, ScoreUsesNonZeroRequestedUnlessAskedNotTo) {
  const std::vector<ResourceSpec> resources = {{"cpu", 1}};
  // An existing pod without requests counts 100m in non_zero_requested.
  framework::NodeInfo node_info = MakeNodeInfo(MakeNode("n", {{"cpu", "1"}}), {MakePod("e", {{}}, {}, "n")});
  ResourceAllocationScorer non_zero(resources, false, MostAllocatedScorer(resources), {});
  ResourceAllocationScorer actual(resources, true, MostAllocatedScorer(resources), {});
  EXPECT_EQ(non_zero.Score(node_info, {400}).first, 50);
  EXPECT_EQ(actual.Score(node_info, {400}).first, 40);
}

// ScoreNodes reads cpu, memory and ephemeral storage through per-run
// dispatch; Score node by node through the per-resource switch. Every
// strategy, both node-side counts and a scalar resource (the switch path in
// both) must give the same scores.
TEST(ResourceAllocationTest, ScoreNodesMatchesScoreForEveryStrategy) {
  const std::vector<ResourceSpec> fields = {{"cpu", 2}, {"memory", 1}, {"ephemeral-storage", 3}};
  const std::vector<ResourceSpec> with_scalar = {{"cpu", 1}, {"example.com/gpu", 2}};
  const std::vector<config::UtilizationShapePoint> shape = {{0, 0}, {50, 7}, {100, 10}};
  // Existing pods without requests count the non-zero defaults unless
  // use_requested; a node without ephemeral storage or gpus leaves them out.
  std::vector<framework::NodeInfo> infos;
  infos.push_back(MakeNodeInfo(MakeNode("a", {{"cpu", "4"}, {"memory", "8Gi"}, {"ephemeral-storage", "100Gi"}}),
                               {MakePod("e1", {{}}, {}, "a"),
                                MakePod("e2", {{{"cpu", "1500m"}, {"ephemeral-storage", "10Gi"}}}, {}, "a")}));
  infos.push_back(MakeNodeInfo(MakeNode("b", {{"cpu", "2"}, {"memory", "1Gi"}, {"example.com/gpu", "4"}}),
                               {MakePod("e3", {{{"memory", "512Mi"}, {"example.com/gpu", "1"}}}, {}, "b")}));
  infos.push_back(MakeNodeInfo(MakeNode("c", {{"cpu", "1"}}), {MakePod("e4", {{{"cpu", "3"}}}, {}, "c")}));
  const std::vector<const framework::NodeInfo*> nodes = {&infos[0], &infos[1], &infos[2]};
  const auto pod = MakePod("p", {{{"cpu", "250m"}, {"memory", "256Mi"}, {"ephemeral-storage", "1Gi"},
                                  {"example.com/gpu", "1"}}});
  for (const auto* resources : {&fields, &with_scalar}) {
    const std::vector<std::pair<std::string, ScoreFn>> strategies = {
        {"LeastAllocated", LeastAllocatedScorer(*resources)},
        {"MostAllocated", MostAllocatedScorer(*resources)},
        {"RequestedToCapacityRatio", RequestedToCapacityRatioScorer(*resources, shape)},
        {"Balanced", BalancedAllocationScorer(false)},
        {"BalancedChange", BalancedAllocationScorer(true)}};
    for (const auto& [name, fn] : strategies) {
      for (bool use_requested : {false, true}) {
        SCOPED_TRACE(name + (use_requested ? ", requested" : ", non-zero requested") +
                     (resources == &fields ? ", fields" : ", scalar"));
        const ResourceAllocationScorer scorer(*resources, use_requested, fn, {});
        const std::vector<int64_t> pod_requests = scorer.PodRequests(*pod);
        std::vector<framework::NodeScore> out(nodes.size(), framework::NodeScore{"", -1});
        ASSERT_TRUE(scorer.ScoreNodes(nodes, pod_requests, nullptr, out.data()).IsSuccess());
        std::set<int64_t> distinct;
        for (size_t i = 0; i < nodes.size(); ++i) {
          auto [want, status] = scorer.Score(*nodes[i], pod_requests);
          ASSERT_TRUE(status.IsSuccess());
          EXPECT_EQ(out[i].score, want) << nodes[i]->node()->metadata.name;
          distinct.insert(want);
        }
        // The nodes differ enough that no strategy scores them all alike.
        EXPECT_GT(distinct.size(), 1u);
      }
    }
  }
}

// Ephemeral storage has no non-zero default: even a scorer that counts
// non-zero requests reads what the node's pods request of it.
TEST(ResourceAllocationTest, EphemeralStorageCountsWhatPodsRequest) {
  const std::vector<ResourceSpec> resources = {{"ephemeral-storage", 1}};
  framework::NodeInfo node_info =
      MakeNodeInfo(MakeNode("n", {{"ephemeral-storage", "100Gi"}}),
                   {MakePod("e", {{{"ephemeral-storage", "10Gi"}}}, {}, "n"), MakePod("f", {{}}, {}, "n")});
  ASSERT_NE(node_info.non_zero_requested().ephemeral_storage, node_info.requested().ephemeral_storage);
  const ResourceAllocationScorer scorer(resources, /*use_requested=*/false, LeastAllocatedScorer(resources), {});
  const std::vector<int64_t> pod_requests = {int64_t{1} << 30};
  EXPECT_EQ(scorer.Score(node_info, pod_requests).first, 89);  // (100 - 11) of 100 GiB free
  const std::vector<const framework::NodeInfo*> nodes = {&node_info};
  framework::NodeScore out{"", -1};
  ASSERT_TRUE(scorer.ScoreNodes(nodes, pod_requests, nullptr, &out).IsSuccess());
  EXPECT_EQ(out.score, 89);
}

TEST(ResourceAllocationTest, ManyResourcesUseTheHeapPath) {
  std::vector<ResourceSpec> resources;
  std::vector<int64_t> pod_requests;
  testing::Requests allocatable;
  for (int i = 0; i < 20; ++i) {
    resources.push_back({"example.com/r" + std::to_string(i), 1});
    pod_requests.push_back(1);
    allocatable["example.com/r" + std::to_string(i)] = "4";
  }
  ResourceAllocationScorer scorer(resources, false, LeastAllocatedScorer(resources), {});
  framework::NodeInfo node_info = MakeNodeInfo(MakeNode("n", allocatable));
  auto [score, status] = scorer.Score(node_info, pod_requests);
  EXPECT_TRUE(status.IsSuccess());
  EXPECT_EQ(score, 75);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::noderesources
