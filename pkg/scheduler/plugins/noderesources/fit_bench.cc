// Per-node cost of NodeResourcesFit's Filter and Score and of
// NodeResourcesBalancedAllocation's Score, on scheduler_perf-like nodes
// (4 cpu, 32Gi, 110 pods, 10 pods each). Run:
//   build/bench/noderesources_bench
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/noderesources/balanced_allocation.h"
#include "pkg/scheduler/plugins/noderesources/fit.h"
#include "pkg/scheduler/plugins/noderesources/test_util.h"

namespace ksched::scheduler::plugins::noderesources {
namespace {

constexpr int kNodes = 5000;

std::vector<framework::NodeInfo> MakeNodes() {
  std::vector<framework::NodeInfo> nodes;
  nodes.reserve(kNodes);
  for (int i = 0; i < kNodes; ++i) {
    const std::string name = "node-" + std::to_string(i);
    std::vector<std::shared_ptr<api::Pod>> pods;
    for (int j = 0; j < 10; ++j) {
      pods.push_back(
          testing::MakePod(name + "-" + std::to_string(j), {{{"cpu", "100m"}, {"memory", "500Mi"}}}, {}, name));
    }
    nodes.push_back(
        testing::MakeNodeInfo(testing::MakeNode(name, {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}}), pods));
  }
  return nodes;
}

void BM_FitFilter(benchmark::State& st) {
  const std::vector<framework::NodeInfo> nodes = MakeNodes();
  auto pl = NewFit(std::monostate(), framework::FeatureGates()).value();
  auto pod = testing::MakePod("p", {{{"cpu", "100m"}, {"memory", "500Mi"}}});
  framework::CycleState state;
  pl->PreFilter(state, *pod, {});
  for (auto _ : st) {
    for (const framework::NodeInfo& ni : nodes) benchmark::DoNotOptimize(pl->Filter(state, *pod, ni).IsSuccess());
  }
  st.SetItemsProcessed(st.iterations() * kNodes);
}
BENCHMARK(BM_FitFilter);

// The same check without the CycleState lookup: what Filter costs beyond
// reading PreFilter's state.
void BM_FitsRequestOnly(benchmark::State& st) {
  const std::vector<framework::NodeInfo> nodes = MakeNodes();
  auto pod = testing::MakePod("p", {{{"cpu", "100m"}, {"memory", "500Mi"}}});
  const framework::Resource request = ComputePodResourceRequest(*pod);
  const NameSet none;
  for (auto _ : st) {
    for (const framework::NodeInfo& ni : nodes)
      benchmark::DoNotOptimize(FitsRequest(request, ni, &none, &none).empty());
  }
  st.SetItemsProcessed(st.iterations() * kNodes);
}
BENCHMARK(BM_FitsRequestOnly);

void BM_FitScore(benchmark::State& st) {
  const std::vector<framework::NodeInfo> nodes = MakeNodes();
  auto pl = NewFit(std::monostate(), framework::FeatureGates()).value();
  auto pod = testing::MakePod("p", {{{"cpu", "100m"}, {"memory", "500Mi"}}});
  framework::CycleState state;
  if (!pl->PreScore(state, *pod, {}).IsSuccess()) st.SkipWithError("PreScore failed");
  for (auto _ : st) {
    for (const framework::NodeInfo& ni : nodes) benchmark::DoNotOptimize(pl->Score(state, *pod, ni).first);
  }
  st.SetItemsProcessed(st.iterations() * kNodes);
}
BENCHMARK(BM_FitScore);

void BM_BalancedAllocationScore(benchmark::State& st) {
  const std::vector<framework::NodeInfo> nodes = MakeNodes();
  auto pl = NewBalancedAllocation(std::monostate(), framework::FeatureGates()).value();
  auto pod = testing::MakePod("p", {{{"cpu", "100m"}, {"memory", "500Mi"}}});
  framework::CycleState state;
  if (!pl->PreScore(state, *pod, {}).IsSuccess()) st.SkipWithError("PreScore failed");
  for (auto _ : st) {
    for (const framework::NodeInfo& ni : nodes) benchmark::DoNotOptimize(pl->Score(state, *pod, ni).first);
  }
  st.SetItemsProcessed(st.iterations() * kNodes);
}
BENCHMARK(BM_BalancedAllocationScore);

}  // namespace
}  // namespace ksched::scheduler::plugins::noderesources

BENCHMARK_MAIN();
