#include "pkg/workqueue/prometheus_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "pkg/workqueue/default_rate_limiters.h"
#include "pkg/workqueue/delaying_queue.h"
#include "pkg/workqueue/rate_limiting_queue.h"

namespace ksched::workqueue {
namespace {

using namespace std::chrono_literals;

// The sample of family `family` whose `name` label is `queue`; fails the
// test when absent.
const prometheus::ClientMetric* Find(const std::vector<prometheus::MetricFamily>& families,
                                     const std::string& family, const std::string& queue,
                                     prometheus::MetricType type) {
  for (const auto& f : families) {
    if (f.name != family) continue;
    EXPECT_EQ(f.type, type) << family;
    for (const auto& metric : f.metric) {
      for (const auto& label : metric.label) {
        if (label.name == "name" && label.value == queue) return &metric;
      }
    }
  }
  ADD_FAILURE() << "no " << family << "{name=\"" << queue << "\"}";
  return nullptr;
}

TEST(PrometheusMetricsProviderTest, RegistersClientGoFamilies) {
  prometheus::Registry registry;
  PrometheusMetricsProvider provider(registry, 37);
  util::FakeClock clock;
  // A delaying queue creates all seven series (a plain Queue has no retries).
  DelayingQueue<std::string> q(clock, QueueConfig{.name = "q", .metrics_provider = &provider});
  std::vector<std::string> names;
  for (const auto& f : registry.Collect()) names.push_back(f.name);
  std::sort(names.begin(), names.end());
  std::vector<std::string> want = {
      "workqueue_adds_total",
      "workqueue_depth",
      "workqueue_longest_running_processor_seconds",
      "workqueue_queue_duration_seconds",
      "workqueue_retries_total",
      "workqueue_unfinished_work_seconds",
      "workqueue_work_duration_seconds",
  };
  EXPECT_EQ(names, want);
}

// component-base marks client-go's workqueue families [ALPHA], and [BETA]
// from kube 1.36.
TEST(PrometheusMetricsProviderTest, HelpTextsFollowTheKubeMinor) {
  for (const auto& [minor, want] : std::vector<std::pair<int, std::string>>{
           {35, "[ALPHA] Current depth of workqueue"}, {36, "[BETA] Current depth of workqueue"}}) {
    prometheus::Registry registry;
    PrometheusMetricsProvider provider(registry, minor);
    util::FakeClock clock;
    DelayingQueue<std::string> q(clock, QueueConfig{.name = "q", .metrics_provider = &provider});
    std::string help;
    for (const auto& f : registry.Collect()) {
      if (f.name == "workqueue_depth") help = f.help;
    }
    EXPECT_EQ(help, want) << "minor " << minor;
  }
}

TEST(PrometheusMetricsProviderTest, QueueActivityShowsInTheRegistry) {
  prometheus::Registry registry;
  PrometheusMetricsProvider provider(registry, 37);
  util::FakeClock clock;
  RateLimitingQueue<std::string> q(clock, DefaultControllerRateLimiter<std::string>(clock),
                                   QueueConfig{.name = "api", .metrics_provider = &provider});
  q.Add("a");
  q.Add("b");
  clock.Step(2ms);
  ASSERT_EQ(q.Get(), "a");
  clock.Step(2s);
  q.Done("a");
  ASSERT_EQ(q.Get(), "b");
  clock.Step(3s);
  q.UpdateUnfinishedWork();
  q.AddRateLimited("b");  // due in 5 ms: a retry, not yet an add

  auto families = registry.Collect();
  using prometheus::MetricType;
  const auto* depth = Find(families, "workqueue_depth", "api", MetricType::Gauge);
  const auto* adds = Find(families, "workqueue_adds_total", "api", MetricType::Counter);
  const auto* retries = Find(families, "workqueue_retries_total", "api", MetricType::Counter);
  const auto* latency =
      Find(families, "workqueue_queue_duration_seconds", "api", MetricType::Histogram);
  const auto* work =
      Find(families, "workqueue_work_duration_seconds", "api", MetricType::Histogram);
  const auto* unfinished =
      Find(families, "workqueue_unfinished_work_seconds", "api", MetricType::Gauge);
  const auto* longest =
      Find(families, "workqueue_longest_running_processor_seconds", "api", MetricType::Gauge);
  ASSERT_TRUE(depth && adds && retries && latency && work && unfinished && longest);

  EXPECT_EQ(depth->gauge.value, 0);
  EXPECT_EQ(adds->counter.value, 2);
  EXPECT_EQ(retries->counter.value, 1);
  EXPECT_EQ(latency->histogram.sample_count, 2u);
  EXPECT_DOUBLE_EQ(latency->histogram.sample_sum, 0.002 + 2.002);
  EXPECT_EQ(work->histogram.sample_count, 1u);
  EXPECT_DOUBLE_EQ(work->histogram.sample_sum, 2.0);
  EXPECT_DOUBLE_EQ(unfinished->gauge.value, 3.0);
  EXPECT_DOUBLE_EQ(longest->gauge.value, 3.0);

  // Buckets 1e-8 .. 10 (x10) plus +Inf; 2 s falls in le=10 only.
  ASSERT_EQ(work->histogram.bucket.size(), 11u);
  double bound = 1e-8;
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_NEAR(work->histogram.bucket[i].upper_bound, bound, bound * 1e-9);
    EXPECT_EQ(work->histogram.bucket[i].cumulative_count, i == 9 ? 1u : 0u) << i;
    bound *= 10;
  }
  // 2 ms and 2.002 s: the first counted from le=0.01, both from le=10.
  EXPECT_EQ(latency->histogram.bucket[5].cumulative_count, 0u);  // le=0.001
  EXPECT_EQ(latency->histogram.bucket[6].cumulative_count, 1u);  // le=0.01
  EXPECT_EQ(latency->histogram.bucket[9].cumulative_count, 2u);  // le=10

  clock.Step(5ms);  // the retry becomes an add once "b" is due
  q.Done("b");
  ASSERT_EQ(q.Get(), "b");  // queued by Done or by the loop, whichever comes last
  q.Done("b");
  families = registry.Collect();
  EXPECT_EQ(Find(families, "workqueue_adds_total", "api", MetricType::Counter)->counter.value, 3);
}

TEST(PrometheusMetricsProviderTest, QueuesAreSeparatedByNameAndProvidersShareFamilies) {
  prometheus::Registry registry;
  PrometheusMetricsProvider p1(registry, 37);
  PrometheusMetricsProvider p2(registry, 37);  // merges into the same families
  util::FakeClock clock;
  Queue<int> a(clock, QueueConfig{.name = "a", .metrics_provider = &p1});
  Queue<int> b(clock, QueueConfig{.name = "b", .metrics_provider = &p2});
  a.Add(1);
  b.Add(1);
  b.Add(2);
  auto families = registry.Collect();
  EXPECT_EQ(
      Find(families, "workqueue_adds_total", "a", prometheus::MetricType::Counter)->counter.value,
      1);
  EXPECT_EQ(
      Find(families, "workqueue_adds_total", "b", prometheus::MetricType::Counter)->counter.value,
      2);
}

}  // namespace
}  // namespace ksched::workqueue
