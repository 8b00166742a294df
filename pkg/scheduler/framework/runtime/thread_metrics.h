// ThreadMetrics: what a framework's per-node extension points report,
// accumulated per thread so that a Filter or Score worker never writes a
// shared cache line per node, and handed to the recorder by Flush().
//
// Each thread that reports gets its own Block of single-writer cells (a
// relaxed load and store, no read-modify-write):
//   - evaluation counts, one per counted plugin (plugin_evaluation_total);
//   - duration histograms of sampled cycles, one per (duration series,
//     status code): the bucket counts over the recorder's
//     PluginDurationBounds(), the count and the sum
//     (plugin_execution_duration_seconds).
// Durations are in ticks of a given length: the framework times plugins
// with util::CycleClock (one RDTSC a read where available), and the bounds
// are converted to ticks once, so a worker never converts.
// Flush() adds what every block gained since the previous Flush to the
// recorder's resolved series, one AddBuckets per series; a series is
// resolved the first time it has something to add. Sorting a duration into
// its bucket at the worker costs a few compares (durations sit in the first
// buckets), where keeping the samples for later would cost a buffer append
// per plugin and node and a grouping pass on the scheduling thread.
//
// Thread-safety: Local() and the Block's writers from any thread (each on
// its own block); Flush() from any thread, serialized internally. A block
// cell has one writer; Flush reads cells while they may be written and
// picks up the rest at the next Flush.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "pkg/scheduler/framework/metrics_recorder.h"
#include "pkg/scheduler/framework/status.h"

namespace ksched::scheduler::framework::runtime {

class ThreadMetrics {
 public:
  // One plugin_execution_duration_seconds series family member: the
  // extension point and plugin (views into strings that outlive this
  // object); the status code is the third label, chosen per observation.
  struct DurationSeries {
    std::string_view extension_point;
    std::string_view plugin;
  };

  class Block {
   public:
    // `bounds`: the owning ThreadMetrics' bucket bounds in ticks.
    Block(size_t num_counted, size_t num_cells, const std::vector<int64_t>& bounds);
    // Evaluation count of counted plugin `i` += `calls`.
    void Count(size_t i, int64_t calls = 1) {
      Bump(evaluations_[i], calls);
      // Release: a Flush that sees this count sees the one above.
      counted_.store(counted_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }
    // One duration, in ticks, of series `series` that ended with `code`.
    void Observe(size_t series, Code code, int64_t ticks) { ObserveRun(series, code, 1, ticks); }
    // `calls` durations of series `series` that ended with `code` and took
    // `ticks` together (a run of nodes timed at once), each taken at their
    // mean: the count and the sum are exact, and so are the buckets whenever
    // the total lies within the first bucket, since every call then does.
    void ObserveRun(size_t series, Code code, int64_t calls, int64_t ticks);

   private:
    friend class ThreadMetrics;
    static void Bump(std::atomic<int64_t>& c, int64_t by) {
      c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
    }

    const std::vector<int64_t>& bounds_;
    const size_t stride_;
    std::vector<std::atomic<int64_t>> evaluations_;  // written by the owning thread only
    std::vector<int64_t> evaluations_taken_;         // guarded by ThreadMetrics::mu_
    std::atomic<int64_t> counted_{0};                // every Count, to skip idle blocks
    int64_t counted_taken_ = 0;                      // guarded by ThreadMetrics::mu_
    // Per cell: [count, sum in ticks, bucket 0 .. bucket N]; written by the owning
    // thread only.
    std::vector<std::atomic<int64_t>> cells_;
    std::vector<int64_t> cells_taken_;  // guarded by ThreadMetrics::mu_
    std::atomic<int64_t> observed_{0};  // every Observe, to skip idle blocks
    int64_t observed_taken_ = 0;        // guarded by ThreadMetrics::mu_
  };

  // `counters` (one per counted plugin) and the recorder must outlive this
  // object. A duration tick lasts `nanos_per_tick` nanoseconds.
  ThreadMetrics(FrameworkMetricsRecorder& recorder, std::vector<EvaluationCounter*> counters,
                std::vector<DurationSeries> series, double nanos_per_tick = 1.0);

  // The calling thread's block. Inline: the instrumented Filter and Score
  // wrappers ask for it on every plugin call.
  Block& Local() {
    // A one-entry cache keyed by this object's id (ids are never reused, so
    // an entry left by a destroyed object cannot match).
    thread_local Cache cache;
    if (cache.id == id_) [[likely]] return *cache.block;
    return LocalSlow(cache);
  }
  // Adds what every block gained since the previous Flush to the counters
  // and duration series.
  void Flush();

 private:
  static constexpr size_t kNumCodes = static_cast<size_t>(Code::kPending) + 1;
  // Cell layout: count, sum in ticks, one slot per bound, one above them all.
  static constexpr size_t kCount = 0;
  static constexpr size_t kSum = 1;
  static constexpr size_t kFirstBucket = 2;
  static size_t Stride(const std::vector<int64_t>& bounds) { return kFirstBucket + bounds.size() + 1; }
  struct Cache {
    uint64_t id = 0;
    Block* block = nullptr;
  };
  static uint64_t NextId();
  // Finds or makes the calling thread's block and caches it.
  Block& LocalSlow(Cache& cache);
  DurationHistogram& Histogram(size_t cell);  // requires mu_

  const uint64_t id_;
  FrameworkMetricsRecorder& recorder_;
  const std::vector<EvaluationCounter*> counters_;
  const std::vector<DurationSeries> series_;
  const double nanos_per_tick_;
  // The recorder's bounds in ticks: a duration of d ticks belongs to the
  // first bucket i with d <= bounds_[i].
  const std::vector<int64_t> bounds_;

  std::mutex mu_;
  // A thread's id may be reused once it exited; its block then passes to
  // the new thread, still with one writer.
  std::unordered_map<std::thread::id, std::unique_ptr<Block>> blocks_;  // guarded by mu_
  std::vector<std::unique_ptr<DurationHistogram>> histograms_;         // by cell, guarded by mu_
  // Flush's per-cell sums over the blocks, guarded by mu_; all zero between
  // Flushes (a Flush clears each cell it hands on, so it never clears all).
  std::vector<int64_t> pending_;
};

}  // namespace ksched::scheduler::framework::runtime
