#include "pkg/informer/prometheus_reflector_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <map>
#include <string>
#include <vector>

namespace ksched::informer {
namespace {

using namespace std::chrono_literals;

// The sample of `family` whose labels include every pair of `labels`;
// nullptr when absent.
const prometheus::ClientMetric* Find(const std::vector<prometheus::MetricFamily>& families,
                                     const std::string& family,
                                     const std::map<std::string, std::string>& labels) {
  for (const auto& f : families) {
    if (f.name != family) continue;
    for (const auto& metric : f.metric) {
      size_t matched = 0;
      for (const auto& label : metric.label) {
        auto it = labels.find(label.name);
        if (it != labels.end() && it->second == label.value) ++matched;
      }
      if (matched == labels.size()) return &metric;
    }
  }
  return nullptr;
}

double CounterValue(const std::vector<prometheus::MetricFamily>& families, const std::string& family,
                    const std::map<std::string, std::string>& labels) {
  const prometheus::ClientMetric* m = Find(families, family, labels);
  EXPECT_NE(m, nullptr) << family;
  return m == nullptr ? -1 : m->counter.value;
}

TEST(PrometheusReflectorMetricsTest, ReportsShowUpPerResource) {
  prometheus::Registry registry;
  PrometheusReflectorMetrics metrics(registry);

  metrics.ObserveList("pods", 120, 250ms, /*relist=*/false);
  metrics.ObserveList("pods", 80, 1s, /*relist=*/true);
  metrics.IncListErrors("nodes");
  metrics.IncWatches("pods", /*restart=*/false);
  metrics.IncWatches("pods", /*restart=*/true);
  metrics.ObserveWatch("pods", 0, 100ms, /*short_watch=*/true);
  metrics.IncEvents("pods", "ADDED");
  metrics.IncEvents("pods", "ADDED");
  metrics.IncEvents("pods", "BOOKMARK");
  metrics.IncEvents("nodes", "ADDED");
  metrics.IncDecodeErrors("pods");
  metrics.IncForcedRelists("pods", kRelistDecodeError);
  metrics.IncForcedRelists("pods", kRelistHandlerError);
  metrics.IncForcedRelists("pods", kRelistHandlerError);
  metrics.ObserveBackoff("nodes", 800ms);
  metrics.SetLastResourceVersion("pods", 4242);

  auto families = registry.Collect();
  const std::map<std::string, std::string> pods{{"resource", "pods"}};
  const std::map<std::string, std::string> nodes{{"resource", "nodes"}};
  EXPECT_EQ(CounterValue(families, "reflector_lists_total", pods), 2);
  EXPECT_EQ(CounterValue(families, "ksched_reflector_relists_total", pods), 1);
  EXPECT_EQ(CounterValue(families, "ksched_reflector_list_errors_total", nodes), 1);
  EXPECT_EQ(CounterValue(families, "ksched_reflector_list_errors_total", pods), 0);
  EXPECT_EQ(CounterValue(families, "reflector_watches_total", pods), 2);
  EXPECT_EQ(CounterValue(families, "ksched_reflector_watch_restarts_total", pods), 1);
  EXPECT_EQ(CounterValue(families, "reflector_short_watches_total", pods), 1);
  EXPECT_EQ(CounterValue(families, "ksched_reflector_events_total", {{"resource", "pods"}, {"type", "ADDED"}}), 2);
  EXPECT_EQ(CounterValue(families, "ksched_reflector_events_total", {{"resource", "pods"}, {"type", "BOOKMARK"}}),
            1);
  EXPECT_EQ(CounterValue(families, "ksched_reflector_events_total", {{"resource", "nodes"}, {"type", "ADDED"}}), 1);
  EXPECT_EQ(CounterValue(families, "ksched_reflector_decode_errors_total", pods), 1);
  EXPECT_EQ(CounterValue(families, "ksched_reflector_forced_relists_total",
                         {{"resource", "pods"}, {"reason", "decode_error"}}),
            1);
  EXPECT_EQ(CounterValue(families, "ksched_reflector_forced_relists_total",
                         {{"resource", "pods"}, {"reason", "handler_error"}}),
            2);

  const prometheus::ClientMetric* items = Find(families, "reflector_items_per_list", pods);
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(items->histogram.sample_count, 2u);
  EXPECT_EQ(items->histogram.sample_sum, 200);
  const prometheus::ClientMetric* list_duration = Find(families, "reflector_list_duration_seconds", pods);
  ASSERT_NE(list_duration, nullptr);
  EXPECT_DOUBLE_EQ(list_duration->histogram.sample_sum, 1.25);
  const prometheus::ClientMetric* backoff = Find(families, "ksched_reflector_backoff_seconds", nodes);
  ASSERT_NE(backoff, nullptr);
  EXPECT_DOUBLE_EQ(backoff->histogram.sample_sum, 0.8);
  const prometheus::ClientMetric* rv = Find(families, "reflector_last_resource_version", pods);
  ASSERT_NE(rv, nullptr);
  EXPECT_EQ(rv->gauge.value, 4242);
}

TEST(PrometheusReflectorMetricsTest, TwoInstancesOnOneRegistryShareFamilies) {
  prometheus::Registry registry;
  PrometheusReflectorMetrics a(registry);
  PrometheusReflectorMetrics b(registry);
  a.IncWatches("pods", false);
  b.IncWatches("nodes", false);
  auto families = registry.Collect();
  EXPECT_EQ(CounterValue(families, "reflector_watches_total", {{"resource", "pods"}}), 1);
  EXPECT_EQ(CounterValue(families, "reflector_watches_total", {{"resource", "nodes"}}), 1);
}

}  // namespace
}  // namespace ksched::informer
