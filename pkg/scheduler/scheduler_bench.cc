// The scheduling loop in process: queue + framework (kube's default
// plugins) + cache, with an instant binder and no API writes. Reports pods
// scheduled per second (items/s) for a few cluster sizes.
//
//   build/bench/scheduler_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "pkg/config/defaults.h"
#include "pkg/scheduler/framework/test_objects.h"
#include "pkg/scheduler/plugins/registry.h"
#include "pkg/scheduler/scheduler.h"

namespace ksched::scheduler {
namespace {

using framework::testing::MakeNode;
using framework::testing::MakePod;

class InstantBinder final : public framework::BindingClient {
 public:
  util::Status Bind(const api::Pod&, std::string_view) override { return util::Status(); }
};

void BM_ScheduleOne(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  auto registry = plugins::InTreeRegistry();
  if (!registry.ok()) {
    state.SkipWithError(registry.status().message().c_str());
    return;
  }
  config::KubeSchedulerConfiguration cfg = config::DefaultConfiguration(scheduler::plugins::InTreePlugins());
  InstantBinder binder;
  SchedulerOptions o;
  o.binding_client = &binder;
  o.seed = 1;
  auto s = Scheduler::New(cfg, *registry, o);
  if (!s.ok()) {
    state.SkipWithError(s.status().message().c_str());
    return;
  }
  Scheduler& sched = **s;
  for (int i = 0; i < nodes; ++i) {
    std::string zone = "zone-" + std::to_string(i % 3);
    sched.Cache().AddNode(MakeNode("node-" + std::to_string(i))
                              .Zone(zone)
                              .Label("kubernetes.io/hostname", "node-" + std::to_string(i))
                              .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}})
                              .Obj());
  }
  int64_t n = 0;
  for (auto _ : state) {
    sched.Queue().Add(MakePod("p" + std::to_string(n++)).Req({{"cpu", "100m"}, {"memory", "100Mi"}}).Obj());
    sched.ScheduleOne();
  }
  sched.WaitForBindingCycles();
  state.SetItemsProcessed(n);
  sched.Stop();
}
BENCHMARK(BM_ScheduleOne)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace ksched::scheduler

BENCHMARK_MAIN();
