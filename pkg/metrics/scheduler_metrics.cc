#include "pkg/metrics/scheduler_metrics.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

namespace ksched::metrics {

namespace {

// component-base prefixes every help text with the stability level.
constexpr const char kStable[] = "[STABLE] ";
constexpr const char kBeta[] = "[BETA] ";
constexpr const char kAlpha[] = "[ALPHA] ";

std::string Help(const char* stability, std::string_view text) {
  return std::string(stability).append(text);
}

prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& r, const char* name,
                                                      std::string help) {
  return prometheus::BuildCounter().Name(name).Help(std::move(help)).Register(r);
}
prometheus::Family<prometheus::Gauge>& GaugeFamily(prometheus::Registry& r, const char* name,
                                                  std::string help) {
  return prometheus::BuildGauge().Name(name).Help(std::move(help)).Register(r);
}
prometheus::Family<prometheus::Histogram>& HistogramFamily(prometheus::Registry& r,
                                                          const char* name, std::string help) {
  return prometheus::BuildHistogram().Name(name).Help(std::move(help)).Register(r);
}

template <class T, std::size_t N>
std::unique_ptr<MetricVec<T, N>> Vec(prometheus::Family<T>& family,
                                     std::array<std::string, N> labels,
                                     std::vector<double> buckets = {}) {
  return std::make_unique<MetricVec<T, N>>(family, std::move(labels), std::move(buckets));
}

}  // namespace

std::string_view LabelValue(Result v) {
  switch (v) {
    case Result::kScheduled:
      return "scheduled";
    case Result::kUnschedulable:
      return "unschedulable";
    case Result::kError:
      return "error";
  }
  return "error";
}

std::string_view LabelValue(Queue v) {
  switch (v) {
    case Queue::kActive:
      return "active";
    case Queue::kBackoff:
      return "backoff";
    case Queue::kUnschedulable:
      return "unschedulable";
    case Queue::kGated:
      return "gated";
  }
  return "active";
}

std::string_view LabelValue(ExtensionPoint v) {
  static constexpr std::array<std::string_view, kNumExtensionPoints> kNames = {
      "PreFilter", "Filter",  "PreFilterExtensionAddPod", "PreFilterExtensionRemovePod",
      "PostFilter", "PreScore", "Score", "ScoreExtensionNormalize", "PreBind", "PreBindPreFlight",
      "Bind",      "PostBind", "Reserve", "Unreserve", "Permit",  "PreEnqueue", "Sign"};
  return kNames[static_cast<std::size_t>(v)];
}

std::string_view LabelValue(Code v) {
  static constexpr std::array<std::string_view, kNumCodes> kNames = {
      "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip",
      "Pending"};
  return kNames[static_cast<std::size_t>(v)];
}

std::string_view LabelValue(HintResult v) {
  switch (v) {
    case HintResult::kQueue:
      return "Queue";
    case HintResult::kQueueSkip:
      return "QueueSkip";
    case HintResult::kError:
      return "Error";
  }
  return "Error";
}

std::string_view LabelValue(CacheType v) {
  switch (v) {
    case CacheType::kNodes:
      return "nodes";
    case CacheType::kPods:
      return "pods";
    case CacheType::kAssumedPods:
      return "assumed_pods";
  }
  return "nodes";
}

std::string_view LabelValue(GoroutineResult v) {
  return v == GoroutineResult::kSuccess ? "success" : "error";
}

void ProfileMetrics::ObserveSchedulingAttempt(Result result, double seconds) {
  const std::size_t i = static_cast<std::size_t>(result);
  attempts_[i]
      .Get([&]() -> prometheus::Counter& {
        return parent_.schedule_attempts_->With({LabelValue(result), profile_});
      })
      .Increment();
  attempt_duration_[i]
      .Get([&]() -> prometheus::Histogram& {
        return parent_.scheduling_attempt_->With({LabelValue(result), profile_});
      })
      .Observe(seconds);
}

void ProfileMetrics::ObserveExtensionPoint(ExtensionPoint ep, Code status, double seconds) {
  extension_point_[static_cast<std::size_t>(ep)][static_cast<std::size_t>(status)]
      .Get([&]() -> prometheus::Histogram& {
        return parent_.extension_point_->With({LabelValue(ep), LabelValue(status), profile_});
      })
      .Observe(seconds);
}

prometheus::Histogram& PluginMetrics::Execution(ExtensionPoint ep, Code status) {
  return execution_[static_cast<std::size_t>(ep)][static_cast<std::size_t>(status)].Get(
      [&]() -> prometheus::Histogram& {
        return parent_.plugin_execution_->With({plugin_, LabelValue(ep), LabelValue(status)});
      });
}

