// Metrics the scheduling queue reports, behind a recorder interface so the
// queue does not depend on the metrics registry (prometheus wiring plugs in
// a recorder later). Names in the comments are the kube-scheduler series
// each call feeds.
//
// Every call is made under the queue's lock: implementations must be cheap
// and must not block or call back into the queue.
//
// Thread-safety: implementations must be thread-safe (several queues may
// share one recorder).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <tuple>

#include "pkg/scheduler/framework/status.h"

namespace ksched::scheduler::queue {

// Values of the "queue" label.
enum class QueueName { kActive, kBackoff, kUnschedulable, kGated };
// "active", "backoff", "unschedulable", "gated".
std::string_view QueueNameLabel(QueueName q);

// Value of the "event" label of scheduler_inflight_events for a popped pod.
inline constexpr std::string_view kPodPoppedInFlightEvent = "PodPopped";
// Values of the "hint" label.
inline constexpr std::string_view kHintResultQueue = "Queue";
inline constexpr std::string_view kHintResultQueueSkip = "QueueSkip";
inline constexpr std::string_view kHintResultError = "Error";

// One run of a queueing hint (ObserveQueueingHintDurations).
struct HintRun {
  std::string_view plugin;
  std::string_view hint;  // kHintResult*
  double seconds = 0;
};

class QueueMetricsRecorder {
 public:
  virtual ~QueueMetricsRecorder() = default;

  // scheduler_pending_pods{queue}: gauge delta.
  virtual void AddPendingPods(QueueName queue, int64_t delta) = 0;
  // scheduler_queue_incoming_pods_total{queue,event} (queue is active,
  // backoff or unschedulable).
  virtual void IncIncomingPods(QueueName queue, std::string_view event) = 0;
  // scheduler_queueing_hint_execution_duration_seconds{plugin,event,hint}.
  virtual void ObserveQueueingHintDuration(std::string_view plugin, std::string_view event, std::string_view hint,
                                           double seconds) = 0;
  // The same for every hint one event ran, at once: a recorder may look up
  // each series once per stretch of equal labels instead of once per run.
  // By default, ObserveQueueingHintDuration for each.
  virtual void ObserveQueueingHintDurations(std::string_view event, std::span<const HintRun> runs) {
    for (const HintRun& r : runs) ObserveQueueingHintDuration(r.plugin, event, r.hint, r.seconds);
  }
  // scheduler_inflight_events{event}: gauge delta ("PodPopped" counts
  // in-flight pods).
  virtual void AddInFlightEvents(std::string_view event, int64_t delta) = 0;
  // scheduler_unschedulable_pods{plugin,profile}: gauge delta.
  virtual void AddUnschedulablePods(std::string_view plugin, std::string_view profile, int64_t delta) = 0;
  // framework_extension_point_duration_seconds{extension_point="PreEnqueue",
  // status="Success",profile=<the pod's schedulerName>}: every run of a
  // pod's PreEnqueue plugins. kube-scheduler v1.34 always labels it
  // Success (its deferred observation reads a status no plugin sets).
  virtual void ObservePreEnqueueDuration(std::string_view profile, double seconds) = 0;
  // plugin_execution_duration_seconds{plugin,extension_point="PreEnqueue",
  // status}: each plugin run, in the sampled runs only.
  virtual void ObservePreEnqueuePluginDuration(std::string_view plugin, framework::Code status, double seconds) = 0;
};

// Records nothing; the default when no recorder is configured.
class NoopQueueMetrics final : public QueueMetricsRecorder {
 public:
  void AddPendingPods(QueueName, int64_t) override {}
  void IncIncomingPods(QueueName, std::string_view) override {}
  void ObserveQueueingHintDuration(std::string_view, std::string_view, std::string_view, double) override {}
  void ObserveQueueingHintDurations(std::string_view, std::span<const HintRun>) override {}
  void AddInFlightEvents(std::string_view, int64_t) override {}
  void AddUnschedulablePods(std::string_view, std::string_view, int64_t) override {}
  void ObservePreEnqueueDuration(std::string_view, double) override {}
  void ObservePreEnqueuePluginDuration(std::string_view, framework::Code, double) override {}

  static NoopQueueMetrics& Get();
};

// Keeps every value in memory; used by tests and by debug endpoints.
class CountingQueueMetrics final : public QueueMetricsRecorder {
 public:
  void AddPendingPods(QueueName queue, int64_t delta) override;
  void IncIncomingPods(QueueName queue, std::string_view event) override;
  void ObserveQueueingHintDuration(std::string_view plugin, std::string_view event, std::string_view hint,
                                   double seconds) override;
  void AddInFlightEvents(std::string_view event, int64_t delta) override;
  void AddUnschedulablePods(std::string_view plugin, std::string_view profile, int64_t delta) override;
  void ObservePreEnqueueDuration(std::string_view profile, double seconds) override;
  void ObservePreEnqueuePluginDuration(std::string_view plugin, framework::Code status, double seconds) override;

  int64_t PendingPods(QueueName queue) const;
  // Observations of the PreEnqueue extension point for the profile.
  int64_t PreEnqueueRuns(std::string_view profile) const;
  // Observations of the plugin's PreEnqueue duration with the status.
  int64_t PreEnqueuePluginRuns(std::string_view plugin, framework::Code status) const;
  int64_t IncomingPods(QueueName queue, std::string_view event) const;
  // Total incoming pods to `queue` over all events.
  int64_t IncomingPods(QueueName queue) const;
  // Number of hint executions observed.
  int64_t HintExecutions(std::string_view plugin, std::string_view event, std::string_view hint) const;
  // Sum of the observed hint durations, in seconds.
  double HintSeconds(std::string_view plugin, std::string_view event, std::string_view hint) const;
  int64_t InFlightEvents(std::string_view event) const;
  int64_t UnschedulablePods(std::string_view plugin, std::string_view profile) const;

 private:
  mutable std::mutex mu_;
  std::map<QueueName, int64_t> pending_;
  std::map<std::tuple<QueueName, std::string>, int64_t, std::less<>> incoming_;
  std::map<std::tuple<std::string, std::string, std::string>, int64_t, std::less<>> hints_;
  std::map<std::tuple<std::string, std::string, std::string>, double, std::less<>> hint_seconds_;
  std::map<std::string, int64_t, std::less<>> in_flight_;
  std::map<std::tuple<std::string, std::string>, int64_t, std::less<>> unschedulable_;
  std::map<std::string, int64_t, std::less<>> pre_enqueue_;
  std::map<std::tuple<std::string, framework::Code>, int64_t, std::less<>> pre_enqueue_plugins_;
};

}  // namespace ksched::scheduler::queue
