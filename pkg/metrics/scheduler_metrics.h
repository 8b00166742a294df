// SchedulerMetrics: every kube-scheduler metric family, with kube-scheduler's
// names, types, labels, buckets and help texts (including component-base's
// "[STABLE] " / "[BETA] " / "[ALPHA] " help prefix), on one
// prometheus::Registry.
//
// Operators' dashboards and alerts written for kube-scheduler work on ksched
// unchanged. One deliberate reinterpretation: scheduler_goroutines{operation}
// keeps its kube name (so dashboards still find it) but counts ksched's
// threads and pool tasks currently running an operation ("binding",
// "Filter", "Score", ...), which is what goroutines measure in Go.
//
// Other packages (workqueue, informers, leader election) add their own
// families to the same registry through Registry(), so one scrape shows all.
//
// Hot paths: accessors return references to the child metric; callers keep
// them (they live as long as the registry) or use the pre-resolved handles
// ProfileMetrics and PluginMetrics, whose enum-indexed children are found
// with one atomic load. String-keyed accessors cost a hash and a shared lock
// (see MetricVec). Series appear on first use, as in the Go client, except
// the fixed-label gauges pending_pods{queue} and cache_size{type} and the
// unlabelled metrics, which exist from the start (value 0).
//
// Sampling of scheduler_plugin_execution_duration_seconds (kube records it
// for 10% of scheduling cycles) is the caller's decision.
//
// Thread-safety: every method is thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "pkg/metrics/metric_vec.h"

namespace ksched::metrics {

// result label of schedule_attempts_total / scheduling_attempt_duration.
enum class Result : int { kScheduled, kUnschedulable, kError };
inline constexpr std::size_t kNumResults = 3;

// queue label of pending_pods / queue_incoming_pods_total.
enum class Queue : int { kActive, kBackoff, kUnschedulable, kGated };
inline constexpr std::size_t kNumQueues = 4;

// extension_point label; values are kube-scheduler's spellings.
enum class ExtensionPoint : int {
  kPreFilter,
  kFilter,
  kPreFilterExtensionAddPod,
  kPreFilterExtensionRemovePod,
  kPostFilter,
  kPreScore,
  kScore,
  kScoreExtensionNormalize,
  kPreBind,
  kPreBindPreFlight,
  kBind,
  kPostBind,
  kReserve,
  kUnreserve,
  kPermit,
  kPreEnqueue,  // recorded by the scheduling queue
  kSign,        // opportunistic batching's pod signature
};
inline constexpr std::size_t kNumExtensionPoints = 17;

// status label (and permit_wait_duration's result label): a plugin status
// code. The numeric values equal scheduler::framework::Code's, so the
// framework converts with a static_cast.
enum class Code : int {
  kSuccess = 0,
  kError = 1,
  kUnschedulable = 2,
  kUnschedulableAndUnresolvable = 3,
  kWait = 4,
  kSkip = 5,
  kPending = 6,
};
inline constexpr std::size_t kNumCodes = 7;

// hint label of queueing_hint_execution_duration_seconds.
enum class HintResult : int { kQueue, kQueueSkip, kError };
inline constexpr std::size_t kNumHintResults = 3;

// type label of cache_size.
enum class CacheType : int { kNodes, kPods, kAssumedPods };
inline constexpr std::size_t kNumCacheTypes = 3;

// result label of the preemption goroutine metrics.
enum class GoroutineResult : int { kSuccess, kError };

// Label values: "scheduled", "active", "PreFilter", "Success", "Queue",
// "assumed_pods", "success", ...
std::string_view LabelValue(Result v);
std::string_view LabelValue(Queue v);
std::string_view LabelValue(ExtensionPoint v);
std::string_view LabelValue(Code v);
std::string_view LabelValue(HintResult v);
std::string_view LabelValue(CacheType v);
std::string_view LabelValue(GoroutineResult v);

// The buckets of scheduler_plugin_execution_duration_seconds (kube's
// ExponentialBuckets(0.00001, 1.5, 20)).
const std::vector<double>& PluginExecutionBuckets();

// Operation labels of scheduler_goroutines used by kube-scheduler.
inline constexpr std::string_view kBindingOperation = "binding";
inline constexpr std::string_view kPrioritizingExtenderOperation = "prioritizing_extender";
// In-flight event label for a popped pod.
inline constexpr std::string_view kPodPoppedInflightEvent = "PodPopped";

// A child metric resolved once and then found with one atomic load.
template <class T>
class LazyChild {
 public:
  template <class Make>
  T& Get(Make&& make) {
    T* p = ptr_.load(std::memory_order_acquire);
    if (p == nullptr) {
      // Racing creators get the same child: Family::Add is idempotent.
      p = &make();
      ptr_.store(p, std::memory_order_release);
    }
    return *p;
  }

