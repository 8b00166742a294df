#include "pkg/scheduler/queue/priority_queue.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "pkg/api/pod_helpers.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/framework/events.h"
#include "pkg/scheduler/queue/cross_topology.h"
#include "pkg/scheduler/queue/pod_updated.h"
#include "pkg/scheduler/queue/prefetch.h"
#include "pkg/util/seconds.h"
#include "pkg/util/thread_name.h"

namespace ksched::scheduler::queue {

using framework::ClusterEvent;
using framework::EventObject;
using framework::QueuedPodInfo;
using framework::QueuedPodInfoPtr;

namespace {

// Fetches the lines of `pod` that Add reads (key, UID, priority, profile,
// what DerivePodInfo starts from, the nomination), so their misses overlap
// instead of following one another as Add proceeds. A pod just decoded by
// the informer is in cache and this costs a few instructions.
void PrefetchPodForAdd(const api::Pod& pod) {
  Prefetch(&pod.metadata.name);
  Prefetch(&pod.metadata.namespace_);
  Prefetch(&pod.metadata.uid);
  Prefetch(&pod.spec.scheduler_name);
  Prefetch(&pod.spec.containers);
  Prefetch(&pod.spec.affinity);
  Prefetch(&pod.spec.overhead);
  Prefetch(&pod.status.nominated_node_name);
}

}  // namespace

PriorityQueue::PriorityQueue(const framework::QueueSortPlugin& sort, PriorityQueueOptions options)
    : clock_(*options.clock),
      sort_(sort),
      features_(options.features),
      pod_max_in_unschedulable_pods_duration_(options.pod_max_in_unschedulable_pods_duration),
      metrics_(options.metrics != nullptr ? *options.metrics : NoopQueueMetrics::Get()),
      hint_maps_(std::move(options.queueing_hint_map)),
      pre_enqueue_plugins_(std::move(options.pre_enqueue_plugins)),
      plugin_to_events_(BuildPluginToEventsMap(hint_maps_)),
      namespace_labels_(std::move(options.namespace_labels)),
      label_unscheduled_pod_add_(framework::kEventUnscheduledPodAdd.Label()),
      label_unscheduled_pod_update_(framework::kEventUnscheduledPodUpdate.Label()),
      plugin_metrics_sample_percent_(options.plugin_metrics_sample_percent),
      record_metrics_(options.metrics != nullptr),
      hint_seconds_per_tick_(record_metrics_ ? util::CycleClock::NanosPerTick() * 1e-9 : 0.0),
      metrics_rng_(static_cast<std::minstd_rand::result_type>(options.metrics_seed)),
      active_q_(sort, features_.scheduler_queueing_hints, metrics_),
      backoff_q_(clock_, options.pod_initial_backoff, options.pod_max_backoff, sort,
                 features_.scheduler_pop_from_backoff_q, metrics_),
      unschedulable_pods_(hint_maps_, metrics_, options.index_unschedulable_pods),
      nominator_(std::move(options.pod_lister)) {}

PriorityQueue::~PriorityQueue() { Close(); }

QueuedPodInfoPtr PriorityQueue::NewQueuedPodInfo(PodPtr pod) const {
  return std::make_shared<QueuedPodInfo>(std::move(pod), clock_.Now());
}

// ---------------------------------------------------------------- PreEnqueue

bool PriorityQueue::RunPreEnqueuePlugin(framework::PreEnqueuePlugin& plugin, QueuedPodInfo& info, bool timed) {
  const util::TimePoint start = timed ? clock_.Now() : util::TimePoint{};
  framework::Status s = plugin.PreEnqueue(info.pod());
  if (timed) {
    metrics_.ObservePreEnqueuePluginDuration(plugin.Name(), s.code(),
                                             util::Seconds(clock_.Since(start)));
  }
  if (s.IsSuccess()) return true;
  std::string name(plugin.Name());
  info.unschedulable_plugins.Insert(name);
  metrics_.AddUnschedulablePods(name, info.pod().spec.scheduler_name, 1);
  auto it = plugin_to_events_.find(name);
  info.gating_plugin_events = it == plugin_to_events_.end() ? nullptr : it->second;
  info.gating_plugin = std::move(name);
  if (s.code() == framework::Code::kError) {
    spdlog::error("Unexpected error running PreEnqueue plugin {} for pod {}: {}", plugin.Name(),
                  api::KeyOf(info.pod().metadata), s.Message());
  } else {
    KLOG_V(4, "Status after running PreEnqueue plugin {} for pod {}: {}", plugin.Name(),
           api::KeyOf(info.pod().metadata), s.ToString());
  }
  return false;
}

void PriorityQueue::RunPreEnqueuePlugins(QueuedPodInfo& info) {
  // As kube-scheduler: every run is timed as the extension point, with the
  // pod's schedulerName as profile, even when the profile has no PreEnqueue
  // plugin; a sample of the runs also times each plugin.
  if (!record_metrics_) {  // nothing would observe the durations
    RunPreEnqueueLoop(info, false);
    return;
  }
  const util::TimePoint start = clock_.Now();
  const bool timed = plugin_metrics_sample_percent_ > 0 &&
                     static_cast<int>(metrics_rng_() % 100) < plugin_metrics_sample_percent_;
  RunPreEnqueueLoop(info, timed);
  metrics_.ObservePreEnqueueDuration(info.pod().spec.scheduler_name,
                                     util::Seconds(clock_.Since(start)));
}

void PriorityQueue::RunPreEnqueueLoop(QueuedPodInfo& info, bool timed) {
  auto it = pre_enqueue_plugins_.find(info.pod().spec.scheduler_name);
  if (it != pre_enqueue_plugins_.end()) {
    const std::vector<framework::PreEnqueuePlugin*>& plugins = it->second;
    const std::string gating = info.gating_plugin;
    // The plugin that gated the pod last time is the likeliest to gate it
    // again; asking it first avoids running the others for nothing.
    if (!gating.empty()) {
      for (framework::PreEnqueuePlugin* pl : plugins) {
        if (pl->Name() == gating) {
          if (!RunPreEnqueuePlugin(*pl, info, timed)) return;
          break;
        }
      }
    }
    for (framework::PreEnqueuePlugin* pl : plugins) {
      if (!gating.empty() && pl->Name() == gating) continue;
      if (!RunPreEnqueuePlugin(*pl, info, timed)) return;
    }
  }
  info.gating_plugin.clear();
  info.gating_plugin_events = nullptr;
}

// ---------------------------------------------------------------- moves

bool PriorityQueue::MoveToActiveQ(const QueuedPodInfoPtr& info, std::string_view key, std::string_view event,
                                  bool from_backoff_q, HashedKey* owned_key, bool detached) {
  // With PopFromBackoffQ, PreEnqueue ran when the pod entered backoffQ.
  if (!(features_.scheduler_pop_from_backoff_q && from_backoff_q)) RunPreEnqueuePlugins(*info);
  if (info->Gated()) {
    info->was_flushed_from_unschedulable = false;  // it makes no attempt
    if (active_q_.Has(key) || backoff_q_.Has(key)) return false;
    if (const QueuedPodInfoPtr* existing = unschedulable_pods_.Get(key)) {
      // The record may have just gained a gating plugin: re-index it.
      if (existing->get() == info.get()) unschedulable_pods_.Refresh(key);
      return false;
    }
    unschedulable_pods_.AddOrUpdate(key, info, event);
    KLOG_V(5, "Pod {} moved to an internal scheduling queue, because the pod is gated (event {}, queue {})", key,
           event, "Unschedulable");
    return false;
  }
  if (!info->initial_attempt_timestamp) info->initial_attempt_timestamp = clock_.Now();
  if (!detached || DualFilingPossible()) {
    unschedulable_pods_.Delete(key);
    backoff_q_.Delete(key);
  }
  if (owned_key != nullptr) {
    // `key` may view owned_key->str: not used below.
    active_q_.AddOwned(std::move(owned_key->str), owned_key->hash, info, event);
  } else {
    active_q_.Add(key, info, event);
  }
  if (event == label_unscheduled_pod_add_ || event == label_unscheduled_pod_update_) {
    nominator_.AddNominatedPod(info->pod_info, nullptr);
  }
  return true;
}

bool PriorityQueue::MoveToBackoffQ(const QueuedPodInfoPtr& info, std::string_view key, std::string_view event) {
  // With PopFromBackoffQ a pod may leave backoffQ straight from Pop, so it
  // must pass PreEnqueue on the way in.
  if (features_.scheduler_pop_from_backoff_q) {
    RunPreEnqueuePlugins(*info);
    if (info->Gated()) {
      info->was_flushed_from_unschedulable = false;  // it makes no attempt
      if (const QueuedPodInfoPtr* existing = unschedulable_pods_.Get(key)) {
        if (existing->get() == info.get()) unschedulable_pods_.Refresh(key);
      } else {
        unschedulable_pods_.AddOrUpdate(key, info, event);
      }
      return false;
    }
  }
  unschedulable_pods_.Delete(key);
  backoff_q_.Add(key, info, event);
  return true;
}

QueueName PriorityQueue::RequeuePodWithQueueingStrategy(const QueuedPodInfoPtr& info, std::string_view key,
                                                        QueueingStrategy strategy, std::string_view event,
                                                        HashedKey* owned_key, bool detached) {
  if (strategy == QueueingStrategy::kQueueSkip) {
    unschedulable_pods_.AddOrUpdate(key, info, event);
    return QueueName::kUnschedulable;
  }
  // The backoff may have completed while the pod was unschedulable.
  if (strategy == QueueingStrategy::kQueueAfterBackoff && backoff_q_.IsPodBackingOff(*info)) {
    return MoveToBackoffQ(info, key, event) ? QueueName::kBackoff : QueueName::kUnschedulable;
  }
  return MoveToActiveQ(info, key, event, false, owned_key, detached) ? QueueName::kActive : QueueName::kUnschedulable;
}

// ---------------------------------------------------------------- hints

PriorityQueue::QueueingStrategy PriorityQueue::IsPodWorthRequeuing(const QueuedPodInfo& info,
                                                                   const ClusterEvent& event,
                                                                   std::string_view label,
                                                                   const MatchedHints* hints,
                                                                   const EventObject& old_obj,
                                                                   const EventObject& new_obj) {
  if (!info.HasRejectors()) return QueueingStrategy::kQueueAfterBackoff;
  if (event.IsWildCard()) {
    // A wildcard carrying a pod (ForceActivate) is meant for that pod only.
    if (!new_obj.empty()) {
      const api::Pod* target = new_obj.As<api::Pod>();
      if (target == nullptr || target->metadata.uid != info.pod().metadata.uid) {
        return QueueingStrategy::kQueueSkip;
      }
    }
    return QueueingStrategy::kQueueAfterBackoff;
  }
  MatchedHints local;
  if (hints == nullptr) {
    auto map_it = hint_maps_.find(info.pod().spec.scheduler_name);
    if (map_it == hint_maps_.end()) {
      spdlog::error("No QueueingHintMap is registered for profile {} (pod {})", info.pod().spec.scheduler_name,
                    api::KeyOf(info.pod().metadata));
      return QueueingStrategy::kQueueAfterBackoff;
    }
    map_it->second.Match(event, &local);
    hints = &local;
  }
  QueueingStrategy strategy = QueueingStrategy::kQueueSkip;
  for (const PluginHints& ph : hints->plugins) {
    const bool pending = info.pending_plugins.Has(ph.plugin);
    if (!pending && !info.unschedulable_plugins.Has(ph.plugin)) continue;
    for (const framework::QueueingHintFn* fn : ph.fns) {
      framework::QueueingHint hint = framework::QueueingHint::kQueue;
      std::string_view result = kHintResultQueue;
      double seconds = 0;  // the default hint costs nothing: no clock reads
      if (*fn) {
        const int64_t start = hint_seconds_per_tick_ > 0 ? util::CycleClock::Now() : 0;
        util::StatusOr<framework::QueueingHint> got = (*fn)(info.pod(), old_obj, new_obj);
        if (hint_seconds_per_tick_ > 0) {
          seconds = static_cast<double>(util::CycleClock::TicksSince(start)) * hint_seconds_per_tick_;
        }
        if (got.ok()) {
          hint = *got;
          result = framework::QueueingHintString(hint);
        } else {
          // Treat a failing hint as Queue so the pod cannot get stuck.
          spdlog::error("QueueingHintFn of plugin {} returned an error for pod {} on event {}: {}", ph.plugin,
                        api::KeyOf(info.pod().metadata), label, got.status().ToString());
          result = kHintResultError;
        }
      }
      hint_runs_.push_back(HintRun{ph.plugin, result, seconds});
      if (hint == framework::QueueingHint::kQueueSkip) continue;
      // Queue from a Pending plugin: the wait it reported is over.
      if (pending) return QueueingStrategy::kQueueImmediately;
      // Only a Pending plugin could still raise this to "immediately".
      if (info.pending_plugins.empty()) return QueueingStrategy::kQueueAfterBackoff;
      strategy = QueueingStrategy::kQueueAfterBackoff;
    }
  }
  return strategy;
}

void PriorityQueue::RecordHintRuns(std::string_view label) {
  if (hint_runs_.empty()) return;
  metrics_.ObserveQueueingHintDurations(label, hint_runs_);
  hint_runs_.clear();
}

PriorityQueue::QueueingStrategy PriorityQueue::DetermineSchedulingHintForInFlightPod(const QueuedPodInfo& info) {
  // No rejector: an internal error, retry after backoff.
  if (!info.HasRejectors()) return QueueingStrategy::kQueueAfterBackoff;
  std::optional<std::vector<const InFlightEvent*>> events = active_q_.EventsSince(info.pod().metadata.uid);
  if (!events) {
    spdlog::error("In-flight pod {} isn't found in the scheduling queue; requeueing it after backoff",
                  api::KeyOf(info.pod().metadata));
    return QueueingStrategy::kQueueAfterBackoff;
  }
  QueueingStrategy strategy = QueueingStrategy::kQueueSkip;
  for (const InFlightEvent* e : *events) {
    KLOG_V(5, "Checking event {} for in-flight pod {}", e->label, api::KeyOf(info.pod().metadata));
    const QueueingStrategy event_strategy = IsPodWorthRequeuing(info, e->event, e->label, nullptr, e->old_obj, e->new_obj);
    RecordHintRuns(e->label);
    switch (event_strategy) {
      case QueueingStrategy::kQueueSkip:
        continue;
      case QueueingStrategy::kQueueImmediately:
        return QueueingStrategy::kQueueImmediately;
      case QueueingStrategy::kQueueAfterBackoff:
        strategy = QueueingStrategy::kQueueAfterBackoff;
        if (info.pending_plugins.empty()) return strategy;
        break;
    }
  }
  return strategy;
}

EventHints PriorityQueue::ComputeEventHints(const ClusterEvent& event) const {
  EventHints out;
  for (const auto& [profile, map] : hint_maps_) {
    MatchedHints matched;
    map.Match(event, &matched);
    if (!matched.empty()) out.push_back(ProfileHints{profile, std::move(matched)});
  }
  return out;
}

bool PriorityQueue::IsEventOfInterest(const ClusterEvent& event) const {
  if (event.IsWildCard()) return true;
  for (const auto& [profile, map] : hint_maps_) {
    if (map.Matches(event)) return true;
  }
  KLOG_V(6, "Received event {} that no enabled plugin is interested in", event.Label());
  return false;
}

// ---------------------------------------------------------------- public API

void PriorityQueue::Add(PodPtr pod) {
  PrefetchPodForAdd(*pod);
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  HashedKey key{api::PodKey(*pod), 0};
  key.hash = StringHash{}(key.str);
  // The index slot and the heap entry are cold with many pods queued;
  // fetch them while the record is built.
  active_q_.PrefetchInsert(key.hash);
  QueuedPodInfoPtr info = NewQueuedPodInfo(std::move(pod));
  if (MoveToActiveQ(info, key.str, label_unscheduled_pod_add_, false, &key)) Broadcast();
}

void PriorityQueue::Update(PodPtr old_pod, PodPtr new_pod) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  std::vector<ClusterEvent> events;
  if (features_.scheduler_queueing_hints) {
    if (old_pod != nullptr) {
      events = framework::PodSchedulingPropertiesChange(*new_pod, *old_pod);
    } else {
      events.push_back(framework::kEventUnscheduledPodUpdate);
    }
    // The pod will come back with the informer's latest version; the update
    // may be what makes it schedulable, so remember it for its return.
    if (active_q_.AddEventsIfPodInFlight(old_pod, new_pod, events)) {
      KLOG_V(6, "Pod {} is being scheduled; its update is recorded for its return", api::KeyOf(new_pod->metadata));
      return;
    }
  }
  std::string key = api::PodKey(*new_pod);
  if (old_pod != nullptr) {
    if (QueuedPodInfo* info = active_q_.Update(key, new_pod)) {
      nominator_.UpdateNominatedPod(*old_pod, info->pod_info);
      return;
    }
    if (QueuedPodInfo* info = backoff_q_.Update(key, new_pod)) {
      nominator_.UpdateNominatedPod(*old_pod, info->pod_info);
      return;
    }
  }
  if (const QueuedPodInfoPtr* found = unschedulable_pods_.Get(key)) {
    QueuedPodInfoPtr info = *found;
    info->pod_info.Update(new_pod);
    nominator_.UpdateNominatedPod(old_pod != nullptr ? *old_pod : *new_pod, info->pod_info);
    if (features_.scheduler_queueing_hints) {
      EventObject old_obj(old_pod);
      EventObject new_obj(new_pod);
      for (const ClusterEvent& evt : events) {
        std::string label = evt.Label();
        QueueingStrategy hint = IsPodWorthRequeuing(*info, evt, label, nullptr, old_obj, new_obj);
        RecordHintRuns(label);
        QueueName queue = RequeuePodWithQueueingStrategy(info, key, hint, label);
        if (queue == QueueName::kUnschedulable) continue;
        KLOG_V(5, "Pod {} moved to an internal scheduling queue because the pod is updated (event {}, queue {})",
               key, label, QueueNameLabel(queue));
        if (queue == QueueName::kActive || features_.scheduler_pop_from_backoff_q) {
          Broadcast();
          break;
        }
        // In backoffQ with PopFromBackoffQ off: kube-scheduler goes on with
        // the update's other events, and one whose hint is QueueSkip files
        // the pod in unschedulablePods as well, until a move takes it out of
        // both (DualFilingPossible).
      }
      return;
    }
    if (old_pod == nullptr || IsPodUpdated(*old_pod, *new_pod)) {
      if (backoff_q_.IsPodBackingOff(*info)) {
        if (MoveToBackoffQ(info, key, label_unscheduled_pod_update_) && features_.scheduler_pop_from_backoff_q) {
          Broadcast();
        }
        return;
      }
      if (MoveToActiveQ(info, key, label_unscheduled_pod_update_, false)) Broadcast();
      return;
    }
    // Only status changed: it cannot have become schedulable.
    unschedulable_pods_.AddOrUpdate(key, info, label_unscheduled_pod_update_);
    return;
  }
  QueuedPodInfoPtr info = NewQueuedPodInfo(std::move(new_pod));
  if (MoveToActiveQ(info, key, label_unscheduled_pod_update_, false)) Broadcast();
}

