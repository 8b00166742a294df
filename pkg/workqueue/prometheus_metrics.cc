#include "pkg/workqueue/prometheus_metrics.h"

namespace ksched::workqueue {

namespace {

class PromGauge final : public GaugeMetric {
 public:
  explicit PromGauge(prometheus::Gauge& g) : g_(g) {}
  void Inc() override { g_.Increment(); }
  void Dec() override { g_.Decrement(); }

 private:
  prometheus::Gauge& g_;
};

class PromSettableGauge final : public SettableGaugeMetric {
 public:
  explicit PromSettableGauge(prometheus::Gauge& g) : g_(g) {}
  void Set(double value) override { g_.Set(value); }

 private:
  prometheus::Gauge& g_;
};

class PromCounter final : public CounterMetric {
 public:
  explicit PromCounter(prometheus::Counter& c) : c_(c) {}
  void Inc() override { c_.Increment(); }

 private:
  prometheus::Counter& c_;
};

class PromHistogram final : public HistogramMetric {
 public:
  explicit PromHistogram(prometheus::Histogram& h) : h_(h) {}
  void Observe(double value) override { h_.Observe(value); }

 private:
  prometheus::Histogram& h_;
};

prometheus::Labels NameLabel(const std::string& name) { return {{"name", name}}; }

}  // namespace

PrometheusMetricsProvider::PrometheusMetricsProvider(prometheus::Registry& registry, int kube_minor)
    : PrometheusMetricsProvider(registry, kube_minor >= 36 ? "[BETA] " : "[ALPHA] ") {}

PrometheusMetricsProvider::PrometheusMetricsProvider(prometheus::Registry& registry,
                                                     const std::string& help_prefix)
    : depth_(prometheus::BuildGauge()
                 .Name("workqueue_depth")
                 .Help(help_prefix + "Current depth of workqueue")
                 .Register(registry)),
      adds_(prometheus::BuildCounter()
                .Name("workqueue_adds_total")
                .Help(help_prefix + "Total number of adds handled by workqueue")
                .Register(registry)),
      latency_(prometheus::BuildHistogram()
                   .Name("workqueue_queue_duration_seconds")
                   .Help(help_prefix + "How long in seconds an item stays in workqueue before being requested.")
                   .Register(registry)),
      work_duration_(prometheus::BuildHistogram()
                         .Name("workqueue_work_duration_seconds")
                         .Help(help_prefix + "How long in seconds processing an item from workqueue takes.")
                         .Register(registry)),
      unfinished_work_(prometheus::BuildGauge()
                           .Name("workqueue_unfinished_work_seconds")
                           .Help(help_prefix + "How many seconds of work has done that is in progress and "
                                 "hasn't been observed by work_duration. Large values indicate "
                                 "stuck threads. One can deduce the number of stuck threads by "
                                 "observing the rate at which this increases.")
                           .Register(registry)),
      longest_running_processor_(
          prometheus::BuildGauge()
              .Name("workqueue_longest_running_processor_seconds")
              .Help(help_prefix + "How many seconds has the longest running processor for workqueue been "
                    "running.")
              .Register(registry)),
      retries_(prometheus::BuildCounter()
                   .Name("workqueue_retries_total")
                   .Help(help_prefix + "Total number of retries handled by workqueue")
                   .Register(registry)) {}

prometheus::Histogram::BucketBoundaries PrometheusMetricsProvider::DurationBuckets() {
  prometheus::Histogram::BucketBoundaries buckets;
  double bound = 1e-8;
  for (int i = 0; i < 10; ++i) {
    buckets.push_back(bound);
    bound *= 10;
  }
  return buckets;
}

std::unique_ptr<GaugeMetric> PrometheusMetricsProvider::NewDepthMetric(const std::string& name) {
  return std::make_unique<PromGauge>(depth_.Add(NameLabel(name)));
}

std::unique_ptr<CounterMetric> PrometheusMetricsProvider::NewAddsMetric(const std::string& name) {
  return std::make_unique<PromCounter>(adds_.Add(NameLabel(name)));
}

std::unique_ptr<HistogramMetric> PrometheusMetricsProvider::NewLatencyMetric(
    const std::string& name) {
  return std::make_unique<PromHistogram>(latency_.Add(NameLabel(name), DurationBuckets()));
}

std::unique_ptr<HistogramMetric> PrometheusMetricsProvider::NewWorkDurationMetric(
    const std::string& name) {
  return std::make_unique<PromHistogram>(work_duration_.Add(NameLabel(name), DurationBuckets()));
}

std::unique_ptr<SettableGaugeMetric> PrometheusMetricsProvider::NewUnfinishedWorkSecondsMetric(
    const std::string& name) {
  return std::make_unique<PromSettableGauge>(unfinished_work_.Add(NameLabel(name)));
}

std::unique_ptr<SettableGaugeMetric>
PrometheusMetricsProvider::NewLongestRunningProcessorSecondsMetric(const std::string& name) {
  return std::make_unique<PromSettableGauge>(longest_running_processor_.Add(NameLabel(name)));
}

std::unique_ptr<CounterMetric> PrometheusMetricsProvider::NewRetriesMetric(
    const std::string& name) {
  return std::make_unique<PromCounter>(retries_.Add(NameLabel(name)));
}

}  // namespace ksched::workqueue
