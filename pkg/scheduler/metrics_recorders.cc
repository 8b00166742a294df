#include "pkg/scheduler/metrics_recorders.h"

#include <array>
#include <utility>

namespace ksched::scheduler {

namespace {

metrics::Queue ToMetricsQueue(queue::QueueName q) {
  switch (q) {
    case queue::QueueName::kActive:
      return metrics::Queue::kActive;
    case queue::QueueName::kBackoff:
      return metrics::Queue::kBackoff;
    case queue::QueueName::kUnschedulable:
      return metrics::Queue::kUnschedulable;
    case queue::QueueName::kGated:
      return metrics::Queue::kGated;
  }
  return metrics::Queue::kActive;
}

metrics::Code ToMetricsCode(framework::Code c) {
  // The enums share kube's numeric values (see scheduler_metrics.h).
  return static_cast<metrics::Code>(static_cast<int>(c));
}

}  // namespace

std::optional<metrics::ExtensionPoint> ExtensionPointOf(std::string_view name) {
  using EP = metrics::ExtensionPoint;
  static constexpr std::array<EP, metrics::kNumExtensionPoints> kAll = {
      EP::kPreFilter, EP::kFilter,   EP::kPreFilterExtensionAddPod, EP::kPreFilterExtensionRemovePod,
      EP::kPostFilter, EP::kPreScore, EP::kScore, EP::kScoreExtensionNormalize, EP::kPreBind, EP::kPreBindPreFlight,
      EP::kBind,      EP::kPostBind, EP::kReserve, EP::kUnreserve, EP::kPermit};
  for (EP ep : kAll) {
    if (metrics::LabelValue(ep) == name) return ep;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- queue

void QueueMetrics::AddPendingPods(queue::QueueName queue, int64_t delta) {
  if (sink_ != nullptr) sink_->PendingPods(ToMetricsQueue(queue)).Increment(static_cast<double>(delta));
  if (also_ != nullptr) also_->AddPendingPods(queue, delta);
}

void QueueMetrics::IncIncomingPods(queue::QueueName queue, std::string_view event) {
  if (sink_ != nullptr) sink_->QueueIncomingPods(ToMetricsQueue(queue), event).Increment();
  if (also_ != nullptr) also_->IncIncomingPods(queue, event);
}

void QueueMetrics::ObserveQueueingHintDuration(std::string_view plugin, std::string_view event,
                                               std::string_view hint, double seconds) {
  if (sink_ != nullptr) {
    metrics::HintResult r = hint == queue::kHintResultQueue       ? metrics::HintResult::kQueue
                            : hint == queue::kHintResultQueueSkip ? metrics::HintResult::kQueueSkip
                                                                  : metrics::HintResult::kError;
    sink_->QueueingHintExecutionDuration(plugin, event, r).Observe(seconds);
  }
  if (also_ != nullptr) also_->ObserveQueueingHintDuration(plugin, event, hint, seconds);
}

void QueueMetrics::AddInFlightEvents(std::string_view event, int64_t delta) {
  if (sink_ != nullptr) sink_->InflightEvents(event).Increment(static_cast<double>(delta));
  if (also_ != nullptr) also_->AddInFlightEvents(event, delta);
}

void QueueMetrics::AddUnschedulablePods(std::string_view plugin, std::string_view profile, int64_t delta) {
  if (sink_ != nullptr) sink_->Plugin(plugin, profile).UnschedulablePods().Increment(static_cast<double>(delta));
  if (also_ != nullptr) also_->AddUnschedulablePods(plugin, profile, delta);
}

// ---------------------------------------------------------------- framework

void FrameworkMetrics::ObserveExtensionPointDuration(std::string_view extension_point, framework::Code status,
                                                     std::string_view profile, double seconds) {
  std::optional<metrics::ExtensionPoint> ep = ExtensionPointOf(extension_point);
  if (!ep) return;
  sink_.Profile(profile).ObserveExtensionPoint(*ep, ToMetricsCode(status), seconds);
}

void FrameworkMetrics::ObservePluginDuration(std::string_view extension_point, std::string_view plugin,
                                             framework::Code status, double seconds) {
  std::optional<metrics::ExtensionPoint> ep = ExtensionPointOf(extension_point);
  if (!ep) return;
  // plugin_execution_duration_seconds has no profile label.
  sink_.Plugin(plugin, "").ObserveExecution(*ep, ToMetricsCode(status), seconds);
}

void FrameworkMetrics::AddPluginEvaluations(std::string_view extension_point, std::string_view plugin,
                                            std::string_view profile, int64_t count) {
  std::optional<metrics::ExtensionPoint> ep = ExtensionPointOf(extension_point);
  if (!ep) return;
  metrics::PluginMetrics& pm = sink_.Plugin(plugin, profile);
  for (int64_t i = 0; i < count; ++i) pm.IncEvaluation(*ep);
}

void FrameworkMetrics::ObservePermitWaitDuration(framework::Code result, double seconds) {
  sink_.PermitWaitDuration(ToMetricsCode(result)).Observe(seconds);
}

}  // namespace ksched::scheduler
