// Cost of recording a metric on the scheduler's hot paths: through a
// pre-resolved handle, through the string-keyed cache, and (for comparison)
// through prometheus-cpp's Family::Add on every call.
#include <benchmark/benchmark.h>

#include "pkg/metrics/exposition.h"
#include "pkg/metrics/leader_election_metrics.h"
#include "pkg/metrics/metrics_test_util.h"
#include "pkg/metrics/scheduler_metrics.h"

namespace ksched::metrics {
namespace {

void BM_ProfileHandleExtensionPoint(benchmark::State& state) {
  SchedulerMetrics m;
  ProfileMetrics& p = m.Profile("default-scheduler");
  for (auto _ : state) p.ObserveExtensionPoint(ExtensionPoint::kFilter, Code::kSuccess, 0.0002);
}
BENCHMARK(BM_ProfileHandleExtensionPoint)->ThreadRange(1, 2);

void BM_PluginHandleExecution(benchmark::State& state) {
  SchedulerMetrics m;
  PluginMetrics& p = m.Plugin("NodeResourcesFit", "default-scheduler");
  for (auto _ : state) {
    p.ObserveExecution(ExtensionPoint::kFilter, Code::kSuccess, 0.00003);
    p.IncEvaluation(ExtensionPoint::kFilter);
  }
}
BENCHMARK(BM_PluginHandleExecution);

void BM_StringKeyedQueueIncoming(benchmark::State& state) {
  SchedulerMetrics m;
  for (auto _ : state) m.QueueIncomingPods(Queue::kActive, "NodeAdd").Increment();
}
BENCHMARK(BM_StringKeyedQueueIncoming)->ThreadRange(1, 2);

void BM_StringKeyedSchedulingAttempt(benchmark::State& state) {
  SchedulerMetrics m;
  for (auto _ : state) m.ObserveSchedulingAttempt(Result::kScheduled, "default-scheduler", 0.003);
}
BENCHMARK(BM_StringKeyedSchedulingAttempt);

void BM_FamilyAddEveryCall(benchmark::State& state) {
  prometheus::Registry registry;
  auto& family = prometheus::BuildHistogram().Name("h_seconds").Help("h").Register(registry);
  const auto buckets = ExponentialBuckets(0.0001, 2, 12);
  for (auto _ : state) {
    family
        .Add({{"extension_point", "Filter"}, {"status", "Success"}, {"profile", "default-scheduler"}},
             buckets)
        .Observe(0.0002);
  }
}
BENCHMARK(BM_FamilyAddEveryCall);

void BM_Scrape(benchmark::State& state) {
  SchedulerMetrics m;
  LeaderElectionMetrics le(*m.Registry());
  testing::ObserveEveryFamily(m, le);
  for (auto _ : state) benchmark::DoNotOptimize(CollectText({m.Registry()}));
}
BENCHMARK(BM_Scrape);

}  // namespace
}  // namespace ksched::metrics

BENCHMARK_MAIN();