void PluginMetrics::ObserveExecution(ExtensionPoint ep, Code status, double seconds) {
  Execution(ep, status).Observe(seconds);
}

void PluginMetrics::AddEvaluations(ExtensionPoint ep, int64_t n) {
  if (n <= 0) return;
  evaluation_[static_cast<std::size_t>(ep)]
      .Get([&]() -> prometheus::Counter& {
        return parent_.plugin_evaluation_->With({plugin_, LabelValue(ep), profile_});
      })
      .Increment(static_cast<double>(n));
}

const std::vector<double>& PluginExecutionBuckets() {
  static const std::vector<double>* buckets = new std::vector<double>(ExponentialBuckets(0.00001, 1.5, 20));
  return *buckets;
}

prometheus::Gauge& PluginMetrics::UnschedulablePods() {
  return unschedulable_.Get(
      [&]() -> prometheus::Gauge& { return parent_.UnschedulablePods(plugin_, profile_); });
}

void SchedulerMetrics::AddPendingPods(Queue q, double delta) {
  pending_pods_[Index(q)]->Increment(delta);
  if (queued_entities_[Index(q)] != nullptr) queued_entities_[Index(q)]->Increment(delta);
}

void SchedulerMetrics::CountIncomingPod(Queue q, std::string_view event) {
  QueueIncomingPods(q, event).Increment();
  if (queue_incoming_entities_) queue_incoming_entities_->With({LabelValue(q), event, "pod"}).Increment();
}

SchedulerMetrics::SchedulerMetrics(int kube_minor)
    : SchedulerMetrics(std::make_shared<prometheus::Registry>(), kube_minor) {}

SchedulerMetrics::~SchedulerMetrics() = default;