void PriorityQueue::Delete(const api::Pod& pod) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  nominator_.DeleteNominatedPodIfExists(pod);
  std::string key = api::PodKey(pod);
  if (active_q_.Delete(key) != nullptr) return;
  // A pod filed in both backoffQ and unschedulablePods leaves both (kube
  // would keep the unschedulablePods record of a deleted pod).
  if (backoff_q_.Delete(key) != nullptr && !DualFilingPossible()) return;
  unschedulable_pods_.Delete(key);
}

bool PriorityQueue::PodReadyToPop() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  return !active_q_.empty() || (features_.scheduler_pop_from_backoff_q && backoff_q_.rejection_size() > 0);
}

QueuedPodInfoPtr PriorityQueue::Pop() {
  std::unique_lock<std::mutex> l(mu_.inner());
  for (;;) {
    while (active_q_.empty() &&
           !(features_.scheduler_pop_from_backoff_q && backoff_q_.rejection_size() > 0)) {
      if (closed_) {
        KLOG_V(2, "Scheduling queue is closed");
        return nullptr;
      }
      cond_.wait(l);
    }
    QueuedPodInfoPtr info;
    if (!active_q_.empty()) {
      info = active_q_.PopHead();
    } else {
      info = backoff_q_.PopRejectionHead().second;
      metrics_.IncIncomingPods(QueueName::kActive, framework::kPopFromBackoffQ);
    }
    ++info->attempts;
    if (!active_q_.MarkInFlight(info->pod_info)) {
      // Tracking the same UID twice would leak its in-flight entry.
      spdlog::error("Discarding popped pod {}: the same pod is tracked in multiple places in the scheduler",
                    api::KeyOf(info->pod().metadata));
      continue;
    }
    active_q_.IncrementSchedulingCycle();
    for (const std::string& plugin : info->unschedulable_plugins) {
      metrics_.AddUnschedulablePods(plugin, info->pod().spec.scheduler_name, -1);
    }
    for (const std::string& plugin : info->pending_plugins) {
      if (!info->unschedulable_plugins.Has(plugin)) {
        metrics_.AddUnschedulablePods(plugin, info->pod().spec.scheduler_name, -1);
      }
    }
    if (!features_.rejectors_cleared_on_failure) {
      info->unschedulable_plugins.Clear();
      info->pending_plugins.Clear();
    }
    // Pops come in a row (the scheduling loop pops again as soon as a cycle
    // ends): fetch the next head's record now, so the next Pop finds its
    // entry, record and pod counts in cache (three dependent misses).
    active_q_.PrefetchHead();
    return info;
  }
}

