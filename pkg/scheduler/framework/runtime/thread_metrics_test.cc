#include "pkg/scheduler/framework/runtime/thread_metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace ksched::scheduler::framework::runtime {
namespace {

// Keeps every AddBuckets call, by "point/plugin/status".
class BucketRecorder final : public FrameworkMetricsRecorder {
 public:
  struct Series {
    std::vector<int64_t> counts;
    double sum = 0;
    int calls = 0;
  };
  void ObserveExtensionPointDuration(std::string_view, Code, std::string_view, double) override {}
  void ObservePluginDuration(std::string_view, std::string_view, Code, double) override {}
  void AddPluginEvaluations(std::string_view, std::string_view, std::string_view, int64_t) override {}
  void ObservePermitWaitDuration(Code, double) override {}
  std::vector<double> PluginDurationBounds() const override { return {0.000001, 0.00001}; }  // 1 µs, 10 µs
  std::unique_ptr<DurationHistogram> NewPluginDurationHistogram(std::string_view point, std::string_view plugin,
                                                                Code status) override {
    ++resolved;
    return std::make_unique<Hist>(series[std::string(point) + "/" + std::string(plugin) + "/" + CodeName(status)]);
  }

  std::map<std::string, Series> series;
  int resolved = 0;

 private:
  class Hist final : public DurationHistogram {
   public:
    explicit Hist(Series& s) : s_(s) {}
    void AddBuckets(const std::vector<int64_t>& counts, double sum_seconds) override {
      if (s_.counts.empty()) s_.counts.assign(counts.size(), 0);
      for (size_t i = 0; i < counts.size(); ++i) s_.counts[i] += counts[i];
      s_.sum += sum_seconds;
      ++s_.calls;
    }

   private:
    Series& s_;
  };
};

class CountingCounter final : public EvaluationCounter {
 public:
  void Add(int64_t n) override {
    total += n;
    ++calls;
  }
  int64_t total = 0;
  int calls = 0;
};

TEST(ThreadMetricsTest, SortsDurationsIntoTheRecordersBucketsAsHistogramObserveWould) {
  BucketRecorder rec;
  ThreadMetrics m(rec, {}, {{"Filter", "F"}, {"Score", "S"}});
  ThreadMetrics::Block& b = m.Local();
  // A value equal to a bound belongs to that bound's bucket.
  for (int64_t ns : {0, 999, 1000}) b.Observe(0, Code::kSuccess, ns);
  for (int64_t ns : {1001, 10000}) b.Observe(0, Code::kSuccess, ns);
  for (int64_t ns : {10001, 5000000}) b.Observe(0, Code::kSuccess, ns);
  b.Observe(0, Code::kUnschedulable, 500);
  b.Observe(1, Code::kSuccess, 20000);
  EXPECT_TRUE(rec.series.empty()) << "nothing reaches the recorder before Flush";
  m.Flush();
  ASSERT_EQ(rec.series.size(), 3u);
  EXPECT_EQ(rec.series["Filter/F/Success"].counts, (std::vector<int64_t>{3, 2, 2}));
  EXPECT_DOUBLE_EQ(rec.series["Filter/F/Success"].sum, (999 + 1000 + 1001 + 10000 + 10001 + 5000000) / 1e9);
  EXPECT_EQ(rec.series["Filter/F/Unschedulable"].counts, (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(rec.series["Score/S/Success"].counts, (std::vector<int64_t>{0, 0, 1}));
}

// A run timed as one: each call at the run's mean, the sum exact.
TEST(ThreadMetricsTest, ARunsCallsAreObservedAtTheirMean) {
  BucketRecorder rec;
  ThreadMetrics m(rec, {}, {{"Filter", "F"}});
  ThreadMetrics::Block& b = m.Local();
  b.ObserveRun(0, Code::kSuccess, 4, 4000);   // 1000 each: the first bucket
  b.ObserveRun(0, Code::kSuccess, 3, 30000);  // 10000 each: the second
  b.ObserveRun(0, Code::kSuccess, 0, 500);    // no calls: nothing
  m.Flush();
  EXPECT_EQ(rec.series["Filter/F/Success"].counts, (std::vector<int64_t>{4, 3, 0}));
  EXPECT_DOUBLE_EQ(rec.series["Filter/F/Success"].sum, (4000 + 30000) / 1e9);
}

TEST(ThreadMetricsTest, DurationsInTicksOfAnotherLength) {
  // Half-nanosecond ticks: the 1 µs bound is 2000 ticks.
  BucketRecorder rec;
  ThreadMetrics m(rec, {}, {{"Filter", "F"}}, /*nanos_per_tick=*/0.5);
  for (int64_t ticks : {2000, 2001, 20000, 20001}) m.Local().Observe(0, Code::kSuccess, ticks);
  m.Flush();
  EXPECT_EQ(rec.series["Filter/F/Success"].counts, (std::vector<int64_t>{1, 2, 1}));
  EXPECT_DOUBLE_EQ(rec.series["Filter/F/Success"].sum, (2000 + 2001 + 20000 + 20001) * 0.5 / 1e9);
}

TEST(ThreadMetricsTest, FlushAddsOnlyWhatEveryThreadGainedSinceTheLastFlush) {
  BucketRecorder rec;
  CountingCounter a, b;
  ThreadMetrics m(rec, {&a, &b}, {{"Filter", "A"}, {"Filter", "B"}});
  constexpr int kThreads = 4, kPerThread = 1000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      ThreadMetrics::Block& local = m.Local();
      for (int i = 0; i < kPerThread; ++i) {
        local.Count(0);
        local.Observe(0, Code::kSuccess, 100);
        if (i % 2 == 0) {
          local.Count(1);
          local.Observe(1, Code::kUnschedulable, 2000);
        }
      }
    });
  }
  // Flushes while the workers run add up to the same totals.
  m.Flush();
  for (std::thread& t : threads) t.join();
  m.Flush();
  EXPECT_EQ(a.total, kThreads * kPerThread);
  EXPECT_EQ(b.total, kThreads * kPerThread / 2);
  EXPECT_EQ(rec.series["Filter/A/Success"].counts, (std::vector<int64_t>{kThreads * kPerThread, 0, 0}));
  EXPECT_EQ(rec.series["Filter/B/Unschedulable"].counts, (std::vector<int64_t>{0, kThreads * kPerThread / 2, 0}));
  EXPECT_EQ(rec.resolved, 2) << "a series is resolved once, when it first has something";

