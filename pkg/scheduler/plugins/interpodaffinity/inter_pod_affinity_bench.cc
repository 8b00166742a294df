// Per-pod cost of InterPodAffinity in the shape of scheduler_perf's
// SchedulingPodAntiAffinity workload: 5000 nodes, 1000 pods with hostname
// anti-affinity against color=green already running, incoming pods with the
// same anti-affinity. Each iteration is one scheduling cycle: PreFilter,
// Filter from a rotating start until 10% of the nodes are feasible (what
// numFeasibleNodesToFind asks for), PreScore, then the pod lands on the first
// feasible node, changing that NodeInfo as the cache would.

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/plugins/helper/mutable_snapshot.h"
#include "pkg/scheduler/plugins/interpodaffinity/inter_pod_affinity.h"
#include "pkg/scheduler/plugins/interpodaffinity/test_util.h"

namespace ksched::scheduler::plugins::interpodaffinity {
namespace {

using helper::testing::MutableSnapshot;

std::shared_ptr<const api::Pod> AntiAffinityPod(const std::string& name, const std::string& ns,
                                                const std::string& node) {
  return testing::PodBuilder(name)
      .Namespace(ns)
      .Node(node)
      .Label("color", "green")
      .RequiredAntiAffinity(
          testing::Term(testing::Sel().Label("color", "green"), "kubernetes.io/hostname", {"sched-1", "sched-0"}))
      .Obj();
}

void BM_PodAntiAffinityCycle(benchmark::State& st) {
  const size_t kNodes = 5000;
  MutableSnapshot snapshot;
  for (size_t i = 0; i < kNodes; ++i) {
    std::string name = "node-" + std::to_string(i);
    snapshot.Add(testing::MakeNode(name, {{"kubernetes.io/hostname", name}}));
  }
  for (size_t i = 0; i < 1000; ++i) {
    snapshot.AddPod(i * 5, AntiAffinityPod("init-" + std::to_string(i), "sched-0", "node-" + std::to_string(i * 5)));
  }
  testing::FakeHandle handle;
  handle.SetLister(&snapshot);
  auto plugin = *New(std::monostate{}, handle);
  const framework::NodeInfoList& nodes = snapshot.List();
  size_t start = 0;
  int64_t evaluated = 0;
  int placed = 0;
  for (auto _ : st) {
    auto pod = AntiAffinityPod("m-" + std::to_string(placed), "sched-1", "");
    framework::CycleState state;
    auto [result, s] = plugin->PreFilter(state, *pod, nodes);
    benchmark::DoNotOptimize(result);
    framework::NodeInfoList feasible;
    size_t k = 0;
    for (; k < kNodes && feasible.size() < kNodes / 10; ++k) {
      const framework::NodeInfo* ni = nodes[(start + k) % kNodes];
      if (plugin->Filter(state, *pod, *ni).IsSuccess()) feasible.push_back(ni);
    }
    evaluated += static_cast<int64_t>(k);
    start = (start + k) % kNodes;
    benchmark::DoNotOptimize(plugin->PreScore(state, *pod, feasible));
    if (feasible.empty()) {
      st.SkipWithError("no feasible node left");
      break;
    }
    size_t target = 0;
    while (nodes[target] != feasible.front()) ++target;
    snapshot.AddPod(target, AntiAffinityPod("m-" + std::to_string(placed), "sched-1", "node-" + std::to_string(target)));
    ++placed;
  }
  st.counters["filtered/cycle"] = benchmark::Counter(static_cast<double>(evaluated) / st.iterations());
}
// scheduler_perf measures 1000-2000 pods on top of 1000.
BENCHMARK(BM_PodAntiAffinityCycle)->Unit(benchmark::kMicrosecond)->Iterations(2000);

}  // namespace
}  // namespace ksched::scheduler::plugins::interpodaffinity

BENCHMARK_MAIN();