void PriorityQueue::Done(const std::string& uid) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  active_q_.Done(uid);
}

util::Status PriorityQueue::AddUnschedulableIfNotPresent(QueuedPodInfoPtr info, int64_t pod_scheduling_cycle) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  util::Status s = AddUnschedulableLocked(info, pod_scheduling_cycle);
  // Whatever happened, the attempt is over.
  active_q_.Done(info->pod().metadata.uid);
  return s;
}

util::Status PriorityQueue::AddUnschedulableLocked(const QueuedPodInfoPtr& info, int64_t pod_scheduling_cycle) {
  const std::string key = api::PodKey(info->pod());
  if (unschedulable_pods_.Has(key)) {
    return util::Status(util::StatusCode::kAlreadyExists, "Pod " + key + " is already present in unschedulable queue");
  }
  if (active_q_.Has(key)) {
    return util::Status(util::StatusCode::kAlreadyExists, "Pod " + key + " is already present in the active queue");
  }
  if (backoff_q_.Has(key)) {
    return util::Status(util::StatusCode::kAlreadyExists, "Pod " + key + " is already present in the backoff queue");
  }
  const bool rejected = info->HasRejectors();
  if (rejected) {
    ++info->unschedulable_count;
    info->consecutive_errors_count = 0;
  } else {
    ++info->consecutive_errors_count;
  }
  info->timestamp = clock_.Now();
  // Attempts and timestamp changed, so the cached deadline is stale.
  info->backoff_expiration.reset();
  info->was_flushed_from_unschedulable = false;
  info->flush_timestamp = util::TimePoint{};
  const std::string& profile = info->pod().spec.scheduler_name;
  for (const std::string& plugin : info->unschedulable_plugins) metrics_.AddUnschedulablePods(plugin, profile, 1);
  for (const std::string& plugin : info->pending_plugins) {
    if (!info->unschedulable_plugins.Has(plugin)) metrics_.AddUnschedulablePods(plugin, profile, 1);
  }

  if (!features_.scheduler_queueing_hints) {
    // A move request during the attempt may have helped the pod, and a pod
    // without rejectors failed for reasons no event will announce: retry
    // both after backoff.
    if (move_request_cycle_ >= pod_scheduling_cycle || !rejected) {
      if (MoveToBackoffQ(info, key, framework::kScheduleAttemptFailure) && features_.scheduler_pop_from_backoff_q) {
        Broadcast();
      }
    } else {
      unschedulable_pods_.AddOrUpdate(key, info, framework::kScheduleAttemptFailure);
      KLOG_V(5, "Pod {} moved to an internal scheduling queue (event {}, queue Unschedulable)", key,
             framework::kScheduleAttemptFailure);
    }
    return util::Status::Ok();
  }

  QueueingStrategy strategy = DetermineSchedulingHintForInFlightPod(*info);
  QueueName queue = RequeuePodWithQueueingStrategy(info, key, strategy, framework::kScheduleAttemptFailure);
  KLOG_V(3, "Pod {} moved to an internal scheduling queue (event {}, queue {}, schedulingCycle {})", key,
         framework::kScheduleAttemptFailure, QueueNameLabel(queue), pod_scheduling_cycle);
  if (queue == QueueName::kActive || (features_.scheduler_pop_from_backoff_q && queue == QueueName::kBackoff)) {
    Broadcast();
  }
  return util::Status::Ok();
}

