// Work-queue metrics: the small interfaces a queue reports through, and the
// provider that creates them per named queue.
//
// A queue never talks to a metrics library directly; it asks a
// MetricsProvider for one object per metric when it is built, so the queue
// package depends on no registry and no HTTP server. The prometheus-cpp
// implementation lives in prometheus_metrics.h; the default is the no-op
// provider, with which a queue does no metric bookkeeping at all.
//
// Thread-safety: metric objects are called from several threads (the queue's
// callers, its waiting loop and its unfinished-work loop); implementations
// must be thread-safe. Providers are called only while a queue is built, but
// may be shared by many queues built concurrently, so they must be
// thread-safe too. A provider must outlive every queue built with it.
#pragma once

#include <memory>
#include <string>

namespace ksched::workqueue {

// A value that goes up and down by one (queue depth).
class GaugeMetric {
 public:
  virtual ~GaugeMetric() = default;
  virtual void Inc() = 0;
  virtual void Dec() = 0;
};

// A value that is set outright (unfinished work, longest-running processor).
class SettableGaugeMetric {
 public:
  virtual ~SettableGaugeMetric() = default;
  virtual void Set(double value) = 0;
};

// A value that only goes up (adds, retries).
class CounterMetric {
 public:
  virtual ~CounterMetric() = default;
  virtual void Inc() = 0;
};

// A distribution of observations, in seconds (queue latency, work duration).
class HistogramMetric {
 public:
  virtual ~HistogramMetric() = default;
  virtual void Observe(double value) = 0;
};

// Creates the metrics of one queue; `name` is the queue's name (the `name`
// label of client-go's workqueue metrics).
class MetricsProvider {
 public:
  virtual ~MetricsProvider() = default;

  virtual std::unique_ptr<GaugeMetric> NewDepthMetric(const std::string& name) = 0;
  virtual std::unique_ptr<CounterMetric> NewAddsMetric(const std::string& name) = 0;
  virtual std::unique_ptr<HistogramMetric> NewLatencyMetric(const std::string& name) = 0;
  virtual std::unique_ptr<HistogramMetric> NewWorkDurationMetric(const std::string& name) = 0;
  virtual std::unique_ptr<SettableGaugeMetric> NewUnfinishedWorkSecondsMetric(
      const std::string& name) = 0;
  virtual std::unique_ptr<SettableGaugeMetric> NewLongestRunningProcessorSecondsMetric(
      const std::string& name) = 0;
  virtual std::unique_ptr<CounterMetric> NewRetriesMetric(const std::string& name) = 0;
};

// Creates metrics that discard everything. Queues recognise this provider
// and skip their bookkeeping (timestamps per item, the periodic update).
class NoopMetricsProvider final : public MetricsProvider {
 public:
  // The process-wide instance; queues use it when given no provider.
  static NoopMetricsProvider& Get();

  std::unique_ptr<GaugeMetric> NewDepthMetric(const std::string& name) override;
  std::unique_ptr<CounterMetric> NewAddsMetric(const std::string& name) override;
  std::unique_ptr<HistogramMetric> NewLatencyMetric(const std::string& name) override;
  std::unique_ptr<HistogramMetric> NewWorkDurationMetric(const std::string& name) override;
  std::unique_ptr<SettableGaugeMetric> NewUnfinishedWorkSecondsMetric(
      const std::string& name) override;
  std::unique_ptr<SettableGaugeMetric> NewLongestRunningProcessorSecondsMetric(
      const std::string& name) override;
  std::unique_ptr<CounterMetric> NewRetriesMetric(const std::string& name) override;
};

// True when a queue named `name` using `provider` (nullptr = no-op) should
// record metrics: it must have a name and a real provider, as in client-go
// where unnamed queues emit nothing.
bool MetricsEnabled(const std::string& name, const MetricsProvider* provider);

}  // namespace ksched::workqueue
