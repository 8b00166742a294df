// Micro-benchmarks of the scheduling queue (Google Benchmark).
//
//   build/bench/queue_bench --benchmark_counters_tabular=true
//
// items_per_second counts pods handled per second (pods moved, pods added
// and popped, ...). "indexed:0" runs the same case with the unschedulable
// pods index off (kube-scheduler's walk over every pod), for comparison.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/queuesort/priority_sort.h"
#include "pkg/scheduler/queue/priority_queue.h"
#include "pkg/scheduler/queue/queue_test_util.h"

namespace ksched::scheduler::queue {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::EventObject;
using framework::QueueingHint;
using testing::FakePlugin;
using testing::kProfile;
using PodPtr = std::shared_ptr<const api::Pod>;
using namespace std::chrono_literals;

const ClusterEvent kNodeAdd(framework::resource::kNode, ActionType::kAdd);
const ClusterEvent kNodeLabel(framework::resource::kNode, ActionType::kUpdateNodeLabel);
const ClusterEvent kPvAdd(framework::resource::kPersistentVolume, ActionType::kAdd);
const ClusterEvent kCsiDriverAdd(framework::resource::kCSIDriver, ActionType::kAdd);

// A queue with three plugins:
// - "Fit" registers Node/Add with a hint that queues 1% of pods;
// - "Label" registers Node/UpdateNodeLabel without a hint (queues all);
// - "Other" registers PersistentVolume/Add but rejects no pod.
// Nothing registers CSIDriver events.
struct Bench {
  explicit Bench(bool indexed = true) {
    fit = std::make_unique<FakePlugin>(
        "Fit", std::vector<framework::ClusterEventWithHint>{
                   {kNodeAdd, [](const api::Pod& pod, const EventObject&,
                                 const EventObject&) -> util::StatusOr<QueueingHint> {
                      return pod.spec.priority.value_or(0) % 100 == 0 ? QueueingHint::kQueue
                                                                      : QueueingHint::kQueueSkip;
                    }}});
    label = std::make_unique<FakePlugin>("Label", std::vector<framework::ClusterEventWithHint>{{kNodeLabel, nullptr}});
    other = std::make_unique<FakePlugin>("Other", std::vector<framework::ClusterEventWithHint>{{kPvAdd, nullptr}});
    framework::FeatureGates gates;
    PriorityQueueOptions opts;
    opts.clock = &clock;
    opts.features = gates;
    opts.queueing_hint_map.emplace(kProfile, *BuildQueueingHintMap({fit.get(), label.get(), other.get()}, gates));
    opts.index_unschedulable_pods = indexed;
    q = std::make_unique<PriorityQueue>(sort, std::move(opts));
  }

  static std::vector<PodPtr> MakePods(int n) {
    std::vector<PodPtr> pods;
    pods.reserve(n);
    for (int i = 0; i < n; ++i) pods.push_back(testing::MakePod("pod-" + std::to_string(i), i % 1000));
    return pods;
  }

  // Pops every pod and fails it with `plugins`, leaving all of them in
  // unschedulablePods (no event is in flight).
  void FailAll(size_t n, std::initializer_list<std::string_view> plugins) {
    std::vector<framework::QueuedPodInfoPtr> popped;
    popped.reserve(n);
    for (size_t i = 0; i < n; ++i) popped.push_back(q->Pop());
    for (auto& info : popped) {
      for (auto p : plugins) info->unschedulable_plugins.Insert(p);
      (void)q->AddUnschedulableIfNotPresent(info, q->SchedulingCycle());
    }
  }