bool PriorityQueue::ActivateLocked(const PodPtr& pod) {
  std::string key = api::PodKey(*pod);
  QueuedPodInfoPtr info;
  bool from_backoff_q = false;
  if (const QueuedPodInfoPtr* found = unschedulable_pods_.Get(key)) {
    info = *found;
  } else {
    // Leaving backoffQ first guarantees the flusher cannot move it meanwhile.
    info = backoff_q_.Delete(key);
    if (info == nullptr) return false;
    from_backoff_q = true;
  }
  return MoveToActiveQ(info, key, framework::kForceActivate, from_backoff_q);
}

void PriorityQueue::Activate(const std::vector<PodPtr>& pods) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  bool activated = false;
  for (const PodPtr& pod : pods) {
    if (ActivateLocked(pod)) {
      activated = true;
      continue;
    }
    // In flight (e.g. its async preemption finished before it came back):
    // make sure it is retried as soon as it returns.
    active_q_.AddEventsIfPodInFlight(nullptr, pod, {framework::kEventForceActivate});
    move_request_cycle_ = active_q_.scheduling_cycle();
  }
  if (activated) Broadcast();
}

void PriorityQueue::MoveAllToActiveOrBackoffQueue(const ClusterEvent& event, const EventObject& old_obj,
                                                  const EventObject& new_obj, const PreEnqueueCheck& pre_check) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  MoveAllLocked(event, old_obj, new_obj, pre_check);
}

