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
  // Called for every observation: dispatch on the first letter, then
  // compare the few candidates.
  auto is = [&](EP ep) { return metrics::LabelValue(ep) == name; };
  if (name.empty()) return std::nullopt;
  switch (name[0]) {
    case 'F':
      if (is(EP::kFilter)) return EP::kFilter;
      break;
    case 'S':
      if (is(EP::kScore)) return EP::kScore;
      if (is(EP::kScoreExtensionNormalize)) return EP::kScoreExtensionNormalize;
      if (is(EP::kSign)) return EP::kSign;
      break;
    case 'P':
      for (EP ep : {EP::kPreFilter, EP::kPreScore, EP::kPreFilterExtensionAddPod, EP::kPreFilterExtensionRemovePod,
                    EP::kPostFilter, EP::kPreBind, EP::kPreBindPreFlight, EP::kPostBind, EP::kPermit,
                    EP::kPreEnqueue}) {
        if (is(ep)) return ep;
      }
      break;
    case 'B':
      if (is(EP::kBind)) return EP::kBind;
      break;
    case 'R':
      if (is(EP::kReserve)) return EP::kReserve;
      break;
    case 'U':
      if (is(EP::kUnreserve)) return EP::kUnreserve;
      break;
    default:
      break;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- queue

void QueueMetrics::AddPendingPods(queue::QueueName queue, int64_t delta) {
  if (sink_ != nullptr) sink_->AddPendingPods(ToMetricsQueue(queue), static_cast<double>(delta));
  if (also_ != nullptr) also_->AddPendingPods(queue, delta);
}

void QueueMetrics::IncIncomingPods(queue::QueueName queue, std::string_view event) {
  if (sink_ != nullptr) sink_->CountIncomingPod(ToMetricsQueue(queue), event);
  if (also_ != nullptr) also_->IncIncomingPods(queue, event);
}

namespace {

metrics::HintResult HintResultOf(std::string_view hint) {
  return hint == queue::kHintResultQueue       ? metrics::HintResult::kQueue
         : hint == queue::kHintResultQueueSkip ? metrics::HintResult::kQueueSkip
                                               : metrics::HintResult::kError;
}

}  // namespace

void QueueMetrics::ObserveQueueingHintDuration(std::string_view plugin, std::string_view event,
                                               std::string_view hint, double seconds) {
  if (sink_ != nullptr) sink_->QueueingHintExecutionDuration(plugin, event, HintResultOf(hint)).Observe(seconds);
  if (also_ != nullptr) also_->ObserveQueueingHintDuration(plugin, event, hint, seconds);
}

void QueueMetrics::ObserveQueueingHintDurations(std::string_view event, std::span<const queue::HintRun> runs) {
  if (sink_ != nullptr) {
    // An event's runs come in long stretches of one plugin and result: look
    // the series up once per stretch.
    prometheus::Histogram* series = nullptr;
    const queue::HintRun* stretch = nullptr;
    for (const queue::HintRun& r : runs) {
      if (series == nullptr || r.plugin != stretch->plugin || r.hint != stretch->hint) {
        series = &sink_->QueueingHintExecutionDuration(r.plugin, event, HintResultOf(r.hint));
        stretch = &r;
      }
      series->Observe(r.seconds);
    }
  }
  if (also_ != nullptr) also_->ObserveQueueingHintDurations(event, runs);
}

void QueueMetrics::AddInFlightEvents(std::string_view event, int64_t delta) {
  if (sink_ != nullptr) sink_->InflightEvents(event).Increment(static_cast<double>(delta));
  if (also_ != nullptr) also_->AddInFlightEvents(event, delta);
}

void QueueMetrics::ObservePreEnqueueDuration(std::string_view profile, double seconds) {
  if (sink_ != nullptr) {
    sink_->Profile(profile).ObserveExtensionPoint(metrics::ExtensionPoint::kPreEnqueue, metrics::Code::kSuccess,
                                                  seconds);
  }
  if (also_ != nullptr) also_->ObservePreEnqueueDuration(profile, seconds);
}

void QueueMetrics::ObservePreEnqueuePluginDuration(std::string_view plugin, framework::Code status, double seconds) {
  if (sink_ != nullptr) {
    sink_->Plugin(plugin, "").ObserveExecution(metrics::ExtensionPoint::kPreEnqueue,
                                               static_cast<metrics::Code>(static_cast<int>(status)), seconds);
  }
  if (also_ != nullptr) also_->ObservePreEnqueuePluginDuration(plugin, status, seconds);
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
  sink_.Plugin(plugin, profile).AddEvaluations(*ep, count);
}

namespace {

class PrometheusEvaluationCounter final : public framework::EvaluationCounter {
 public:
  PrometheusEvaluationCounter(metrics::PluginMetrics& plugin, metrics::ExtensionPoint ep) : plugin_(plugin), ep_(ep) {}
  void Add(int64_t n) override { plugin_.AddEvaluations(ep_, n); }

 private:
  metrics::PluginMetrics& plugin_;
  const metrics::ExtensionPoint ep_;
};

class PrometheusDurationHistogram final : public framework::DurationHistogram {
 public:
  explicit PrometheusDurationHistogram(prometheus::Histogram& h) : h_(h) {}
  void AddBuckets(const std::vector<int64_t>& counts, double sum_seconds) override {
    h_.ObserveMultiple(std::vector<double>(counts.begin(), counts.end()), sum_seconds);
  }

 private:
  prometheus::Histogram& h_;
};

}  // namespace

std::unique_ptr<framework::EvaluationCounter> FrameworkMetrics::NewEvaluationCounter(std::string_view extension_point,
                                                                                     std::string_view plugin,
                                                                                     std::string_view profile) {
  std::optional<metrics::ExtensionPoint> ep = ExtensionPointOf(extension_point);
  if (!ep) return std::make_unique<framework::NopEvaluationCounter>();
  return std::make_unique<PrometheusEvaluationCounter>(sink_.Plugin(plugin, profile), *ep);
}

std::vector<double> FrameworkMetrics::PluginDurationBounds() const { return metrics::PluginExecutionBuckets(); }

std::unique_ptr<framework::DurationHistogram> FrameworkMetrics::NewPluginDurationHistogram(
    std::string_view extension_point, std::string_view plugin, framework::Code status) {
  std::optional<metrics::ExtensionPoint> ep = ExtensionPointOf(extension_point);
  if (!ep) return std::make_unique<framework::NopDurationHistogram>();
  // plugin_execution_duration_seconds has no profile label.
  return std::make_unique<PrometheusDurationHistogram>(sink_.Plugin(plugin, "").Execution(*ep, ToMetricsCode(status)));
}

void FrameworkMetrics::ObservePermitWaitDuration(framework::Code result, double seconds) {
  sink_.PermitWaitDuration(ToMetricsCode(result)).Observe(seconds);
}

}  // namespace ksched::scheduler
