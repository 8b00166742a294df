#include "pkg/scheduler/framework/runtime/thread_metrics.h"

#include <algorithm>
#include <cmath>

namespace ksched::scheduler::framework::runtime {

namespace {

// A whole number of ticks d is at most `seconds` exactly when it is at most
// floor(seconds / seconds per tick).
std::vector<int64_t> ToTicks(const std::vector<double>& seconds, double nanos_per_tick) {
  std::vector<int64_t> out;
  out.reserve(seconds.size());
  for (double s : seconds) out.push_back(static_cast<int64_t>(std::floor(s * 1e9 / nanos_per_tick)));
  return out;
}

}  // namespace

ThreadMetrics::Block::Block(size_t num_counted, size_t num_cells, const std::vector<int64_t>& bounds)
    : bounds_(bounds),
      stride_(Stride(bounds)),
      evaluations_(num_counted),
      evaluations_taken_(num_counted, 0),
      cells_(num_cells * stride_),
      cells_taken_(num_cells * stride_, 0) {
  for (std::atomic<int64_t>& c : evaluations_) c.store(0, std::memory_order_relaxed);
  for (std::atomic<int64_t>& c : cells_) c.store(0, std::memory_order_relaxed);
}

void ThreadMetrics::Block::ObserveRun(size_t series, Code code, int64_t calls, int64_t ticks) {
  if (calls <= 0) return;
  const int64_t mean = ticks / calls;
  // Plugin calls take nanoseconds to microseconds and the first bound is
  // 10 µs: a linear scan usually stops at the first compare.
  size_t bucket = 0;
  while (bucket < bounds_.size() && mean > bounds_[bucket]) ++bucket;
  std::atomic<int64_t>* cell = &cells_[(series * kNumCodes + static_cast<size_t>(code)) * stride_];
  Bump(cell[kCount], calls);
  Bump(cell[kSum], ticks);
  Bump(cell[kFirstBucket + bucket], calls);
  // Release: a Flush that sees this count sees the cells above.
  observed_.store(observed_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

ThreadMetrics::ThreadMetrics(FrameworkMetricsRecorder& recorder, std::vector<EvaluationCounter*> counters,
                             std::vector<DurationSeries> series, double nanos_per_tick)
    : id_(NextId()),
      recorder_(recorder),
      counters_(std::move(counters)),
      series_(std::move(series)),
      nanos_per_tick_(nanos_per_tick),
      bounds_(ToTicks(recorder.PluginDurationBounds(), nanos_per_tick)),
      histograms_(series_.size() * kNumCodes),
      pending_(histograms_.size() * Stride(bounds_), 0) {}

uint64_t ThreadMetrics::NextId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

ThreadMetrics::Block& ThreadMetrics::LocalSlow(Cache& cache) {
  std::lock_guard<std::mutex> l(mu_);
  std::unique_ptr<Block>& b = blocks_[std::this_thread::get_id()];
  if (b == nullptr) b = std::make_unique<Block>(counters_.size(), series_.size() * kNumCodes, bounds_);
  cache = Cache{id_, b.get()};
  return *b;
}

DurationHistogram& ThreadMetrics::Histogram(size_t cell) {
  std::unique_ptr<DurationHistogram>& h = histograms_[cell];
  if (h == nullptr) {
    const DurationSeries& s = series_[cell / kNumCodes];
    h = recorder_.NewPluginDurationHistogram(s.extension_point, s.plugin, static_cast<Code>(cell % kNumCodes));
  }
  return *h;
}

void ThreadMetrics::Flush() {
  std::lock_guard<std::mutex> l(mu_);
  const size_t stride = Stride(bounds_);
  const size_t num_buckets = bounds_.size() + 1;
  // What the blocks gained, summed per cell: one AddBuckets per series.
  // Most cycles are not sampled: then no cell is scanned.
  bool any = false;
  for (auto& [thread, b] : blocks_) {
    // Most blocks belong to pool workers that did not run since the last
    // Flush: one load tells.
    const int64_t counted = b->counted_.load(std::memory_order_acquire);
    const bool counts_changed = counted != b->counted_taken_;
    b->counted_taken_ = counted;
    for (size_t i = 0; counts_changed && i < counters_.size(); ++i) {
      const int64_t now = b->evaluations_[i].load(std::memory_order_relaxed);
      if (now != b->evaluations_taken_[i]) counters_[i]->Add(now - b->evaluations_taken_[i]);
      b->evaluations_taken_[i] = now;
    }
    const int64_t observed = b->observed_.load(std::memory_order_acquire);
    if (observed == b->observed_taken_) continue;
    b->observed_taken_ = observed;
    any = true;
    // Cell layouts of blocks and pending_ agree.
    for (size_t base = 0; base < pending_.size(); base += stride) {
      if (b->cells_[base + kCount].load(std::memory_order_relaxed) == b->cells_taken_[base + kCount]) continue;
      for (size_t k = 0; k < stride; ++k) {
        const int64_t now = b->cells_[base + k].load(std::memory_order_relaxed);
        pending_[base + k] += now - b->cells_taken_[base + k];
        b->cells_taken_[base + k] = now;
      }
    }
  }
  if (!any) return;
  std::vector<int64_t> counts(num_buckets);
  for (size_t cell = 0; cell < histograms_.size(); ++cell) {
    int64_t* p = &pending_[cell * stride];
    if (p[kCount] == 0) continue;
    counts.assign(p + kFirstBucket, p + stride);
    Histogram(cell).AddBuckets(counts, static_cast<double>(p[kSum]) * nanos_per_tick_ / 1e9);
    std::fill(p, p + stride, 0);
  }
}

}  // namespace ksched::scheduler::framework::runtime