void PriorityQueue::MoveAllLocked(const ClusterEvent& event, const EventObject& old_obj, const EventObject& new_obj,
                                  const PreEnqueueCheck& pre_check) {
  std::vector<queue::UnschedulablePods::Candidate> candidates;
  EventHints hints;
  if (event.IsWildCard()) {
    unschedulable_pods_.CollectAll(&candidates);
  } else {
    hints = ComputeEventHints(event);
    // No plugin cares: return before touching any pod (and without counting
    // it as a move request).
    if (hints.empty()) return;
    unschedulable_pods_.CollectCandidates(hints, &candidates);
  }
  if (pre_check) {
    std::erase_if(candidates, [&](const queue::UnschedulablePods::Candidate& c) { return !pre_check(c.info->pod()); });
  }
  MovePodsLocked(candidates, event, event.IsWildCard() ? nullptr : &hints, old_obj, new_obj);
}

void PriorityQueue::MovePodsLocked(std::vector<queue::UnschedulablePods::Candidate>& pods, const ClusterEvent& event,
                                   const EventHints* hints, const EventObject& old_obj, const EventObject& new_obj) {
  EventHints computed;
  if (hints == nullptr && !event.IsWildCard()) {
    computed = ComputeEventHints(event);
    hints = &computed;
  }
  if (!event.IsWildCard() && hints->empty()) {
    KLOG_V(6, "Received event {} that no enabled plugin is interested in", event.Label());
    return;
  }
  const std::string label = event.Label();
  bool activated = false;
  static const MatchedHints kNoHints;
  // Each candidate's record, store entry and key-table slots are cold when
  // many pods move: fetch them ahead so their misses overlap.
  constexpr size_t kFetchRecordAhead = 16;
  constexpr size_t kFetchIndexAhead = 8;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (i + kFetchRecordAhead < pods.size()) UnschedulablePods::PrefetchRecord(pods[i + kFetchRecordAhead]);
    if (i + kFetchIndexAhead < pods.size()) {
      const UnschedulablePods::Candidate& ahead = pods[i + kFetchIndexAhead];
      unschedulable_pods_.PrefetchIndex(ahead);
      active_q_.PrefetchKey(UnschedulablePods::KeyHash(ahead));
    }
    queue::UnschedulablePods::Candidate& c = pods[i];
    const QueuedPodInfo& info = *c.info;
    if (info.Gated() && !(features_.leftover_flush_of_gated_pods && event.IsWildCard()) &&
        (info.gating_plugin_events == nullptr || !framework::MatchAny(event, *info.gating_plugin_events))) {
      // The gating plugin does not care about this event: it cannot let the
      // pod in.
      continue;
    }
    // Profiles are few: find the event's hints for this one by identity.
    const MatchedHints* profile_hints = nullptr;
    if (hints != nullptr && c.profile != nullptr) {
      profile_hints = &kNoHints;
      for (const ProfileHints& ph : *hints) {
        if (ph.profile.data() == c.profile->data()) {
          profile_hints = &ph.hints;
          break;
        }
      }
    }
    QueueingStrategy strategy = IsPodWorthRequeuing(info, event, label, profile_hints, old_obj, new_obj);
    if (strategy == QueueingStrategy::kQueueSkip) {
      KLOG_V(5, "Event {} is not making pod {} schedulable", label, *c.key);
      continue;
    }
    HashedKey key;  // the record's key and hash, moved out as the record goes away
    QueuedPodInfoPtr taken = unschedulable_pods_.Take(c, &key);
    QueueName queue = RequeuePodWithQueueingStrategy(taken, key.str, strategy, label, &key, /*detached=*/true);
    if (queue == QueueName::kActive || (features_.scheduler_pop_from_backoff_q && queue == QueueName::kBackoff)) {
      activated = true;
    }
  }
  RecordHintRuns(label);
  move_request_cycle_ = active_q_.scheduling_cycle();
  if (features_.scheduler_queueing_hints && active_q_.AddEventIfAnyInFlight(old_obj, new_obj, event)) {
    KLOG_V(5, "Event {} received while pods are in flight", label);
  }
  if (activated) Broadcast();
}