  util::FakeClock clock;
  plugins::queuesort::PrioritySort sort;
  std::unique_ptr<FakePlugin> fit, label, other;
  std::unique_ptr<PriorityQueue> q;
};

void BM_AddPop(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Bench b;
  std::vector<PodPtr> pods = Bench::MakePods(n);
  for (auto _ : state) {
    for (const PodPtr& p : pods) b.q->Add(p);
    for (int i = 0; i < n; ++i) {
      framework::QueuedPodInfoPtr info = b.q->Pop();
      b.q->Done(info->pod().metadata.uid);
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
  // Seconds per pod (shown with an SI prefix: "850n" is 850 ns).
  state.counters["time_per_pod"] =
      benchmark::Counter(static_cast<double>(state.iterations() * n), benchmark::Counter::kIsRate |
                                                                         benchmark::Counter::kInvert);
}
BENCHMARK(BM_AddPop)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// What building a PodInfo costs (part of every Add): the framework derives
// affinity terms and resource requests eagerly.
void BM_NewPodInfo(benchmark::State& state) {
  std::vector<PodPtr> pods = Bench::MakePods(1000);
  size_t i = 0;
  for (auto _ : state) {
    framework::PodInfo info(pods[i++ % pods.size()]);
    benchmark::DoNotOptimize(info);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NewPodInfo);

// Update of a pod in activeQ whose priority flips, so it re-sifts.
void BM_UpdateInActiveQ(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Bench b;
  std::vector<PodPtr> pods = Bench::MakePods(n);
  for (const PodPtr& p : pods) b.q->Add(p);
  PodPtr v1 = pods[n / 2];
  auto v2 = std::make_shared<api::Pod>(*v1);
  v2->spec.priority = 5000;
  PodPtr cur = v1;
  PodPtr next = v2;
  for (auto _ : state) {
    b.q->Update(cur, next);
    std::swap(cur, next);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UpdateInActiveQ)->Arg(10000)->Arg(100000);

// (a) an event no plugin registered: returns before looking at any pod.
void BM_MoveAllUninterestingEvent(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Bench b(state.range(1) != 0);
  for (const PodPtr& p : Bench::MakePods(n)) b.q->Add(p);
  b.FailAll(n, {"Fit", "Label"});
  for (auto _ : state) b.q->MoveAllToActiveOrBackoffQueue(kCsiDriverAdd, EventObject(), EventObject());
  if (b.q->NumUnschedulablePods() != static_cast<size_t>(n)) state.SkipWithError("pods moved");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MoveAllUninterestingEvent)->ArgsProduct({{10000, 100000}, {1, 0}})->ArgNames({"pods", "indexed"});

// An event some plugin registered, but no pod was rejected by it: the index
// visits nothing, the kube-style walk visits every pod.
void BM_MoveAllEventOfUninvolvedPlugin(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Bench b(state.range(1) != 0);
  for (const PodPtr& p : Bench::MakePods(n)) b.q->Add(p);
  b.FailAll(n, {"Fit", "Label"});
  for (auto _ : state) b.q->MoveAllToActiveOrBackoffQueue(kPvAdd, EventObject(), EventObject());
  if (b.q->NumUnschedulablePods() != static_cast<size_t>(n)) state.SkipWithError("pods moved");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MoveAllEventOfUninvolvedPlugin)
    ->ArgsProduct({{10000, 100000}, {1, 0}})
    ->ArgNames({"pods", "indexed"})
    ->Unit(benchmark::kMicrosecond);

// (b) an event that moves every unschedulable pod to activeQ.
void BM_MoveAllMovesAll(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Bench b(state.range(1) != 0);
  for (const PodPtr& p : Bench::MakePods(n)) b.q->Add(p);
  b.FailAll(n, {"Fit", "Label"});
  for (auto _ : state) {
    b.clock.Step(20s);  // backoff over: the pods go straight to activeQ
    b.q->MoveAllToActiveOrBackoffQueue(kNodeLabel, EventObject(), EventObject());
    state.PauseTiming();
    if (b.q->PodsInActiveQ().size() != static_cast<size_t>(n)) state.SkipWithError("not all moved");
    b.FailAll(n, {"Fit", "Label"});
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_MoveAllMovesAll)
    ->ArgsProduct({{10000, 100000}, {1, 0}})
    ->ArgNames({"pods", "indexed"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

// (c) an event whose hints skip 99% of the pods.
void BM_MoveAllHintsSkip99(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Bench b(state.range(1) != 0);
  for (const PodPtr& p : Bench::MakePods(n)) b.q->Add(p);
  b.FailAll(n, {"Fit", "Label"});
  for (auto _ : state) {
    b.clock.Step(20s);
    b.q->MoveAllToActiveOrBackoffQueue(kNodeAdd, EventObject(), EventObject());
    state.PauseTiming();
    size_t moved = b.q->PodsInActiveQ().size();
    if (moved != static_cast<size_t>(n / 100)) state.SkipWithError("expected 1% to move");
    b.FailAll(moved, {"Fit", "Label"});
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_MoveAllHintsSkip99)
    ->ArgsProduct({{10000, 100000}, {1, 0}})
    ->ArgNames({"pods", "indexed"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(10);

// flushBackoffQCompleted with 100k backing-off pods whose backoff is over.
void BM_FlushBackoffQCompleted(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Bench b;
  for (const PodPtr& p : Bench::MakePods(n)) b.q->Add(p);
  for (auto _ : state) {
    state.PauseTiming();
    b.FailAll(n, {});  // errors: all n in the error backoff heap
    b.clock.Step(20s);
    state.ResumeTiming();
    b.q->FlushBackoffQCompleted();
    state.PauseTiming();
    if (b.q->PodsInActiveQ().size() != static_cast<size_t>(n)) state.SkipWithError("not all flushed");
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_FlushBackoffQCompleted)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace ksched::scheduler::queue

BENCHMARK_MAIN();