SchedulerMetrics::SchedulerMetrics(std::shared_ptr<prometheus::Registry> registry, int kube_minor)
    : registry_(std::move(registry)) {
  prometheus::Registry& r = *registry_;
  // Families kube promoted to BETA in 1.36 and 1.37 (ALPHA before).
  const char* beta_from_36 = kube_minor >= 36 ? kBeta : kAlpha;
  const char* beta_from_37 = kube_minor >= 37 ? kBeta : kAlpha;
  // Where 1.37 renamed unschedulablePods to unschedulableEntities.
  const char* unschedulable_q = kube_minor >= 37 ? "unschedulableEntities" : "unschedulablePods";

  schedule_attempts_ = Vec<prometheus::Counter, 2>(
      CounterFamily(r, "scheduler_schedule_attempts_total",
                    Help(kStable,
                         "Number of attempts to schedule pods, by the result. 'unschedulable' "
                         "means a pod could not be scheduled, while 'error' means an internal "
                         "scheduler problem.")),
      {"result", "profile"});
  scheduling_attempt_ = Vec<prometheus::Histogram, 2>(
      HistogramFamily(r, "scheduler_scheduling_attempt_duration_seconds",
                      Help(kStable,
                           "Scheduling attempt latency in seconds (scheduling algorithm + "
                           "binding)")),
      {"result", "profile"}, ExponentialBuckets(0.001, 2, 15));
  scheduling_algorithm_ =
      &HistogramFamily(r, "scheduler_scheduling_algorithm_duration_seconds",
                       Help(beta_from_37, "Scheduling algorithm latency in seconds"))
           .Add({}, ExponentialBuckets(0.001, 2, 15));
  event_handling_ = Vec<prometheus::Histogram, 1>(
      HistogramFamily(r, "scheduler_event_handling_duration_seconds",
                      Help(kAlpha, "Event handling latency in seconds.")),
      {"event"}, ExponentialBuckets(0.0001, 2, 12));

  auto& pending = GaugeFamily(
      r, "scheduler_pending_pods",
      Help(kStable,
           std::string("Number of pending pods, by the queue type. 'active' means number of pods "
                       "in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' "
                       "means number of pods in ") +
               unschedulable_q +
               " that the scheduler attempted to schedule and failed; 'gated' is the number of "
               "unschedulable pods that the scheduler never attempted to schedule because they "
               "are gated" +
               (kube_minor >= 37 ? "; 'incomplete' means number of pods in incompletePodGroupPods; "
                                   "'pending' means number of pods in pendingPodGroupPods."
                                 : ".")));
  for (std::size_t i = 0; i < kNumQueues; ++i) {
    pending_pods_[i] =
        &pending.Add({{"queue", std::string(LabelValue(static_cast<Queue>(i)))}});
  }
  queue_incoming_ = Vec<prometheus::Counter, 2>(
      CounterFamily(r, "scheduler_queue_incoming_pods_total",
                    Help(kStable,
                         "Number of pods added to scheduling queues by event and queue type.")),
      {"queue", "event"});
  if (kube_minor >= 37) {
    // kube creates a queue's series when the first entity enters it; ksched's
    // exist from the start, at 0, like pending_pods'.
    auto& entities = GaugeFamily(
        r, "scheduler_queued_entities",
        Help(kAlpha,
             "Number of queued scheduling entities ('pod' or 'podgroup'; 'pod' stands for "
             "individual pods that are not members of any podgroup) by the queue type. 'active' "
             "means number of entities in activeQ; 'backoff' means number of entities in "
             "backoffQ; 'unschedulable' means number of entities in unschedulableEntities that "
             "the scheduler attempted to schedule and failed; 'gated' is the number of "
             "unschedulable entities that the scheduler never attempted to schedule because "
             "they are gated."));
    for (std::size_t i = 0; i < kNumQueues; ++i) {
      queued_entities_[i] = &entities.Add(
          {{"queue", std::string(LabelValue(static_cast<Queue>(i)))}, {"type", "pod"}});
    }
    queue_incoming_entities_ = Vec<prometheus::Counter, 3>(
        CounterFamily(r, "scheduler_queue_incoming_entities_total",
                      Help(kAlpha,
                           "Number of scheduling entities added to scheduling queues by event, "
                           "queue type, and entity type. Entity types are either 'pod' (for "
                           "individual pods that are not members of any podgroup) or "
                           "'podgroup'.")),
        {"queue", "event", "type"});
  }
  if (kube_minor >= 35) {
    batch_attempts_ = Vec<prometheus::Counter, 2>(
        CounterFamily(r, "scheduler_batch_attempts_total",
                      Help(kAlpha, "Counts of results when we attempt to use batching.")),
        {"profile", "result"});
    batch_cache_flushed_ = Vec<prometheus::Counter, 2>(
        CounterFamily(r, "scheduler_batch_cache_flushed_total", Help(kAlpha, "Counts of cache flushes by reason.")),
        {"profile", "reason"});
    get_node_hint_duration_ = Vec<prometheus::Histogram, 2>(
        HistogramFamily(r, "scheduler_get_node_hint_duration_seconds", Help(kAlpha, "Latency for getting a node hint.")),
        {"hinted", "profile"}, ExponentialBuckets(0.00001, 2, 12));
    // 1.35 and 1.36 shipped this help text cut short.
    store_schedule_results_ = Vec<prometheus::Histogram, 1>(
        HistogramFamily(r, "scheduler_store_schedule_results_duration_seconds",
                        Help(kAlpha, kube_minor >= 37 ? "Latency for storing scheduling results."
                                                      : "Latency for getting a no.")),
        {"profile"}, ExponentialBuckets(0.00001, 2, 12));
  }
  if (kube_minor >= 37) {
    batch_rescore_attempts_ = Vec<prometheus::Counter, 1>(
        CounterFamily(r, "scheduler_batch_rescore_attempts_total",
                      Help(kAlpha, "Counts of rescore attempts during opportunistic batching.")),
        {"profile"});
    batch_rescore_duration_ = Vec<prometheus::Histogram, 1>(
        HistogramFamily(r, "scheduler_batch_rescore_duration_seconds",
                        Help(kAlpha, "Latency for rescoring a node during opportunistic batching.")),
        {"profile"}, ExponentialBuckets(0.00001, 2, 12));
  }
  if (kube_minor >= 36) {
    pod_scheduled_after_flush_ =
        &CounterFamily(r, "scheduler_pod_scheduled_after_flush_total",
                       Help(kAlpha, std::string("Number of pods that were successfully scheduled "
                                                "after being flushed from ") +
                                        unschedulable_q +
                                        " due to timeout. This metric helps detect potential "
                                        "queueing hint misconfigurations or event handling "
                                        "issues."))
             .Add({});
  }
  // kube registers it with DRAExtendedResource on (its default from 1.36),
  // in 1.37 as the metric it shares with kube-controller-manager.
  if (kube_minor == 36) {
    resourceclaim_creates_1_36_ = Vec<prometheus::Counter, 1>(
        CounterFamily(r, "scheduler_resourceclaim_creates_total",
                      Help(kAlpha, "Number of ResourceClaims creation requests within scheduler")),
        {"status"});
  } else if (kube_minor >= 37) {
    resourceclaim_creates_ = Vec<prometheus::Counter, 4>(
        CounterFamily(r, "dynamic_resource_allocation_resourceclaim_creates_total",
                      Help(kAlpha,
                           "Number of ResourceClaims creation requests, categorized by creation status, admin "
                           "access, and owning API group and kind (either Pod or scheduling.k8s.io/PodGroup)")),
        {"status", "admin_access", "owner_api_group", "owner_api_kind"});
  }
  if (kube_minor >= 36) {
    // kube registers these with DRADeviceBindingConditions on (its default
    // from 1.36).
    dra_bindingconditions_allocations_ = Vec<prometheus::Counter, 3>(
        CounterFamily(r, "scheduler_dra_bindingconditions_allocations_total",
                      Help(kAlpha,
                           "Number of allocations using devices with BindingConditions, counted per "
                           "driver per scheduling attempt")),
        {"profile", "driver", "status"});
    dra_bindingconditions_wait_ = Vec<prometheus::Histogram, 3>(
        HistogramFamily(r, "scheduler_dra_bindingconditions_wait_duration_seconds",
                        Help(kAlpha,
                             "Time in seconds spent waiting for BindingConditions to be satisfied "
                             "during PreBind.")),
        {"profile", "driver", "status"}, ExponentialBuckets(0.1, 2, 14));
  }

  pod_sli_ = Vec<prometheus::Histogram, 1>(
      HistogramFamily(r, "scheduler_pod_scheduling_sli_duration_seconds",
                      Help(kBeta,
                           "E2e latency for a pod being scheduled, from the time the pod enters "
                           "the scheduling queue and might involve multiple scheduling "
                           "attempts.")),
      {"attempts"}, ExponentialBuckets(0.01, 2, 20));
  pod_scheduling_attempts_ =
      &HistogramFamily(r, "scheduler_pod_scheduling_attempts",
                       Help(kStable, "Number of attempts to successfully schedule a pod."))
           .Add({}, ExponentialBuckets(1, 2, 5));

  extension_point_ = Vec<prometheus::Histogram, 3>(
      HistogramFamily(r, "scheduler_framework_extension_point_duration_seconds",
                      Help(kStable,
                           "Latency for running all plugins of a specific extension point.")),
      {"extension_point", "status", "profile"}, ExponentialBuckets(0.0001, 2, 12));
  plugin_execution_ = Vec<prometheus::Histogram, 3>(
      HistogramFamily(r, "scheduler_plugin_execution_duration_seconds",
                      Help(beta_from_37,
                           "Duration for running a plugin at a specific extension point.")),
      {"plugin", "extension_point", "status"}, PluginExecutionBuckets());
  queueing_hint_ = Vec<prometheus::Histogram, 3>(
      HistogramFamily(r, "scheduler_queueing_hint_execution_duration_seconds",
                      Help(kAlpha, "Duration for running a queueing hint function of a plugin.")),
      {"plugin", "event", "hint"}, ExponentialBuckets(0.00001, 1.5, 20));
  inflight_events_ = Vec<prometheus::Gauge, 1>(
      GaugeFamily(r, "scheduler_inflight_events",
                  Help(kAlpha, "Number of events currently tracked in the scheduling queue.")),
      {"event"});
  unschedulable_pods_ = Vec<prometheus::Gauge, 2>(
      GaugeFamily(r, "scheduler_unschedulable_pods",
                  Help(beta_from_36,
                       "The number of unschedulable pods broken down by plugin name. A pod will "
                       "increment the gauge for all plugins that caused it to not schedule and "
                       "so this metric have meaning only when broken down by plugin.")),
      {"plugin", "profile"});
  plugin_evaluation_ = Vec<prometheus::Counter, 3>(
      CounterFamily(r, "scheduler_plugin_evaluation_total",
                    Help(beta_from_36,
                         "Number of attempts to schedule pods by each plugin and the extension "
                         "point (available only in PreFilter, Filter, PreScore, and Score).")),
      {"plugin", "extension_point", "profile"});
  permit_wait_vec_ = Vec<prometheus::Histogram, 1>(
      HistogramFamily(r, "scheduler_permit_wait_duration_seconds",
                      Help(beta_from_36, "Duration of waiting on permit.")),
      {"result"}, ExponentialBuckets(0.001, 2, 15));

  preemption_attempts_ =
      &CounterFamily(r, "scheduler_preemption_attempts_total",
                     Help(kStable, "Total preemption attempts in the cluster till now"))
           .Add({});
  preemption_victims_ =
      &HistogramFamily(r, "scheduler_preemption_victims",
                       Help(kStable, kube_minor >= 37 ? "Number of selected preemption victims for "
                                                        "preemption initiated by a single pod"
                                                      : "Number of selected preemption victims"))
           .Add({}, ExponentialBuckets(1, 2, 7));
  if (kube_minor < 37) {
    preemption_goroutines_duration_ = Vec<prometheus::Histogram, 1>(
        HistogramFamily(r, "scheduler_preemption_goroutines_duration_seconds",
                        Help(kAlpha, "Duration in seconds for running goroutines for the preemption.")),
        {"result"}, ExponentialBuckets(0.01, 2, 20));
  }
  preemption_goroutines_execution_ = Vec<prometheus::Counter, 1>(
      CounterFamily(r, "scheduler_preemption_goroutines_execution_total",
                    Help(kAlpha, "Number of preemption goroutines executed.")),
      {"result"});

  goroutines_ = Vec<prometheus::Gauge, 1>(
      GaugeFamily(r, "scheduler_goroutines",
                  Help(beta_from_36,
                       "Number of running goroutines split by the work they do such as "
                       "binding.")),
      {"operation"});
  auto& cache_size =
      GaugeFamily(r, "scheduler_cache_size",
                  Help(kAlpha,
                       "Number of nodes, pods, and assumed (bound) pods in the scheduler cache."));
  for (std::size_t i = 0; i < kNumCacheTypes; ++i) {
    cache_size_[i] =
        &cache_size.Add({{"type", std::string(LabelValue(static_cast<CacheType>(i)))}});
  }

  volume_binder_cache_ = Vec<prometheus::Counter, 1>(
      CounterFamily(r, "scheduler_volume_binder_cache_requests_total",
                    Help(kAlpha, "Total number for request volume binding cache")),
      {"operation"});
  volume_stage_error_ = Vec<prometheus::Counter, 1>(
      CounterFamily(r, "scheduler_volume_scheduling_stage_error_total",
                    Help(kAlpha, "Volume scheduling stage error count")),
      {"operation"});
}

