// PrometheusMetricsProvider: the workqueue metrics of client-go
// (k8s.io/component-base/metrics/prometheus/workqueue) on a prometheus-cpp
// registry, so existing dashboards work unchanged:
//
//   workqueue_depth                              gauge      {name}
//   workqueue_adds_total                         counter    {name}
//   workqueue_queue_duration_seconds             histogram  {name}
//   workqueue_work_duration_seconds              histogram  {name}
//   workqueue_unfinished_work_seconds            gauge      {name}
//   workqueue_longest_running_processor_seconds  gauge      {name}
//   workqueue_retries_total                      counter    {name}
//
// Both histograms use the buckets 1e-8, 1e-7, ..., 10 seconds (exponential,
// factor 10, 10 buckets).
//
// The families are registered once, in the constructor; each queue gets the
// series of its own name. Two queues with the same name share series, as
// with client-go's label vectors.
//
// Thread-safety: thread-safe (prometheus-cpp metrics are). Lifetime: the
// registry must outlive the provider and every metric it created; the
// provider must outlive the queues built with it.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

#include "pkg/workqueue/metrics.h"

namespace ksched::workqueue {

class PrometheusMetricsProvider final : public MetricsProvider {
 public:
  // Registers the seven families on `registry` (merging with families of the
  // same name already there, e.g. from another provider on the registry),
  // with the help texts of kube 1.`kube_minor` (component-base marks them
  // [ALPHA], and [BETA] from 1.36).
  PrometheusMetricsProvider(prometheus::Registry& registry, int kube_minor);

  // The histogram buckets of both duration metrics.
  static prometheus::Histogram::BucketBoundaries DurationBuckets();

  std::unique_ptr<GaugeMetric> NewDepthMetric(const std::string& name) override;
  std::unique_ptr<CounterMetric> NewAddsMetric(const std::string& name) override;
  std::unique_ptr<HistogramMetric> NewLatencyMetric(const std::string& name) override;
  std::unique_ptr<HistogramMetric> NewWorkDurationMetric(const std::string& name) override;
  std::unique_ptr<SettableGaugeMetric> NewUnfinishedWorkSecondsMetric(
      const std::string& name) override;
  std::unique_ptr<SettableGaugeMetric> NewLongestRunningProcessorSecondsMetric(
      const std::string& name) override;
  std::unique_ptr<CounterMetric> NewRetriesMetric(const std::string& name) override;

 private:
  PrometheusMetricsProvider(prometheus::Registry& registry, const std::string& help_prefix);

  prometheus::Family<prometheus::Gauge>& depth_;
  prometheus::Family<prometheus::Counter>& adds_;
  prometheus::Family<prometheus::Histogram>& latency_;
  prometheus::Family<prometheus::Histogram>& work_duration_;
  prometheus::Family<prometheus::Gauge>& unfinished_work_;
  prometheus::Family<prometheus::Gauge>& longest_running_processor_;
  prometheus::Family<prometheus::Counter>& retries_;
};

}  // namespace ksched::workqueue
