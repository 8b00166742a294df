#include "pkg/workqueue/metrics.h"

namespace ksched::workqueue {

namespace {

// One class implements every metric interface; each call hands out a fresh
// instance so ownership stays simple (the queue owns what it is given).
class NoopMetric final : public GaugeMetric,
                         public SettableGaugeMetric,
                         public CounterMetric,
                         public HistogramMetric {
 public:
  void Inc() override {}
  void Dec() override {}
  void Set(double) override {}
  void Observe(double) override {}
};

}  // namespace

NoopMetricsProvider& NoopMetricsProvider::Get() {
  static NoopMetricsProvider provider;
  return provider;
}

std::unique_ptr<GaugeMetric> NoopMetricsProvider::NewDepthMetric(const std::string&) {
  return std::make_unique<NoopMetric>();
}
std::unique_ptr<CounterMetric> NoopMetricsProvider::NewAddsMetric(const std::string&) {
  return std::make_unique<NoopMetric>();
}
std::unique_ptr<HistogramMetric> NoopMetricsProvider::NewLatencyMetric(const std::string&) {
  return std::make_unique<NoopMetric>();
}
std::unique_ptr<HistogramMetric> NoopMetricsProvider::NewWorkDurationMetric(const std::string&) {
  return std::make_unique<NoopMetric>();
}
std::unique_ptr<SettableGaugeMetric> NoopMetricsProvider::NewUnfinishedWorkSecondsMetric(
    const std::string&) {
  return std::make_unique<NoopMetric>();
}
std::unique_ptr<SettableGaugeMetric> NoopMetricsProvider::NewLongestRunningProcessorSecondsMetric(
    const std::string&) {
  return std::make_unique<NoopMetric>();
}
std::unique_ptr<CounterMetric> NoopMetricsProvider::NewRetriesMetric(const std::string&) {
  return std::make_unique<NoopMetric>();
}

bool MetricsEnabled(const std::string& name, const MetricsProvider* provider) {
  return !name.empty() && provider != nullptr && provider != &NoopMetricsProvider::Get();
}

}  // namespace ksched::workqueue
