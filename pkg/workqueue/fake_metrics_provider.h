// FakeMetricsProvider: a MetricsProvider for tests that keeps every value in
// memory, per queue name, so a test can read back exactly what a queue
// reported. WaitForUnfinishedWorkUpdates blocks until the periodic loop has
// set the unfinished-work gauge a given number of times, which lets tests
// observe that loop without sleeping.
//
// Thread-safety: thread-safe (one mutex for everything).
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/workqueue/metrics.h"

namespace ksched::workqueue::testing {

struct FakeQueueValues {
  double depth = 0;
  int adds = 0;
  std::vector<double> latencies;
  std::vector<double> work_durations;
  double unfinished_work_seconds = 0;
  int unfinished_work_updates = 0;  // completed UpdateUnfinishedWork calls
  double longest_running_processor_seconds = 0;
  int retries = 0;
};

class FakeMetricsProvider final : public MetricsProvider {
 public:
  // A copy of the values recorded for queue `name`.
  FakeQueueValues Values(const std::string& name) {
    std::lock_guard<std::mutex> l(mu_);
    return values_[name];
  }

  // Blocks until the unfinished-work gauge of `name` has been set at least
  // `n` times; false after a generous real-time limit (a hung loop).
  bool WaitForUnfinishedWorkUpdates(const std::string& name, int n) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::seconds(30),
                        [&] { return values_[name].unfinished_work_updates >= n; });
  }

  std::unique_ptr<GaugeMetric> NewDepthMetric(const std::string& name) override {
    return std::make_unique<Gauge>(this, name);
  }
  std::unique_ptr<CounterMetric> NewAddsMetric(const std::string& name) override {
    return std::make_unique<Counter>(this, name, &FakeQueueValues::adds);
  }
  std::unique_ptr<HistogramMetric> NewLatencyMetric(const std::string& name) override {
    return std::make_unique<Histogram>(this, name, &FakeQueueValues::latencies);
  }
  std::unique_ptr<HistogramMetric> NewWorkDurationMetric(const std::string& name) override {
    return std::make_unique<Histogram>(this, name, &FakeQueueValues::work_durations);
  }
  std::unique_ptr<SettableGaugeMetric> NewUnfinishedWorkSecondsMetric(
      const std::string& name) override {
    return std::make_unique<Settable>(this, name, &FakeQueueValues::unfinished_work_seconds,
                                      nullptr);
  }
  std::unique_ptr<SettableGaugeMetric> NewLongestRunningProcessorSecondsMetric(
      const std::string& name) override {
    // UpdateUnfinishedWork sets this gauge last, so counting here means both
    // gauges hold the new values when a waiter wakes.
    return std::make_unique<Settable>(this, name,
                                      &FakeQueueValues::longest_running_processor_seconds,
                                      &FakeQueueValues::unfinished_work_updates);
  }
  std::unique_ptr<CounterMetric> NewRetriesMetric(const std::string& name) override {
    return std::make_unique<Counter>(this, name, &FakeQueueValues::retries);
  }

 private:
  class Gauge final : public GaugeMetric {
   public:
    Gauge(FakeMetricsProvider* p, std::string name) : p_(p), name_(std::move(name)) {}
    void Inc() override {
      std::lock_guard<std::mutex> l(p_->mu_);
      p_->values_[name_].depth += 1;
    }
    void Dec() override {
      std::lock_guard<std::mutex> l(p_->mu_);
      p_->values_[name_].depth -= 1;
    }

   private:
    FakeMetricsProvider* p_;
    std::string name_;
  };

  class Counter final : public CounterMetric {
   public:
    Counter(FakeMetricsProvider* p, std::string name, int FakeQueueValues::*field)
        : p_(p), name_(std::move(name)), field_(field) {}
    void Inc() override {
      std::lock_guard<std::mutex> l(p_->mu_);
      p_->values_[name_].*field_ += 1;
    }

   private:
    FakeMetricsProvider* p_;
    std::string name_;
    int FakeQueueValues::*field_;
  };

  class Histogram final : public HistogramMetric {
   public:
    Histogram(FakeMetricsProvider* p, std::string name, std::vector<double> FakeQueueValues::*field)
        : p_(p), name_(std::move(name)), field_(field) {}
    void Observe(double v) override {
      std::lock_guard<std::mutex> l(p_->mu_);
      (p_->values_[name_].*field_).push_back(v);
    }

   private:
    FakeMetricsProvider* p_;
    std::string name_;
    std::vector<double> FakeQueueValues::*field_;
  };

  class Settable final : public SettableGaugeMetric {
   public:
    Settable(FakeMetricsProvider* p, std::string name, double FakeQueueValues::*field,
             int FakeQueueValues::*updates)
        : p_(p), name_(std::move(name)), field_(field), updates_(updates) {}
    void Set(double v) override {
      std::lock_guard<std::mutex> l(p_->mu_);
      p_->values_[name_].*field_ = v;
      if (updates_ != nullptr) p_->values_[name_].*updates_ += 1;
      p_->cv_.notify_all();
    }

   private:
    FakeMetricsProvider* p_;
    std::string name_;
    double FakeQueueValues::*field_;
    int FakeQueueValues::*updates_;
  };

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, FakeQueueValues> values_;
};

}  // namespace ksched::workqueue::testing
