#include "pkg/metrics/exposition.h"

#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/summary.h>

#include <cmath>
#include <limits>

#include "pkg/metrics/metric_vec.h"

namespace ksched::metrics {
namespace {

TEST(FormatFloatTest, MatchesGoShortestG) {
  // Expected strings are what Go's strconv.FormatFloat(v, 'g', -1, 64)
  // prints, which is what kube-scheduler's /metrics shows.
  EXPECT_EQ(FormatFloat(0), "0");
  EXPECT_EQ(FormatFloat(-0.0), "0");
  EXPECT_EQ(FormatFloat(1), "1");
  EXPECT_EQ(FormatFloat(-1), "-1");
  EXPECT_EQ(FormatFloat(0.1), "0.1");
  EXPECT_EQ(FormatFloat(16.384), "16.384");
  EXPECT_EQ(FormatFloat(0.0001), "0.0001");
  EXPECT_EQ(FormatFloat(0.00001), "1e-05");
  EXPECT_EQ(FormatFloat(123456), "123456");
  EXPECT_EQ(FormatFloat(1234567), "1.234567e+06");
  EXPECT_EQ(FormatFloat(1e6), "1e+06");
  EXPECT_EQ(FormatFloat(1e21), "1e+21");
  EXPECT_EQ(FormatFloat(1.5e-300), "1.5e-300");
  EXPECT_EQ(FormatFloat(-2.5), "-2.5");
  EXPECT_EQ(FormatFloat(18446744073709551616.0), "1.8446744073709552e+19");
  EXPECT_EQ(FormatFloat(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatFloat(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatFloat(std::nan("")), "NaN");
}

TEST(ExponentialBucketsTest, BitIdenticalToKubeSchedulerBounds) {
  // kube-scheduler's own golden exposition of
  // scheduler_plugin_execution_duration_seconds (ExponentialBuckets(1e-5, 1.5, 20)).
  const std::vector<std::string> want = {
      "1e-05",
      "1.5000000000000002e-05",
      "2.2500000000000005e-05",
      "3.375000000000001e-05",
      "5.062500000000001e-05",
      "7.593750000000002e-05",
      "0.00011390625000000003",
      "0.00017085937500000006",
      "0.0002562890625000001",
      "0.00038443359375000017",
      "0.0005766503906250003",
      "0.0008649755859375004",
      "0.0012974633789062506",
      "0.0019461950683593758",
      "0.0029192926025390638",
      "0.004378938903808595",
      "0.006568408355712893",
      "0.009852612533569338",
      "0.014778918800354007",
      "0.02216837820053101",
  };
  auto buckets = ExponentialBuckets(0.00001, 1.5, 20);
  ASSERT_EQ(buckets.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(FormatFloat(buckets[i]), want[i]) << i;

  auto ms = ExponentialBuckets(0.001, 2, 15);
  ASSERT_EQ(ms.size(), 15u);
  EXPECT_EQ(FormatFloat(ms.front()), "0.001");
  EXPECT_EQ(FormatFloat(ms[7]), "0.128");
  EXPECT_EQ(FormatFloat(ms.back()), "16.384");
}

TEST(SerializeTextTest, HistogramLayoutAsGo) {
  prometheus::Registry registry;
  auto& family = prometheus::BuildHistogram()
                     .Name("scheduler_plugin_execution_duration_seconds")
                     .Help("[BETA] Duration for running a plugin at a specific extension point.")
                     .Register(registry);
  family
      .Add({{"plugin", "testPlugin"}, {"extension_point", "Filter"}, {"status", "Success"}},
           ExponentialBuckets(0.00001, 1.5, 3))
      .Observe(0.00001);
  const std::string labels = "extension_point=\"Filter\",plugin=\"testPlugin\",status=\"Success\"";
  const std::string n = "scheduler_plugin_execution_duration_seconds";
  EXPECT_EQ(SerializeText(registry.Collect()),
            "# HELP " + n + " [BETA] Duration for running a plugin at a specific extension point.\n"
            "# TYPE " + n + " histogram\n" +
            n + "_bucket{" + labels + ",le=\"1e-05\"} 1\n" +
            n + "_bucket{" + labels + ",le=\"1.5000000000000002e-05\"} 1\n" +
            n + "_bucket{" + labels + ",le=\"2.2500000000000005e-05\"} 1\n" +
            n + "_bucket{" + labels + ",le=\"+Inf\"} 1\n" +
            n + "_sum{" + labels + "} 1e-05\n" +
            n + "_count{" + labels + "} 1\n");
}

TEST(SerializeTextTest, SortsFamiliesAndSeriesAndEscapes) {
  prometheus::Registry registry;
  auto& b = prometheus::BuildGauge().Name("b_gauge").Help("line1\nback\\slash \"q\"").Register(registry);
  b.Add({{"k", "z"}}).Set(2);
  b.Add({{"k", "a\"b\\c\nd"}}).Set(1);
  auto& a = prometheus::BuildCounter().Name("a_total").Help("A.").Register(registry);
  a.Add({}).Increment(3);
  // Families without series are left out, as the Go client does.
  prometheus::BuildCounter().Name("empty_total").Help("E.").Register(registry);

  EXPECT_EQ(SerializeText(registry.Collect()),
            "# HELP a_total A.\n"
            "# TYPE a_total counter\n"
            "a_total 3\n"
            "# HELP b_gauge line1\\nback\\\\slash \"q\"\n"
            "# TYPE b_gauge gauge\n"
            "b_gauge{k=\"a\\\"b\\\\c\\nd\"} 1\n"
            "b_gauge{k=\"z\"} 2\n");
}

TEST(SerializeTextTest, SummaryAndMergeOfSameNamedFamilies) {
  auto r1 = std::make_shared<prometheus::Registry>();
  auto r2 = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge().Name("shared").Help("first").Register(*r1).Add({{"from", "r1"}}).Set(1);
  prometheus::BuildGauge().Name("shared").Help("second").Register(*r2).Add({{"from", "r2"}}).Set(2);
  // Same name, other type: dropped rather than corrupting the exposition.
  prometheus::BuildCounter().Name("clash").Help("c").Register(*r1).Add({}).Increment();
  prometheus::BuildGauge().Name("clash").Help("g").Register(*r2).Add({}).Set(5);
  auto& s = prometheus::BuildSummary().Name("lat_seconds").Help("S.").Register(*r1).Add(
      {}, prometheus::Summary::Quantiles{{0.5, 0.05}});
  s.Observe(2);

  const std::string text = CollectText({r1, nullptr, r2});
  EXPECT_NE(text.find("# HELP shared first\n# TYPE shared gauge\nshared{from=\"r1\"} 1\n"
                      "shared{from=\"r2\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE clash counter\nclash 1\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("clash 5"), std::string::npos) << text;
  EXPECT_NE(text.find("lat_seconds{quantile=\"0.5\"} 2\nlat_seconds_sum 2\nlat_seconds_count 1\n"),
            std::string::npos)
      << text;
}

TEST(CollectTextTest, DisabledMetricsAreLeftOut) {
  auto r = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge().Name("kept").Help("k").Register(*r).Add({}).Set(1);
  prometheus::BuildCounter().Name("dropped_total").Help("d").Register(*r).Add({}).Increment();
  const std::string all = CollectText({r});
  EXPECT_NE(all.find("dropped_total 1"), std::string::npos) << all;
  const std::string text = CollectText({r}, {"dropped_total", "no_such_metric"});
  EXPECT_EQ(text.find("dropped_total"), std::string::npos) << text;
  EXPECT_NE(text.find("kept 1"), std::string::npos) << text;
}

}  // namespace
}  // namespace ksched::metrics
