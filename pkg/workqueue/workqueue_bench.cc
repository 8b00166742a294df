// Work-queue micro-benchmarks (Google Benchmark), on the real clock.
//
//  BM_AddGetDone/W:     one producer adds distinct keys while W workers Get
//                       and Done them; items/s is the queue's throughput.
//  BM_AddAfterPending:  AddAfter of new keys into a heap already holding
//                       100k waiting items (ns per AddAfter).
//  BM_AddAfterMoveEarlier: AddAfter of an already-waiting key with an earlier
//                       ready time (the de-duplication path), 100k waiting.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "pkg/workqueue/delaying_queue.h"
#include "pkg/workqueue/queue.h"

namespace ksched::workqueue {
namespace {

std::vector<std::string> MakeKeys(int n) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (int i = 0; i < n; ++i)
    keys.push_back("namespace-" + std::to_string(i % 97) + "/pod-" + std::to_string(i));
  return keys;
}

void BM_AddGetDone(benchmark::State& state) {
  const int workers = static_cast<int>(state.range(0));
  constexpr int kBatch = 10000;
  const std::vector<std::string> keys = MakeKeys(kBatch);
  for (auto _ : state) {
    Queue<std::string> q(util::RealClock::Get());
    std::atomic<int> processed{0};
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) {
      threads.emplace_back([&] {
        while (auto key = q.Get()) {
          benchmark::DoNotOptimize(key->size());
          q.Done(*key);
          processed.fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
    for (const auto& k : keys) q.Add(k);
    q.ShutDownWithDrain();
    for (auto& t : threads) t.join();
    if (processed.load() != kBatch) state.SkipWithError("items lost");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_AddGetDone)->Arg(1)->Arg(2)->Arg(8)->UseRealTime()->Unit(benchmark::kMillisecond);

constexpr int kPending = 100000;

void BM_AddAfterPending(benchmark::State& state) {
  DelayingQueue<std::string> q(util::RealClock::Get());
  const std::vector<std::string> pending = MakeKeys(kPending);
  for (int i = 0; i < kPending; ++i)
    q.AddAfter(pending[i], std::chrono::hours(1) + std::chrono::seconds(i));
  // New keys, prepared outside the timed loop; cycled so the heap stays near
  // 100k + the number of distinct new keys.
  std::vector<std::string> fresh;
  for (int i = 0; i < 1 << 16; ++i) fresh.push_back("fresh/pod-" + std::to_string(i));
  size_t i = 0;
  for (auto _ : state) {
    q.AddAfter(fresh[i & 0xffff], std::chrono::hours(2) + std::chrono::microseconds(i));
    ++i;
  }
  state.counters["waiting"] = static_cast<double>(q.WaitingLen());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AddAfterPending);

void BM_AddAfterMoveEarlier(benchmark::State& state) {
  DelayingQueue<std::string> q(util::RealClock::Get());
  const std::vector<std::string> pending = MakeKeys(kPending);
  for (int i = 0; i < kPending; ++i) q.AddAfter(pending[i], std::chrono::hours(10));
  // Each call moves a different key one step earlier than before.
  util::Duration delay = std::chrono::hours(9);
  size_t i = 0;
  for (auto _ : state) {
    q.AddAfter(pending[i % kPending], delay);
    if (++i % kPending == 0) delay -= std::chrono::seconds(1);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AddAfterMoveEarlier);

}  // namespace
}  // namespace ksched::workqueue

BENCHMARK_MAIN();