 private:
  std::atomic<T*> ptr_{nullptr};
};

// Increments a gauge for the lifetime of the scope (e.g.
// scheduler_goroutines{operation="binding"} around a binding cycle).
class ScopedGaugeIncrement {
 public:
  explicit ScopedGaugeIncrement(prometheus::Gauge& g) : gauge_(g) { gauge_.Increment(); }
  ~ScopedGaugeIncrement() { gauge_.Decrement(); }
  ScopedGaugeIncrement(const ScopedGaugeIncrement&) = delete;
  ScopedGaugeIncrement& operator=(const ScopedGaugeIncrement&) = delete;

 private:
  prometheus::Gauge& gauge_;
};

class SchedulerMetrics;

// The metrics of one profile (schedulerName), pre-resolved.
class ProfileMetrics {
 public:
  const std::string& profile() const { return profile_; }

  // schedule_attempts_total{result,profile} += 1 and
  // scheduling_attempt_duration_seconds{result,profile} observes `seconds`.
  void ObserveSchedulingAttempt(Result result, double seconds);
  // framework_extension_point_duration_seconds{extension_point,status,profile}.
  void ObserveExtensionPoint(ExtensionPoint ep, Code status, double seconds);

 private:
  friend class SchedulerMetrics;
  ProfileMetrics(SchedulerMetrics& parent, std::string profile)
      : parent_(parent), profile_(std::move(profile)) {}

  SchedulerMetrics& parent_;
  const std::string profile_;
  std::array<LazyChild<prometheus::Counter>, kNumResults> attempts_;
  std::array<LazyChild<prometheus::Histogram>, kNumResults> attempt_duration_;
  std::array<std::array<LazyChild<prometheus::Histogram>, kNumCodes>, kNumExtensionPoints>
      extension_point_;
};

// The metrics of one plugin within one profile, pre-resolved.
class PluginMetrics {
 public:
  const std::string& plugin() const { return plugin_; }
  const std::string& profile() const { return profile_; }

  // plugin_execution_duration_seconds{plugin,extension_point,status}.
  void ObserveExecution(ExtensionPoint ep, Code status, double seconds);
  // The series ObserveExecution observes into (buckets:
  // PluginExecutionBuckets()), for callers that sort their durations into
  // buckets themselves and add them with Histogram::ObserveMultiple.
  prometheus::Histogram& Execution(ExtensionPoint ep, Code status);
  // plugin_evaluation_total{plugin,extension_point,profile} += 1.
  void IncEvaluation(ExtensionPoint ep) { AddEvaluations(ep, 1); }
  // plugin_evaluation_total{plugin,extension_point,profile} += n.
  void AddEvaluations(ExtensionPoint ep, int64_t n);
  // unschedulable_pods{plugin,profile}.
  prometheus::Gauge& UnschedulablePods();

 private:
  friend class SchedulerMetrics;
  PluginMetrics(SchedulerMetrics& parent, std::string plugin, std::string profile)
      : parent_(parent), plugin_(std::move(plugin)), profile_(std::move(profile)) {}

  SchedulerMetrics& parent_;
  const std::string plugin_;
  const std::string profile_;
  std::array<std::array<LazyChild<prometheus::Histogram>, kNumCodes>, kNumExtensionPoints>
      execution_;
  std::array<LazyChild<prometheus::Counter>, kNumExtensionPoints> evaluation_;
  LazyChild<prometheus::Gauge> unschedulable_;
};

// The newest kube minor whose families SchedulerMetrics knows (and its
// default); the scheduler checks it equals the newest minor it emulates.
inline constexpr int kNewestMetricsKubeMinor = 37;

class SchedulerMetrics {
 public:
  // Registers on `registry` every family the kube-scheduler of 1.`kube_minor`
  // registers, with that minor's help texts and stability prefixes.
  explicit SchedulerMetrics(std::shared_ptr<prometheus::Registry> registry,
                            int kube_minor = kNewestMetricsKubeMinor);
  // Registers on a fresh registry of its own.
  explicit SchedulerMetrics(int kube_minor = kNewestMetricsKubeMinor);
  ~SchedulerMetrics();

