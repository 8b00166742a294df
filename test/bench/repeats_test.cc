#include "test/bench/repeats.h"

#include <gtest/gtest.h>

namespace ksched::bench {
namespace {

nlohmann::json Result(const std::string& workload, const std::string& mode, double pods, double cpu, double bar,
                   const std::string& error = "") {
  return {{"workload", workload},
          {"mode", mode},
          {"bar", bar},
          {"error", error},
          {"cpuSecondsPer1000Pods", cpu},
          {"SchedulingThroughput", {{"Average", pods}}}};
}

TEST(RepeatsTest, OneLinePerWorkloadAndModeWithMedianAndRunsAtTheBar) {
  nlohmann::json results = nlohmann::json::array({
      Result("A", "inprocess", 9000, 0.2, 10000),
      Result("A", "e2e", 3500, 0.6, 3400),
      Result("A", "inprocess", 11000, 0.1, 10000),
      Result("A", "e2e", 3000, 0.7, 3400),
      Result("A", "inprocess", 10000, 0.3, 10000),
      Result("A", "e2e", 9999, 0.5, 3400, "timed out"),
      Result("B", "e2e", 500, 1.0, 0),
  });
  nlohmann::json s = SummarizeRepeats(results);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0]["workload"], "A");
  EXPECT_EQ(s[0]["mode"], "inprocess");
  EXPECT_EQ(s[0]["runs"], 3);
  EXPECT_EQ(s[0]["pods"], nlohmann::json({9000.0, 10000.0, 11000.0}));
  EXPECT_DOUBLE_EQ(s[0]["median"].get<double>(), 10000);
  EXPECT_DOUBLE_EQ(s[0]["cpuMedian"].get<double>(), 0.2);
  EXPECT_EQ(s[0]["atOrAboveBar"], 2);  // a run exactly at the bar reaches it
  // A failed run counts as 0 pods/s and as a miss.
  EXPECT_EQ(s[1]["mode"], "e2e");
  EXPECT_DOUBLE_EQ(s[1]["min"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(s[1]["max"].get<double>(), 3500);
  EXPECT_DOUBLE_EQ(s[1]["median"].get<double>(), 3000);
  EXPECT_EQ(s[1]["atOrAboveBar"], 1);
  // No bar: nothing reaches it.
  EXPECT_EQ(s[2]["workload"], "B");
  EXPECT_EQ(s[2]["atOrAboveBar"], 0);
  // An even count: the mean of the middle two.
  nlohmann::json two = SummarizeRepeats(nlohmann::json::array({Result("C", "e2e", 100, 1, 0), Result("C", "e2e", 300, 3, 0)}));
  EXPECT_DOUBLE_EQ(two[0]["median"].get<double>(), 200);
  EXPECT_DOUBLE_EQ(two[0]["cpuMedian"].get<double>(), 2);
  EXPECT_TRUE(SummarizeRepeats(nlohmann::json::array()).empty());
}

}  // namespace
}  // namespace ksched::bench
