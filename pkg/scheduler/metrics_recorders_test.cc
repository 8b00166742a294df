#include "pkg/scheduler/metrics_recorders.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/metrics/exposition.h"
#include "pkg/metrics/scheduler_metrics.h"
#include "pkg/scheduler/framework/runtime/thread_metrics.h"

namespace ksched::scheduler {
namespace {

// The lines of plugin_execution_duration_seconds' buckets and count (the
// sum is compared separately: adding nanoseconds rounds differently from
// adding seconds).
std::string BucketLines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("scheduler_plugin_execution_duration_seconds_bucket", 0) == 0 ||
        line.rfind("scheduler_plugin_execution_duration_seconds_count", 0) == 0) {
      out += line + "\n";
    }
  }
  return out;
}

TEST(FrameworkMetricsTest, PerThreadBucketsEqualObservingEachDuration) {
  // Durations on, just below and just above bucket bounds (which are not
  // all whole nanoseconds), below the first and above the last.
  const std::vector<double>& bounds = metrics::PluginExecutionBuckets();
  std::vector<int64_t> durations = {0, 1, 2000000000};
  for (double b : bounds) {
    const auto ns = static_cast<int64_t>(std::floor(b * 1e9));
    durations.insert(durations.end(), {ns - 1, ns, ns + 1});
  }
  metrics::SchedulerMetrics one_by_one;
  metrics::SchedulerMetrics through_framework;
  FrameworkMetrics recorder(through_framework);
  framework::runtime::ThreadMetrics m(recorder, {}, {{framework::extension_point::kFilter, "P"}});
  double sum = 0;
  for (int64_t ns : durations) {
    const double seconds = static_cast<double>(ns) / 1e9;
    one_by_one.Plugin("P", "").ObserveExecution(metrics::ExtensionPoint::kFilter, metrics::Code::kSuccess, seconds);
    m.Local().Observe(0, framework::Code::kSuccess, ns);
    sum += seconds;
  }
  m.Flush();
  const std::string want = BucketLines(metrics::CollectText({one_by_one.Registry()}));
  const std::string got = BucketLines(metrics::CollectText({through_framework.Registry()}));
  EXPECT_NE(want.find("_count{extension_point=\"Filter\",plugin=\"P\",status=\"Success\"} " +
                      std::to_string(durations.size())),
            std::string::npos)
      << want;
  EXPECT_EQ(got, want);
  prometheus::Histogram& h = through_framework.Plugin("P", "").Execution(metrics::ExtensionPoint::kFilter,
                                                                          metrics::Code::kSuccess);
  EXPECT_NEAR(h.Collect().histogram.sample_sum, sum, 1e-9);
}

// Every extension point the framework names, Sign included, has its series.
TEST(FrameworkMetricsTest, SignDurationsUseKubeSchedulersFamilies) {
  metrics::SchedulerMetrics sink;
  FrameworkMetrics recorder(sink);
  recorder.ObserveExtensionPointDuration(framework::extension_point::kSign, framework::Code::kSuccess, "ksched", 1e-5);
  recorder.ObservePluginDuration(framework::extension_point::kSign, "NodePorts", framework::Code::kSuccess, 1e-6);
  const std::string text = metrics::CollectText({sink.Registry()});
  EXPECT_NE(text.find("scheduler_framework_extension_point_duration_seconds_count{extension_point=\"Sign\","
                      "profile=\"ksched\",status=\"Success\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler_plugin_execution_duration_seconds_count{extension_point=\"Sign\","
                      "plugin=\"NodePorts\",status=\"Success\"} 1"),
            std::string::npos)
      << text;
}

// The queue's PreEnqueue observations land in kube-scheduler's families:
// the extension point per profile (always Success, as v1.34 labels it) and
// the plugin's duration with its status.
TEST(QueueMetricsTest, PreEnqueueDurationsUseKubeSchedulersFamilies) {
  metrics::SchedulerMetrics sink;
  queue::CountingQueueMetrics also;
  QueueMetrics recorder(&sink, &also);
  recorder.ObservePreEnqueueDuration("ksched", 0.001);
  recorder.ObservePreEnqueuePluginDuration("SchedulingGates", framework::Code::kUnschedulableAndUnresolvable, 0.0001);
  const std::string text = metrics::CollectText({sink.Registry()});
  EXPECT_NE(text.find("scheduler_framework_extension_point_duration_seconds_count{extension_point=\"PreEnqueue\","
                      "profile=\"ksched\",status=\"Success\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler_plugin_execution_duration_seconds_count{extension_point=\"PreEnqueue\","
                      "plugin=\"SchedulingGates\",status=\"UnschedulableAndUnresolvable\"} 1"),
            std::string::npos)
      << text;
  EXPECT_EQ(also.PreEnqueueRuns("ksched"), 1);
  EXPECT_EQ(also.PreEnqueuePluginRuns("SchedulingGates", framework::Code::kUnschedulableAndUnresolvable), 1);
}

// A batch of one event's hint runs lands in the series of each run's own
// plugin and result, stretches or not, as single observations would.
TEST(QueueMetricsTest, HintRunsOfAnEventLandInTheirOwnSeries) {
  metrics::SchedulerMetrics sink;
  queue::CountingQueueMetrics also;
  QueueMetrics recorder(&sink, &also);
  const std::vector<queue::HintRun> runs = {
      {"DynamicResources", queue::kHintResultQueueSkip, 0.001}, {"DynamicResources", queue::kHintResultQueueSkip, 0.002},
      {"DynamicResources", queue::kHintResultQueue, 0.004},     {"NodeAffinity", queue::kHintResultQueueSkip, 0.001},
      {"DynamicResources", queue::kHintResultQueueSkip, 0.001}, {"DynamicResources", queue::kHintResultError, 0.0}};
  recorder.ObserveQueueingHintDurations("ResourceClaimAdd", runs);
  const std::string text = metrics::CollectText({sink.Registry()});
  auto count = [&](std::string_view plugin, std::string_view hint) {
    const std::string prefix = "scheduler_queueing_hint_execution_duration_seconds_count{event=\"ResourceClaimAdd\","
                               "hint=\"" + std::string(hint) + "\",plugin=\"" + std::string(plugin) + "\"} ";
    const size_t at = text.find(prefix);
    return at == std::string::npos ? std::string("absent") : text.substr(at + prefix.size(), text.find('\n', at) - at - prefix.size());
  };
  EXPECT_EQ(count("DynamicResources", "QueueSkip"), "3") << text;
  EXPECT_EQ(count("DynamicResources", "Queue"), "1");
  EXPECT_EQ(count("DynamicResources", "Error"), "1");
  EXPECT_EQ(count("NodeAffinity", "QueueSkip"), "1");
  EXPECT_EQ(also.HintExecutions("DynamicResources", "ResourceClaimAdd", "QueueSkip"), 3);
  EXPECT_DOUBLE_EQ(also.HintSeconds("DynamicResources", "ResourceClaimAdd", "QueueSkip"), 0.004);
}

}  // namespace
}  // namespace ksched::scheduler
