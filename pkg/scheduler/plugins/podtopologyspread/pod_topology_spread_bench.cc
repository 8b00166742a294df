// Per-pod cost of PodTopologySpread in the shape of scheduler_perf's
// TopologySpreading workload: 5000 nodes in 3 zones, 5000 unrelated pods,
// incoming pods spread by zone (maxSkew 5, DoNotSchedule). Each iteration is
// one scheduling cycle: PreFilter, Filter over 10% of the nodes (what
// numFeasibleNodesToFind asks for), then the pod lands on a node, changing
// that NodeInfo as the cache would.

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread.h"
#include "pkg/scheduler/plugins/podtopologyspread/test_util.h"

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

using testing::MutableSnapshot;

// `n` nodes over three zones, one unlabelled pod on each.
void AddZonedCluster(MutableSnapshot& snapshot, int n) {
  for (int i = 0; i < n; ++i) {
    std::string name = "node-" + std::to_string(i);
    framework::NodeInfo& ni = snapshot.Add(testing::MakeNode(
        name, {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", "moon-" + std::to_string(i % 3)}}));
    ni.AddPod(testing::PodBuilder("init-" + std::to_string(i)).Node(name).Obj());
  }
}

// A color=blue pod lands on node `i`, changing its NodeInfo as the cache would.
void LandBluePod(MutableSnapshot& snapshot, int i) {
  std::string name = "node-" + std::to_string(i);
  snapshot.at(static_cast<size_t>(i)).AddPod(
      testing::PodBuilder("m-" + std::to_string(i)).Node(name).Label("color", "blue").Obj());
}

void BM_TopologySpreadingCycle(benchmark::State& st) {
  const int kNodes = 5000;
  MutableSnapshot snapshot;
  AddZonedCluster(snapshot, kNodes);
  testing::FakeHandle handle;
  auto plugin = *New(std::monostate{}, handle);
  auto pod = testing::PodBuilder("p")
                 .Label("color", "blue")
                 .Spread({.max_skew = 5, .key = "topology.kubernetes.io/zone", .selector = testing::MatchLabels({{"color", "blue"}})})
                 .Obj();
  const framework::NodeInfoList& nodes = snapshot.List();
  int next = 0;
  int64_t feasible = 0;
  for (auto _ : st) {
    framework::CycleState state;
    auto [result, s] = plugin->PreFilter(state, *pod, nodes);
    benchmark::DoNotOptimize(result);
    for (int k = 0; k < kNodes / 10; ++k) {
      if (plugin->Filter(state, *pod, *nodes[(next + k) % kNodes]).IsSuccess()) ++feasible;
    }
    LandBluePod(snapshot, next);
    next = (next + 7) % kNodes;
  }
  st.counters["feasible/cycle"] = benchmark::Counter(static_cast<double>(feasible) / st.iterations());
}
BENCHMARK(BM_TopologySpreadingCycle)->Unit(benchmark::kMicrosecond)->Iterations(5000);

// The scoring side, in the shape of PreferredTopologySpreading: the same
// cluster, incoming pods spread by zone with ScheduleAnyway. Each iteration
// is PreScore over 10% of the nodes (the feasible ones), Score of each and
// NormalizeScore, then the pod lands on a node.
void BM_PreferredTopologySpreadingCycle(benchmark::State& st) {
  const int kNodes = 5000;
  MutableSnapshot snapshot;
  AddZonedCluster(snapshot, kNodes);
  testing::FakeHandle handle;
  handle.SetLister(&snapshot);
  auto plugin = *New(std::monostate{}, handle);
  auto pod = testing::PodBuilder("p")
                 .Label("color", "blue")
                 .Spread({.max_skew = 5,
                          .key = "topology.kubernetes.io/zone",
                          .when = "ScheduleAnyway",
                          .selector = testing::MatchLabels({{"color", "blue"}})})
                 .Obj();
  const framework::NodeInfoList& nodes = snapshot.List();
  framework::NodeInfoList feasible(kNodes / 10);
  framework::NodeScoreList scores(feasible.size());
  int next = 0;
  int64_t best = 0;
  for (auto _ : st) {
    for (size_t k = 0; k < feasible.size(); ++k) feasible[k] = nodes[(next + k) % kNodes];
    framework::CycleState state;
    if (!plugin->PreScore(state, *pod, feasible).IsSuccess()) st.SkipWithError("PreScore failed");
    for (size_t k = 0; k < feasible.size(); ++k) {
      scores[k] = framework::NodeScore{feasible[k]->node_name(), plugin->Score(state, *pod, *feasible[k]).first};
    }
    if (!plugin->NormalizeScore(state, *pod, scores).IsSuccess()) st.SkipWithError("NormalizeScore failed");
    best += scores[0].score;
    LandBluePod(snapshot, next);
    next = (next + 7) % kNodes;
  }
  benchmark::DoNotOptimize(best);
}
BENCHMARK(BM_PreferredTopologySpreadingCycle)->Unit(benchmark::kMicrosecond)->Iterations(5000);

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread

BENCHMARK_MAIN();
