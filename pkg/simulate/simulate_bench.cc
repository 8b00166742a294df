// ksched simulate at scale: N pending pods on M nodes with the default
// profile, from the loaded cluster to the result (the loader excluded).
// Reports the wall time of one whole simulation and pods per second.
//
//   build/bench/simulate_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "pkg/config/defaults.h"
#include "pkg/scheduler/framework/test_objects.h"
#include "pkg/simulate/simulation.h"
#include "pkg/scheduler/plugins/registry.h"

namespace ksched::simulate {
namespace {

using scheduler::framework::testing::MakeNode;
using scheduler::framework::testing::MakePod;

ClusterObjects MakeCluster(int nodes, int pods) {
  ClusterObjects c;
  for (int i = 0; i < nodes; ++i) {
    const std::string name = "node-" + std::to_string(i);
    c.nodes.push_back(MakeNode(name)
                          .Zone("zone-" + std::to_string(i % 3))
                          .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}})
                          .Obj());
  }
  for (int i = 0; i < pods; ++i) {
    const std::string name = "pod-" + std::to_string(i);
    api::Pod p = *MakePod(name, "default").Req({{"cpu", "100m"}, {"memory", "256Mi"}}).Obj();
    p.metadata.uid = "uid-" + name;
    p.spec.scheduler_name = "default-scheduler";
    c.pods.push_back(std::make_shared<api::Pod>(std::move(p)));
  }
  return c;
}

void BM_Simulate(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int pods = static_cast<int>(state.range(1));
  const bool explain = state.range(2) != 0;
  ClusterObjects cluster = MakeCluster(nodes, pods);
  SimulationOptions o;
  o.config = config::DefaultConfiguration(scheduler::plugins::InTreePlugins());
  o.explain = explain;
  int scheduled = 0;
  for (auto _ : state) {
    util::StatusOr<SimulationResult> r = Simulate(cluster, o);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    scheduled = 0;
    for (const PodOutcome& p : r->pods) scheduled += p.node.empty() ? 0 : 1;
  }
  state.counters["pods/s"] = benchmark::Counter(static_cast<double>(pods) * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
  state.counters["scheduled"] = scheduled;
}
// {nodes, pending pods, explain}
BENCHMARK(BM_Simulate)
    ->Args({500, 1000, 0})
    ->Args({5000, 10000, 0})
    ->Args({500, 200, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace ksched::simulate

BENCHMARK_MAIN();