ProfileMetrics& SchedulerMetrics::Profile(std::string_view profile) {
  {
    std::shared_lock<std::shared_mutex> lock(handles_mu_);
    auto it = profiles_.find(profile);
    if (it != profiles_.end()) return *it->second;
  }
  std::unique_lock<std::shared_mutex> lock(handles_mu_);
  auto it = profiles_.find(profile);
  if (it == profiles_.end()) {
    it = profiles_
             .emplace(std::string(profile),
                      std::unique_ptr<ProfileMetrics>(new ProfileMetrics(*this, std::string(profile))))
             .first;
  }
  return *it->second;
}

PluginMetrics& SchedulerMetrics::Plugin(std::string_view plugin, std::string_view profile) {
  std::string key;
  key.reserve(plugin.size() + 1 + profile.size());
  key.append(plugin).append(1, '\0').append(profile);
  {
    std::shared_lock<std::shared_mutex> lock(handles_mu_);
    auto it = plugins_.find(key);
    if (it != plugins_.end()) return *it->second;
  }
  std::unique_lock<std::shared_mutex> lock(handles_mu_);
  auto it = plugins_.find(key);
  if (it == plugins_.end()) {
    it = plugins_
             .emplace(std::move(key),
                      std::unique_ptr<PluginMetrics>(new PluginMetrics(
                          *this, std::string(plugin), std::string(profile))))
             .first;
  }
  return *it->second;
}

prometheus::Histogram& SchedulerMetrics::PodSchedulingSliDuration(int attempts) {
  if (attempts >= 0 && attempts < kIndexedAttempts) {
    return pod_sli_indexed_[static_cast<std::size_t>(attempts)].Get(
        [&]() -> prometheus::Histogram& { return pod_sli_->With({std::to_string(attempts)}); });
  }
  return pod_sli_->With({std::to_string(attempts)});
}

void SchedulerMetrics::CountResourceClaimCreate(bool success) {
  const std::string_view status = success ? "success" : "failure";
  if (resourceclaim_creates_1_36_) resourceclaim_creates_1_36_->With({status}).Increment();
  // The scheduler creates claims for pods, never with admin access.
  if (resourceclaim_creates_) resourceclaim_creates_->With({status, "false", "", "Pod"}).Increment();
}

}  // namespace ksched::metrics