std::vector<queue::UnschedulablePods::Candidate> PriorityQueue::PodsWithCrossTopologyTerm(const api::Pod& assigned) {
  std::optional<api::StringMap> ns_labels;
  if (namespace_labels_) ns_labels = namespace_labels_(assigned.metadata.namespace_);
  std::vector<queue::UnschedulablePods::Candidate> all;
  unschedulable_pods_.CollectAll(&all);
  std::vector<queue::UnschedulablePods::Candidate> out;
  for (queue::UnschedulablePods::Candidate& c : all) {
    const QueuedPodInfo& info = *c.info;
    if (info.unschedulable_plugins.Has(kPodTopologySpreadPluginName) &&
        info.pod().metadata.namespace_ == assigned.metadata.namespace_) {
      out.push_back(std::move(c));
      continue;
    }
    if (AnyRequiredAffinityTermMatches(info.pod(), assigned, ns_labels)) out.push_back(std::move(c));
  }
  return out;
}

void PriorityQueue::AssignedPodAdded(const PodPtr& pod) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  std::vector<queue::UnschedulablePods::Candidate> pods = PodsWithCrossTopologyTerm(*pod);
  MovePodsLocked(pods, framework::kEventAssignedPodAdd, nullptr, EventObject(), EventObject(pod));
}