  SchedulerMetrics(const SchedulerMetrics&) = delete;
  SchedulerMetrics& operator=(const SchedulerMetrics&) = delete;

  // The registry to scrape, and to add other packages' families to.
  const std::shared_ptr<prometheus::Registry>& Registry() const { return registry_; }

  // Handles; the references stay valid for the lifetime of this object.
  ProfileMetrics& Profile(std::string_view profile);
  PluginMetrics& Plugin(std::string_view plugin, std::string_view profile);

  // String-keyed shortcuts for the handle methods.
  void ObserveSchedulingAttempt(Result result, std::string_view profile, double seconds) {
    Profile(profile).ObserveSchedulingAttempt(result, seconds);
  }
  void ObserveExtensionPoint(ExtensionPoint ep, Code status, std::string_view profile,
                             double seconds) {
    Profile(profile).ObserveExtensionPoint(ep, status, seconds);
  }

  // scheduler_scheduling_algorithm_duration_seconds.
  prometheus::Histogram& SchedulingAlgorithmDuration() { return *scheduling_algorithm_; }
  // scheduler_event_handling_duration_seconds{event}.
  prometheus::Histogram& EventHandlingDuration(std::string_view event) {
    return event_handling_->With({event});
  }
  // scheduler_pending_pods{queue}.
  prometheus::Gauge& PendingPods(Queue q) { return *pending_pods_[Index(q)]; }
  // Adds to pending_pods{queue} and, from 1.37, to
  // queued_entities{queue,type="pod"}: every entity ksched queues is a pod
  // (kube's "podgroup" entities are its Workload API's).
  void AddPendingPods(Queue q, double delta);
  // scheduler_queue_incoming_pods_total{queue,event}.
  prometheus::Counter& QueueIncomingPods(Queue q, std::string_view event) {
    return queue_incoming_->With({LabelValue(q), event});
  }
  // Counts one pod into queue_incoming_pods_total{queue,event} and, from
  // 1.37, queue_incoming_entities_total{queue,event,type="pod"}.
  void CountIncomingPod(Queue q, std::string_view event);
  // scheduler_pod_scheduled_after_flush_total (from 1.36): pods bound after
  // the unschedulable pods' leftover flush moved them; nullptr before 1.36.
  prometheus::Counter* PodScheduledAfterFlush() { return pod_scheduled_after_flush_; }
  // Opportunistic batching (from 1.35; each nullptr before):
  // scheduler_batch_attempts_total{profile,result},
  // scheduler_batch_cache_flushed_total{profile,reason},
  // scheduler_get_node_hint_duration_seconds{hinted,profile},
  // scheduler_store_schedule_results_duration_seconds{profile}; from 1.37
  // scheduler_batch_rescore_attempts_total{profile} and
  // scheduler_batch_rescore_duration_seconds{profile}.
  MetricVec<prometheus::Counter, 2>* BatchAttempts() { return batch_attempts_.get(); }
  MetricVec<prometheus::Counter, 2>* BatchCacheFlushed() { return batch_cache_flushed_.get(); }
  MetricVec<prometheus::Histogram, 2>* GetNodeHintDuration() { return get_node_hint_duration_.get(); }
  MetricVec<prometheus::Histogram, 1>* StoreScheduleResultsDuration() { return store_schedule_results_.get(); }
  MetricVec<prometheus::Counter, 1>* BatchRescoreAttempts() { return batch_rescore_attempts_.get(); }
  MetricVec<prometheus::Histogram, 1>* BatchRescoreDuration() { return batch_rescore_duration_.get(); }
  // scheduler_pod_scheduling_sli_duration_seconds{attempts}.
  prometheus::Histogram& PodSchedulingSliDuration(int attempts);
  // scheduler_pod_scheduling_attempts.
  prometheus::Histogram& PodSchedulingAttempts() { return *pod_scheduling_attempts_; }
  // What kube records when a pod is bound: the attempts it took and the
  // SLI latency since it entered the queue.
  void ObservePodScheduled(int attempts, double sli_seconds) {
    PodSchedulingAttempts().Observe(attempts);
    PodSchedulingSliDuration(attempts).Observe(sli_seconds);
  }
  // scheduler_queueing_hint_execution_duration_seconds{plugin,event,hint}.
  prometheus::Histogram& QueueingHintExecutionDuration(std::string_view plugin,
                                                       std::string_view event, HintResult hint) {
    return queueing_hint_->With({plugin, event, LabelValue(hint)});
  }
  // scheduler_inflight_events{event}.
  prometheus::Gauge& InflightEvents(std::string_view event) { return inflight_events_->With({event}); }
  // scheduler_permit_wait_duration_seconds{result}, result = status code name.
  prometheus::Histogram& PermitWaitDuration(Code result) {
    return permit_wait_[Index(result)].Get(
        [&]() -> prometheus::Histogram& { return permit_wait_vec_->With({LabelValue(result)}); });
  }
  // scheduler_preemption_attempts_total.
  prometheus::Counter& PreemptionAttempts() { return *preemption_attempts_; }
  // scheduler_preemption_victims.
  prometheus::Histogram& PreemptionVictims() { return *preemption_victims_; }
  // scheduler_preemption_goroutines_duration_seconds{result}; nullptr from
  // 1.37, where kube deprecated (and so hid) it.
  prometheus::Histogram* PreemptionGoroutinesDuration(GoroutineResult r) {
    return preemption_goroutines_duration_ ? &preemption_goroutines_duration_->With({LabelValue(r)})
                                           : nullptr;
  }
  // scheduler_preemption_goroutines_execution_total{result}.
  prometheus::Counter& PreemptionGoroutinesExecution(GoroutineResult r) {
    return preemption_goroutines_execution_->With({LabelValue(r)});
  }
  // scheduler_goroutines{operation}: threads/tasks running `operation`.
  prometheus::Gauge& Goroutines(std::string_view operation) { return goroutines_->With({operation}); }
  // scheduler_cache_size{type}.
  prometheus::Gauge& CacheSize(CacheType t) { return *cache_size_[Index(t)]; }
  // scheduler_unschedulable_pods{plugin,profile}.
  prometheus::Gauge& UnschedulablePods(std::string_view plugin, std::string_view profile) {
    return unschedulable_pods_->With({plugin, profile});
  }
  // DRA binding conditions (from 1.36, where DRADeviceBindingConditions is
  // on; nothing is recorded before): scheduler_dra_bindingconditions_
  // allocations_total{profile,driver,status} and scheduler_dra_
  // bindingconditions_wait_duration_seconds{profile,driver,status}.
  void CountDraBindingConditionsAllocation(std::string_view profile, std::string_view driver,
                                           std::string_view status) {
    if (dra_bindingconditions_allocations_) dra_bindingconditions_allocations_->With({profile, driver, status}).Increment();
  }
  void ObserveDraBindingConditionsWait(std::string_view profile, std::string_view driver, std::string_view status,
                                       double seconds) {
    if (dra_bindingconditions_wait_) dra_bindingconditions_wait_->With({profile, driver, status}).Observe(seconds);
  }
  // A ResourceClaim created for a pod's extended resources: 1.36's
  // scheduler_resourceclaim_creates_total{status}, 1.37's
  // dynamic_resource_allocation_resourceclaim_creates_total{status,
  // admin_access="false", owner_api_group="", owner_api_kind="Pod"}
  // (DRAExtendedResource's defaults; nothing is recorded at 1.35).
  void CountResourceClaimCreate(bool success);
  // scheduler_volume_binder_cache_requests_total{operation}.
  prometheus::Counter& VolumeBinderCacheRequests(std::string_view operation) {
    return volume_binder_cache_->With({operation});
  }
  // scheduler_volume_scheduling_stage_error_total{operation}.
  prometheus::Counter& VolumeSchedulingStageErrors(std::string_view operation) {
    return volume_stage_error_->With({operation});
  }

