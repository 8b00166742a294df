#include "test/bench/measure.h"

#include <gtest/gtest.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <condition_variable>
#include <mutex>

namespace ksched::bench {
namespace {

TEST(MeasureTest, SummarizeUsesSchedulerPerfPercentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  Summary s = Summarize(v);
  EXPECT_EQ(s.samples, 100u);
  EXPECT_DOUBLE_EQ(s.average, 50.5);
  EXPECT_DOUBLE_EQ(s.p50, 50);
  EXPECT_DOUBLE_EQ(s.p90, 90);
  EXPECT_DOUBLE_EQ(s.p99, 99);
  Summary one = Summarize({7});
  EXPECT_DOUBLE_EQ(one.p50, 7);
  EXPECT_DOUBLE_EQ(one.p99, 7);
  EXPECT_EQ(Summarize({}).samples, 0u);
}

TEST(MeasureTest, HistogramDeltaAndInterpolatedQuantiles) {
  prometheus::Registry r;
  auto& fam = prometheus::BuildHistogram().Name("h_seconds").Help("h").Register(r);
  auto& a = fam.Add({{"result", "scheduled"}}, prometheus::Histogram::BucketBoundaries{1, 2, 4});
  auto& b = fam.Add({{"result", "unschedulable"}}, prometheus::Histogram::BucketBoundaries{1, 2, 4});
  for (int i = 0; i < 5; ++i) a.Observe(100);  // before the phase
  HistogramSnapshot before = TakeHistogram(r.Collect(), "h_seconds", {{"result", "scheduled"}});
  for (int i = 0; i < 10; ++i) a.Observe(0.5);
  for (int i = 0; i < 10; ++i) a.Observe(1.5);
  b.Observe(3);
  HistogramSnapshot d = TakeHistogram(r.Collect(), "h_seconds", {{"result", "scheduled"}}) - before;
  EXPECT_EQ(d.count, 20u);
  EXPECT_DOUBLE_EQ(d.Mean(), 1.0);
  EXPECT_DOUBLE_EQ(d.Quantile(0.5), 1.0);
  EXPECT_DOUBLE_EQ(d.Quantile(0.75), 1.5);
  EXPECT_DOUBLE_EQ(d.Quantile(0.25), 0.5);
  // Everything, both children: the +Inf observations report the last bound.
  HistogramSnapshot all = TakeHistogram(r.Collect(), "h_seconds");
  EXPECT_EQ(all.count, 26u);
  EXPECT_DOUBLE_EQ(all.Quantile(1.0), 4);

  LabeledTotals t = HistogramTotalsBy(r.Collect(), "h_seconds", {"result"});
  EXPECT_EQ(t["scheduled"].count, 25u);
  EXPECT_DOUBLE_EQ(t["unschedulable"].sum, 3);
  LabeledTotals later = t;
  later["scheduled"].count += 2;
  later["scheduled"].sum += 1;
  LabeledTotals diff = Subtract(later, t);
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_EQ(diff["scheduled"].count, 2u);
  EXPECT_DOUBLE_EQ(diff["scheduled"].sum, 1);
}

TEST(MeasureTest, CollectorYieldsASampleEvenForAShortRun) {
  // The count function tells the test which calls the collector made: the
  // first one is its base, a later one returning 50 starts the interval.
  // The collector calls it under its own lock, so Stop() after that call
  // lands after the interval started.
  std::mutex mu;
  std::condition_variable cv;
  int64_t n = 0;
  int calls = 0;
  bool seen = false;
  auto count = [&] {
    std::lock_guard<std::mutex> l(mu);
    ++calls;
    if (n > 0) seen = true;
    cv.notify_all();
    return n;
  };
  ThroughputCollector c(count, std::chrono::hours(1));
  c.Start();
  {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return calls >= 1; });
    n = 50;
    cv.wait(l, [&] { return seen; });
  }
  std::vector<double> samples = c.Stop();
  // One partial interval, far shorter than the hour: a positive rate.
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_GT(samples[0], 50);
}

TEST(MeasureTest, CollectorWithoutPodsHasNoSample) {
  ThroughputCollector c([] { return int64_t{7}; }, std::chrono::hours(1));
  c.Start();
  EXPECT_TRUE(c.Stop().empty());
}

TEST(MeasureTest, ProcessFigures) {
  EXPECT_GT(ProcessCpuSeconds(), 0);
  EXPECT_GT(PeakRssKb(), 0);
  EXPECT_GE(PeakRssKb(), CurrentRssKb());
}

}  // namespace
}  // namespace ksched::bench