void PriorityQueue::AssignedPodUpdated(const PodPtr& old_pod, const PodPtr& new_pod, const ClusterEvent& event) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  if (framework::Match(ClusterEvent(framework::resource::kPod, framework::ActionType::kUpdatePodScaleDown), event)) {
    // Freed resources may help pods rejected by resource fit, which the
    // cross-topology pre-filter would miss.
    MoveAllLocked(event, EventObject(old_pod), EventObject(new_pod), nullptr);
    return;
  }
  std::vector<queue::UnschedulablePods::Candidate> pods = PodsWithCrossTopologyTerm(*new_pod);
  MovePodsLocked(pods, event, nullptr, EventObject(old_pod), EventObject(new_pod));
}

int64_t PriorityQueue::SchedulingCycle() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  return active_q_.scheduling_cycle();
}

// ---------------------------------------------------------------- nominator
// The nominator has its own lock (taken after the queue's), so these do not
// take the queue lock: Filter workers call NominatedPodsForNode for every
// node, and must not contend with Add/Pop.

void PriorityQueue::AddNominatedPod(const framework::PodInfo& pi, const framework::NominatingInfo* ni) {
  nominator_.AddNominatedPod(pi, ni);
}

void PriorityQueue::UpdateNominatedPod(const api::Pod& old_pod, const framework::PodInfo& new_info) {
  nominator_.UpdateNominatedPod(old_pod, new_info);
}

void PriorityQueue::DeleteNominatedPodIfExists(const api::Pod& pod) { nominator_.DeleteNominatedPodIfExists(pod); }

std::vector<framework::PodInfoPtr> PriorityQueue::NominatedPodsForNode(std::string_view node) const {
  return nominator_.NominatedPodsForNode(node);
}

// ---------------------------------------------------------------- flushing

void PriorityQueue::FlushBackoffQCompleted() {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  FlushBackoffQCompletedLocked();
}

void PriorityQueue::FlushBackoffQCompletedLocked() {
  bool activated = false;
  for (BackoffQueue::Completed& c : backoff_q_.PopAllBackoffCompleted()) {
    HashedKey owned{std::move(c.key), c.hash};
    if (MoveToActiveQ(c.info, owned.str, framework::kBackoffComplete, true, &owned, /*detached=*/true)) {
      activated = true;
    }
  }
  if (activated) Broadcast();
}

void PriorityQueue::FlushUnschedulablePodsLeftover() {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  FlushUnschedulablePodsLeftoverLocked();
}

void PriorityQueue::FlushUnschedulablePodsLeftoverLocked() {
  const util::TimePoint now = clock_.Now();
  std::vector<queue::UnschedulablePods::Candidate> all;
  unschedulable_pods_.CollectAll(&all);
  std::erase_if(all, [&](const queue::UnschedulablePods::Candidate& c) {
    util::TimePoint since = c.info->timestamp;
    if (features_.leftover_flush_of_gated_pods) since = std::max(since, c.info->flush_timestamp);
    return !(now - since > pod_max_in_unschedulable_pods_duration_);
  });
  if (!all.empty()) {
    for (const queue::UnschedulablePods::Candidate& c : all) {
      c.info->was_flushed_from_unschedulable = true;
      c.info->flush_timestamp = now;
    }
    MovePodsLocked(all, framework::kEventUnschedulableTimeout, nullptr, EventObject(), EventObject());
  }
}

void PriorityQueue::Run() {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  if (running_ || closed_) return;
  running_ = true;
  // The schedule starts now, not when the new thread first runs: the thread
  // may start late (a loaded machine), and time may have moved meanwhile. A
  // schedule anchored at its first run would then push every flush one
  // period past what the caller of Run() can expect.
  const util::TimePoint start = clock_.Now();
  flusher_ = std::thread([this, start] {
    util::NameThisThread("queue-flusher");
    FlusherLoop(start);
  });
}

