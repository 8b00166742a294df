// The prometheus side of the recorder interfaces the queue and the framework
// runtime report through (queue::QueueMetricsRecorder,
// framework::FrameworkMetricsRecorder), writing kube-scheduler's metric
// families in metrics::SchedulerMetrics.
//
// QueueMetrics may also forward every call to a second recorder (a
// queue::CountingQueueMetrics for tests and debugging).
//
// Extension points that kube-scheduler does not export with
// framework_extension_point_duration_seconds are dropped.
//
// Thread-safety: thread-safe and non-blocking, as the interfaces require.
// Lifetime: the SchedulerMetrics (and the forwarded recorder) must outlive
// the recorders.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/metrics/scheduler_metrics.h"
#include "pkg/scheduler/framework/metrics_recorder.h"
#include "pkg/scheduler/queue/metrics.h"

namespace ksched::scheduler {

// The metrics label enum of a framework extension point name ("Filter"),
// nullopt for points kube does not export.
std::optional<metrics::ExtensionPoint> ExtensionPointOf(std::string_view name);

class QueueMetrics final : public queue::QueueMetricsRecorder {
 public:
  // `sink` may be null (prometheus only); `also` may be null.
  QueueMetrics(metrics::SchedulerMetrics* sink, queue::QueueMetricsRecorder* also)
      : sink_(sink), also_(also) {}

  void AddPendingPods(queue::QueueName queue, int64_t delta) override;
  void IncIncomingPods(queue::QueueName queue, std::string_view event) override;
  void ObserveQueueingHintDuration(std::string_view plugin, std::string_view event, std::string_view hint,
                                   double seconds) override;
  void ObserveQueueingHintDurations(std::string_view event, std::span<const queue::HintRun> runs) override;
  void AddInFlightEvents(std::string_view event, int64_t delta) override;
  void AddUnschedulablePods(std::string_view plugin, std::string_view profile, int64_t delta) override;
  void ObservePreEnqueueDuration(std::string_view profile, double seconds) override;
  void ObservePreEnqueuePluginDuration(std::string_view plugin, framework::Code status, double seconds) override;

 private:
  metrics::SchedulerMetrics* const sink_;
  queue::QueueMetricsRecorder* const also_;
};

class FrameworkMetrics final : public framework::FrameworkMetricsRecorder {
 public:
  explicit FrameworkMetrics(metrics::SchedulerMetrics& sink) : sink_(sink) {}

  void ObserveExtensionPointDuration(std::string_view extension_point, framework::Code status,
                                     std::string_view profile, double seconds) override;
  void ObservePluginDuration(std::string_view extension_point, std::string_view plugin, framework::Code status,
                             double seconds) override;
  void AddPluginEvaluations(std::string_view extension_point, std::string_view plugin, std::string_view profile,
                            int64_t count) override;
  void ObservePermitWaitDuration(framework::Code result, double seconds) override;
  // Resolves the series once; Add is one atomic add.
  std::unique_ptr<framework::EvaluationCounter> NewEvaluationCounter(std::string_view extension_point,
                                                                     std::string_view plugin,
                                                                     std::string_view profile) override;
  // metrics::PluginExecutionBuckets().
  std::vector<double> PluginDurationBounds() const override;
  // Resolves the series once; AddBuckets is one Histogram::ObserveMultiple.
  std::unique_ptr<framework::DurationHistogram> NewPluginDurationHistogram(std::string_view extension_point,
                                                                           std::string_view plugin,
                                                                           framework::Code status) override;

 private:
  metrics::SchedulerMetrics& sink_;
};

}  // namespace ksched::scheduler
