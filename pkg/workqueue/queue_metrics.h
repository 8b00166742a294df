// QueueMetrics<T>: turns a queue's Add / Get / Done into metric updates.
//
// It remembers when each item was first added (for the queue-latency
// histogram) and when each item's processing started (for the work-duration
// histogram and the unfinished-work gauges), reading time from the queue's
// injected Clock.
//
// Thread-safety: none of its own. The owning queue calls every method with
// its mutex held, which also orders the updates of the depth gauge.
// Memory: one entry per item waiting or being processed.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>

#include "pkg/util/clock.h"
#include "pkg/workqueue/metrics.h"
#include "pkg/util/seconds.h"

namespace ksched::workqueue {

template <class T, class Hash = std::hash<T>>
class QueueMetrics {
 public:
  QueueMetrics(const std::string& name, MetricsProvider& provider, const util::Clock& clock)
      : clock_(clock),
        depth_(provider.NewDepthMetric(name)),
        adds_(provider.NewAddsMetric(name)),
        latency_(provider.NewLatencyMetric(name)),
        work_duration_(provider.NewWorkDurationMetric(name)),
        unfinished_work_seconds_(provider.NewUnfinishedWorkSecondsMetric(name)),
        longest_running_processor_(provider.NewLongestRunningProcessorSecondsMetric(name)) {}

  // An item became dirty (queued or marked for re-processing).
  void Add(const T& item) {
    adds_->Inc();
    depth_->Inc();
    // Keep the first add time: latency runs from the first add to the Get.
    add_times_.try_emplace(item, clock_.Now());
  }

  // An item was handed to a worker.
  void Get(const T& item) {
    depth_->Dec();
    util::TimePoint now = clock_.Now();
    processing_start_times_[item] = now;
    auto it = add_times_.find(item);
    if (it != add_times_.end()) {
      latency_->Observe(util::Seconds(now - it->second));
      add_times_.erase(it);
    }
  }

  // A worker finished an item.
  void Done(const T& item) {
    auto it = processing_start_times_.find(item);
    if (it == processing_start_times_.end()) return;
    work_duration_->Observe(util::Seconds(clock_.Now() - it->second));
    processing_start_times_.erase(it);
  }

  // Sets the total and the longest age of the work in progress. O(items in
  // progress); called periodically, not per item.
  void UpdateUnfinishedWork() {
    util::TimePoint now = clock_.Now();
    double total = 0;
    double oldest = 0;
    for (const auto& [item, start] : processing_start_times_) {
      double age = util::Seconds(now - start);
      total += age;
      oldest = std::max(oldest, age);
    }
    unfinished_work_seconds_->Set(total);
    longest_running_processor_->Set(oldest);
  }

 private:

  const util::Clock& clock_;
  std::unique_ptr<GaugeMetric> depth_;
  std::unique_ptr<CounterMetric> adds_;
  std::unique_ptr<HistogramMetric> latency_;
  std::unique_ptr<HistogramMetric> work_duration_;
  std::unique_ptr<SettableGaugeMetric> unfinished_work_seconds_;
  std::unique_ptr<SettableGaugeMetric> longest_running_processor_;
  std::unordered_map<T, util::TimePoint, Hash> add_times_;
  std::unordered_map<T, util::TimePoint, Hash> processing_start_times_;
};

}  // namespace ksched::workqueue