void PriorityQueue::FlusherLoop(util::TimePoint start) {
  std::unique_lock<std::mutex> l(mu_.inner());
  // With ordering windows the flush must run at whole seconds, so a whole
  // window is released at once.
  util::TimePoint next_backoff =
      features_.scheduler_pop_from_backoff_q ? backoff_q_.AlignToWindow(start + kBackoffOrderingWindow)
                                             : start + kBackoffOrderingWindow;
  // Like wait.Until: the leftover flush runs at once, then every period.
  util::TimePoint next_leftover = start;
  util::TimePoint now;
  while (!closed_) {
    now = clock_.Now();
    if (now >= next_leftover) {
      FlushUnschedulablePodsLeftoverLocked();
      next_leftover = clock_.Now() + kUnschedulableLeftoverFlushPeriod;
      continue;
    }
    if (now >= next_backoff) {
      FlushBackoffQCompletedLocked();
      // A ticker: missed ticks are dropped, the phase is kept.
      while (next_backoff <= now) next_backoff += kBackoffOrderingWindow;
      continue;
    }
    clock_.WaitUntil(l, flush_cv_, std::min(next_backoff, next_leftover));
  }
}

void PriorityQueue::Close() {
  {
    std::lock_guard<util::SpinThenBlockMutex> l(mu_);
    if (!closed_) {
      closed_ = true;
      // Ends every flight so the in-flight gauges return to zero; a later
      // Done from a binding cycle is a no-op.
      active_q_.DoneAll();
    }
    Broadcast();
    flush_cv_.notify_all();
  }
  if (flusher_.joinable() && flusher_.get_id() != std::this_thread::get_id()) flusher_.join();
}

// ---------------------------------------------------------------- debugging

std::vector<PriorityQueue::PodPtr> PriorityQueue::PodsInActiveQ() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  std::vector<PodPtr> out;
  active_q_.ForEach([&](const QueuedPodInfoPtr& p) { out.push_back(p->pod_ptr()); });
  return out;
}

std::vector<PriorityQueue::PodPtr> PriorityQueue::PodsInBackoffQ() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  std::vector<PodPtr> out;
  backoff_q_.ForEach([&](const QueuedPodInfoPtr& p) { out.push_back(p->pod_ptr()); });
  return out;
}

std::vector<PriorityQueue::PodPtr> PriorityQueue::UnschedulablePods() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  std::vector<PodPtr> out;
  unschedulable_pods_.ForEach([&](const std::string&, const QueuedPodInfoPtr& p) { out.push_back(p->pod_ptr()); });
  return out;
}

std::vector<PriorityQueue::PodPtr> PriorityQueue::InFlightPods() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  return active_q_.InFlightPods();
}

size_t PriorityQueue::NumUnschedulablePods() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  return unschedulable_pods_.size();
}

size_t PriorityQueue::InFlightListSize() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  return active_q_.in_flight_list_size();
}

PendingPodsSummary PriorityQueue::PendingPods() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  PendingPodsSummary out;
  active_q_.ForEach([&](const QueuedPodInfoPtr& p) { out.pods.push_back(p->pod_ptr()); });
  backoff_q_.ForEach([&](const QueuedPodInfoPtr& p) { out.pods.push_back(p->pod_ptr()); });
  unschedulable_pods_.ForEach(
      [&](const std::string&, const QueuedPodInfoPtr& p) { out.pods.push_back(p->pod_ptr()); });
  out.summary = "activeQ:" + std::to_string(active_q_.size()) + "; backoffQ:" + std::to_string(backoff_q_.size()) +
                "; unschedulablePods:" + std::to_string(unschedulable_pods_.size());
  return out;
}

std::optional<QueuedPodInfo> PriorityQueue::GetPod(std::string_view name, std::string_view namespace_) const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  std::string key = api::KeyOf(namespace_, name);
  if (const QueuedPodInfoPtr* p = backoff_q_.Get(key)) return **p;
  if (const QueuedPodInfoPtr* p = unschedulable_pods_.Get(key)) return **p;
  if (const QueuedPodInfoPtr* p = active_q_.Get(key)) return **p;
  return std::nullopt;
}

std::optional<PriorityQueue::Location> PriorityQueue::LocatePod(std::string_view name,
                                                                std::string_view namespace_) const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  std::string key = api::KeyOf(namespace_, name);
  if (const QueuedPodInfoPtr* p = active_q_.Get(key)) return Location{"activeQ", **p};
  if (const QueuedPodInfoPtr* p = backoff_q_.Get(key)) return Location{"backoffQ", **p};
  if (const QueuedPodInfoPtr* p = unschedulable_pods_.Get(key)) {
    return Location{(*p)->Gated() ? "gated" : "unschedulable", **p};
  }
  for (const PodPtr& p : active_q_.InFlightPods()) {
    if (p->metadata.name == name && p->metadata.namespace_ == namespace_) return Location{"inFlight", std::nullopt};
  }
  return std::nullopt;
}

const QueueingHintMap* PriorityQueue::HintMapFor(std::string_view scheduler_name) const {
  auto it = hint_maps_.find(scheduler_name);
  return it == hint_maps_.end() ? nullptr : &it->second;
}

}  // namespace ksched::scheduler::queue
