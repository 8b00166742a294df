#include "test/bench/side_by_side.h"

#include <gtest/gtest.h>

namespace ksched::bench {
namespace {

using nlohmann::json;

json Result(const std::string& scheduler, double pods_per_s, double cpu, double apiserver_cpu, bool failed = false) {
  return {{"workload", "SchedulingBasic/5000Nodes_10000Pods"},
          {"mode", "k8s"},
          {"scheduler", scheduler},
          {"repeat", 1},
          {"verified", !failed},
          {"error", failed ? "timed out" : ""},
          {"measuredScheduled", 10000},
          {"SchedulingThroughput", {{"Average", pods_per_s}}},
          {"SchedulingAttemptDuration", {{"Perc50", 1.0}, {"Perc99", 4.0}}},
          {"cpuSecondsPer1000Pods", cpu},
          {"peakRssMiB", scheduler == "ksched" ? 100.0 : 400.0},
          {"controlPlaneCpuSeconds", {{"kube-apiserver", apiserver_cpu}, {"etcd", 5.0}}}};
}

TEST(SideBySideTest, RecordsPerRunAndMediansPerScheduler) {
  json results = json::array({Result("ksched", 3000, 0.1, 20), Result("kube-scheduler", 1000, 1.0, 30),
                              Result("ksched", 2000, 0.3, 40), Result("kube-scheduler", 1500, 2.0, 50),
                              Result("ksched", 9999, 9.9, 99, /*failed=*/true),
                              {{"workload", "x"}, {"mode", "e2e"}}});
  json records = SideBySideRecords(results);
  ASSERT_EQ(records.size(), 5u);  // the e2e run is not side by side
  EXPECT_EQ(records[0]["scheduler"], "ksched");
  EXPECT_DOUBLE_EQ(records[0]["pods_per_s"].get<double>(), 3000);
  EXPECT_DOUBLE_EQ(records[0]["apiserver_cpu_s_per_1k"].get<double>(), 2.0);  // 20 s for 10,000 pods
  EXPECT_DOUBLE_EQ(records[0]["etcd_cpu_s_per_1k"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(records[0]["peak_rss_mib"].get<double>(), 100);
  EXPECT_EQ(records[4]["error"], "timed out");

  json summary = SideBySideSummary(records);
  ASSERT_EQ(summary.size(), 1u);
  const json& w = summary[0];
  EXPECT_EQ(w["ksched"]["runs"], 3);
  EXPECT_EQ(w["ksched"]["failed"], 1);
  EXPECT_DOUBLE_EQ(w["ksched"]["pods_per_s"].get<double>(), 2500);  // the failed run is left out
  EXPECT_DOUBLE_EQ(w["kube-scheduler"]["pods_per_s"].get<double>(), 1250);
  EXPECT_DOUBLE_EQ(w["ratio"]["pods_per_s"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(w["ratio"]["cpu_s_per_1k"].get<double>(), 0.2 / 1.5);
  EXPECT_DOUBLE_EQ(w["ratio"]["peak_rss_mib"].get<double>(), 0.25);
}

TEST(SideBySideTest, NoRatioWithOneScheduler) {
  json summary = SideBySideSummary(SideBySideRecords(json::array({Result("ksched", 3000, 0.1, 20)})));
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_FALSE(summary[0].contains("ratio"));
  EXPECT_FALSE(summary[0].contains("kube-scheduler"));
}

}  // namespace
}  // namespace ksched::bench