  // Nothing new: a flush adds nothing and calls nobody.
  const int a_calls = a.calls;
  const int hist_calls = rec.series["Filter/A/Success"].calls;
  m.Flush();
  EXPECT_EQ(a.calls, a_calls);
  EXPECT_EQ(rec.series["Filter/A/Success"].calls, hist_calls);

  // Two threads' gains to one series reach it in one call.
  const int b_calls = rec.series["Filter/B/Unschedulable"].calls;
  for (int t = 0; t < 2; ++t) {
    std::thread([&] { m.Local().Observe(1, Code::kUnschedulable, 1); }).join();
  }
  m.Local().Count(0);
  m.Local().Observe(0, Code::kSuccess, 5);
  m.Flush();
  EXPECT_EQ(a.total, kThreads * kPerThread + 1);
  EXPECT_EQ(rec.series["Filter/A/Success"].counts[0], kThreads * kPerThread + 1);
  EXPECT_EQ(rec.series["Filter/B/Unschedulable"].calls, b_calls + 1);
  EXPECT_EQ(rec.series["Filter/B/Unschedulable"].counts[0], 2);
}

TEST(ThreadMetricsTest, DefaultRecorderForwardsEachObservationAtTheBatchMean) {
  struct Forwarded final : FrameworkMetricsRecorder {
    void ObserveExtensionPointDuration(std::string_view, Code, std::string_view, double) override {}
    void ObservePluginDuration(std::string_view point, std::string_view plugin, Code status, double s) override {
      seen.emplace_back(std::string(point) + "/" + std::string(plugin) + "/" + CodeName(status), s);
    }
    void AddPluginEvaluations(std::string_view, std::string_view, std::string_view, int64_t) override {}
    void ObservePermitWaitDuration(Code, double) override {}
    std::vector<std::pair<std::string, double>> seen;
  } rec;
  ThreadMetrics m(rec, {}, {{"Score", "S"}});
  m.Local().Observe(0, Code::kError, 1000);
  m.Local().Observe(0, Code::kError, 3000);
  m.Flush();
  ASSERT_EQ(rec.seen.size(), 2u);
  EXPECT_EQ(rec.seen[0].first, "Score/S/Error");
  EXPECT_DOUBLE_EQ(rec.seen[0].second, 2e-6);
}

}  // namespace
}  // namespace ksched::scheduler::framework::runtime
