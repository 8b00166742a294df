#include "test/bench/prometheus_text.h"

#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "pkg/metrics/exposition.h"
#include "test/bench/measure.h"

namespace ksched::bench {
namespace {

TEST(PrometheusTextTest, ReadsWhatTheRegistryWrote) {
  prometheus::Registry r;
  auto& h = prometheus::BuildHistogram().Name("attempt_seconds").Help("h").Register(r);
  auto& scheduled = h.Add({{"result", "scheduled"}, {"profile", "default-scheduler"}},
                          prometheus::Histogram::BucketBoundaries{0.001, 0.01, 0.1});
  auto& unschedulable = h.Add({{"result", "unschedulable"}, {"profile", "default-scheduler"}},
                              prometheus::Histogram::BucketBoundaries{0.001, 0.01, 0.1});
  for (double v : {0.0005, 0.002, 0.002, 0.05, 3.0}) scheduled.Observe(v);
  unschedulable.Observe(0.02);
  prometheus::BuildCounter().Name("attempts_total").Help("c").Register(r).Add({{"x", "a\"b\\c\nd"}}).Increment(7);
  prometheus::BuildGauge().Name("cache_size").Help("g").Register(r).Add({{"type", "nodes"}}).Set(5000);

  util::StatusOr<Families> parsed = ParsePrometheusText(metrics::SerializeText(r.Collect()));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const Families direct = r.Collect();

  for (const char* result : {"scheduled", "unschedulable"}) {
    const HistogramSnapshot want = TakeHistogram(direct, "attempt_seconds", {{"result", result}});
    const HistogramSnapshot got = TakeHistogram(*parsed, "attempt_seconds", {{"result", result}});
    EXPECT_EQ(got.upper_bounds, want.upper_bounds) << result;
    EXPECT_EQ(got.cumulative, want.cumulative) << result;
    EXPECT_EQ(got.count, want.count) << result;
    EXPECT_DOUBLE_EQ(got.sum, want.sum) << result;
  }
  EXPECT_EQ(TakeHistogram(*parsed, "attempt_seconds", {{"result", "scheduled"}}).count, 5u);
  EXPECT_DOUBLE_EQ(CounterTotal(*parsed, "attempts_total"), 7);
  bool saw_label = false, saw_gauge = false;
  for (const prometheus::MetricFamily& f : *parsed) {
    if (f.name == "attempts_total") saw_label = f.metric.at(0).label.at(0).value == "a\"b\\c\nd";
    if (f.name == "cache_size") saw_gauge = f.type == prometheus::MetricType::Gauge && f.metric.at(0).gauge.value == 5000;
  }
  EXPECT_TRUE(saw_label);
  EXPECT_TRUE(saw_gauge);
}

TEST(PrometheusTextTest, KubeSchedulerStyleText) {
  // As Go's client writes it: HELP lines, unlabelled series, an untyped
  // sample.
  const char* text =
      "# HELP scheduler_preemption_victims [STABLE] Number of selected preemption victims\n"
      "# TYPE scheduler_preemption_victims histogram\n"
      "scheduler_preemption_victims_bucket{le=\"1\"} 3\n"
      "scheduler_preemption_victims_bucket{le=\"2\"} 4\n"
      "scheduler_preemption_victims_bucket{le=\"+Inf\"} 5\n"
      "scheduler_preemption_victims_sum 9\n"
      "scheduler_preemption_victims_count 5\n"
      "# TYPE scheduler_preemption_attempts_total counter\n"
      "scheduler_preemption_attempts_total 6\n"
      "process_start_time_seconds 1.7e+09\n";
  util::StatusOr<Families> parsed = ParsePrometheusText(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const HistogramSnapshot v = TakeHistogram(*parsed, "scheduler_preemption_victims");
  EXPECT_EQ(v.count, 5u);
  EXPECT_DOUBLE_EQ(v.sum, 9);
  EXPECT_EQ(v.upper_bounds, (std::vector<double>{1, 2}));
  EXPECT_DOUBLE_EQ(CounterTotal(*parsed, "scheduler_preemption_attempts_total"), 6);
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[2].type, prometheus::MetricType::Untyped);
  EXPECT_DOUBLE_EQ((*parsed)[2].metric.at(0).untyped.value, 1.7e9);
}

TEST(PrometheusTextTest, MalformedLinesAreErrorsWithTheirLine) {
  for (const char* bad : {"# TYPE x\n", "x{a=\"b} 1\n", "x{a=b} 1\n", "x 1.2.3\n", "# TYPE h histogram\nh_bucket 1\n"}) {
    util::StatusOr<Families> parsed = ParsePrometheusText(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.status().ToString().find("line"), std::string::npos) << parsed.status().ToString();
  }
}

}  // namespace
}  // namespace ksched::bench