 private:
  friend class ProfileMetrics;
  friend class PluginMetrics;

  template <class E>
  static std::size_t Index(E e) {
    return static_cast<std::size_t>(e);
  }

  // The pod_scheduling_sli_duration children for attempts below this bound
  // are found by index; larger counts (rare) go through the string cache.
  static constexpr int kIndexedAttempts = 32;

  std::shared_ptr<prometheus::Registry> registry_;

  std::unique_ptr<MetricVec<prometheus::Counter, 2>> schedule_attempts_;        // result, profile
  std::unique_ptr<MetricVec<prometheus::Histogram, 2>> scheduling_attempt_;      // result, profile
  prometheus::Histogram* scheduling_algorithm_ = nullptr;
  std::unique_ptr<MetricVec<prometheus::Histogram, 1>> event_handling_;          // event
  std::array<prometheus::Gauge*, kNumQueues> pending_pods_{};
  std::unique_ptr<MetricVec<prometheus::Counter, 2>> queue_incoming_;            // queue, event
  // From 1.37 (null before).
  std::array<prometheus::Gauge*, kNumQueues> queued_entities_{};                 // queue, type="pod"
  std::unique_ptr<MetricVec<prometheus::Counter, 3>> queue_incoming_entities_;   // queue, event, type
  prometheus::Counter* pod_scheduled_after_flush_ = nullptr;                     // from 1.36
  // Opportunistic batching, from 1.35 (rescore from 1.37); null before.
  std::unique_ptr<MetricVec<prometheus::Counter, 2>> batch_attempts_;            // profile, result
  std::unique_ptr<MetricVec<prometheus::Counter, 2>> batch_cache_flushed_;       // profile, reason
  std::unique_ptr<MetricVec<prometheus::Histogram, 2>> get_node_hint_duration_;  // hinted, profile
  std::unique_ptr<MetricVec<prometheus::Histogram, 1>> store_schedule_results_;  // profile
  std::unique_ptr<MetricVec<prometheus::Counter, 1>> batch_rescore_attempts_;    // profile
  std::unique_ptr<MetricVec<prometheus::Histogram, 1>> batch_rescore_duration_;  // profile
  std::unique_ptr<MetricVec<prometheus::Histogram, 1>> pod_sli_;                 // attempts
  std::array<LazyChild<prometheus::Histogram>, kIndexedAttempts> pod_sli_indexed_;
  prometheus::Histogram* pod_scheduling_attempts_ = nullptr;
  std::unique_ptr<MetricVec<prometheus::Histogram, 3>> extension_point_;         // ep, status, profile
  std::unique_ptr<MetricVec<prometheus::Histogram, 3>> plugin_execution_;        // plugin, ep, status
  std::unique_ptr<MetricVec<prometheus::Histogram, 3>> queueing_hint_;           // plugin, event, hint
  std::unique_ptr<MetricVec<prometheus::Gauge, 1>> inflight_events_;             // event
  std::unique_ptr<MetricVec<prometheus::Gauge, 2>> unschedulable_pods_;          // plugin, profile
  std::unique_ptr<MetricVec<prometheus::Counter, 3>> plugin_evaluation_;         // plugin, ep, profile
  std::unique_ptr<MetricVec<prometheus::Histogram, 1>> permit_wait_vec_;         // result
  std::array<LazyChild<prometheus::Histogram>, kNumCodes> permit_wait_;
  prometheus::Counter* preemption_attempts_ = nullptr;
  prometheus::Histogram* preemption_victims_ = nullptr;
  std::unique_ptr<MetricVec<prometheus::Histogram, 1>> preemption_goroutines_duration_;
  std::unique_ptr<MetricVec<prometheus::Counter, 1>> preemption_goroutines_execution_;
  std::unique_ptr<MetricVec<prometheus::Gauge, 1>> goroutines_;                  // operation
  std::array<prometheus::Gauge*, kNumCacheTypes> cache_size_{};
  std::unique_ptr<MetricVec<prometheus::Counter, 1>> volume_binder_cache_;       // operation
  std::unique_ptr<MetricVec<prometheus::Counter, 1>> volume_stage_error_;        // operation
  // From 1.36 (null before): profile, driver, status.
  std::unique_ptr<MetricVec<prometheus::Counter, 3>> dra_bindingconditions_allocations_;
  std::unique_ptr<MetricVec<prometheus::Histogram, 3>> dra_bindingconditions_wait_;
  // Claim creates: 1.36's (status) or 1.37's (status, admin_access,
  // owner_api_group, owner_api_kind); null at other minors.
  std::unique_ptr<MetricVec<prometheus::Counter, 1>> resourceclaim_creates_1_36_;
  std::unique_ptr<MetricVec<prometheus::Counter, 4>> resourceclaim_creates_;

  // Lets Profile() look up a string_view without allocating.
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::shared_mutex handles_mu_;
  std::unordered_map<std::string, std::unique_ptr<ProfileMetrics>, StringHash, std::equal_to<>>
      profiles_;
  // Keyed by plugin + '\0' + profile.
  std::unordered_map<std::string, std::unique_ptr<PluginMetrics>, StringHash, std::equal_to<>>
      plugins_;
};

}  // namespace ksched::metrics
