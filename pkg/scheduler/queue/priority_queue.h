// PriorityQueue: the scheduling queue (kube-scheduler v1.34 PriorityQueue).
//
// Every pending pod of the scheduler's profiles is in exactly one place:
// - activeQ: ready to be scheduled, ordered by the QueueSort plugin;
// - backoffQ: waiting out its backoff after a failed attempt (rejection
//   heap and error heap, see backoff_queue.h);
// - unschedulablePods: rejected, waiting for an event that may help, or
//   gated by a PreEnqueue plugin (see unschedulable_pods.h);
// - in flight: popped and being scheduled or bound, until Done or
//   AddUnschedulableIfNotPresent returns it.
// (With SchedulerQueueingHints off, kube lets an update put an in-flight
// pod back into activeQ; AddUnschedulableIfNotPresent then reports the
// duplicate. That behaviour is kept for fidelity.)
//
// Cluster events (MoveAllToActiveOrBackoffQueue) move unschedulable pods by
// asking the hint functions of the plugins that rejected them; events that
// arrive while pods are in flight are recorded and replayed for each pod
// that comes back, so no relevant event is missed. Unlike kube-scheduler,
// an event only visits the pods whose rejectors registered for it.
//
// Locking: one mutex guards everything; every public method takes it
// (Pop releases it while waiting on the condition variable). Hint
// functions, PreEnqueue plugins, QueueSort::Less, the pod lister and the
// metrics recorder run under it; they must be cheap and non-blocking. No
// API call or other blocking work happens under the lock. The nominator has
// its own mutex, taken after the queue's.
//
// Time: every deadline and timestamp comes from the injected Clock (queueing
// hints are timed with util::CycleClock, a measuring tool only). Run()
// starts one background thread that flushes completed backoffs every
// second (aligned to whole seconds with SchedulerPopFromBackoffQ) and
// unschedulable leftovers every 30 s; tests call the Flush* methods
// directly instead.
//
// Lifetime: the QueueSort and PreEnqueue plugins and everything the hint
// maps refer to must outlive the queue. The destructor closes the queue and
// joins the flusher.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cluster_event.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/nominating_info.h"
#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/framework/queueing_hint.h"
#include "pkg/scheduler/queue/active_queue.h"
#include "pkg/scheduler/queue/backoff_queue.h"
#include "pkg/scheduler/queue/metrics.h"
#include "pkg/scheduler/queue/nominator.h"
#include "pkg/scheduler/queue/queueing_hint_map.h"
#include "pkg/scheduler/queue/unschedulable_pods.h"
#include "pkg/util/clock.h"
#include "pkg/util/cycle_clock.h"
#include "pkg/util/spin_then_block_mutex.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::queue {

inline constexpr util::Duration kDefaultPodInitialBackoff = std::chrono::seconds(1);
inline constexpr util::Duration kDefaultPodMaxBackoff = std::chrono::seconds(10);
inline constexpr util::Duration kDefaultPodMaxInUnschedulablePodsDuration = std::chrono::minutes(5);
inline constexpr util::Duration kUnschedulableLeftoverFlushPeriod = std::chrono::seconds(30);

// Filters which unschedulable pods an event may move (empty: all). Must not
// depend on in-tree plugin logic beyond what the event handlers need.
using PreEnqueueCheck = std::function<bool(const api::Pod&)>;
// Namespace name -> its labels (for affinity namespace selectors); nullopt
// when unknown. Called under the queue lock: a non-blocking cache read.
using NamespaceLabelsLister = std::function<std::optional<api::StringMap>(std::string_view namespace_)>;

struct PriorityQueueOptions {
  const util::Clock* clock = &util::RealClock::Get();
  util::Duration pod_initial_backoff = kDefaultPodInitialBackoff;
  util::Duration pod_max_backoff = kDefaultPodMaxBackoff;
  util::Duration pod_max_in_unschedulable_pods_duration = kDefaultPodMaxInUnschedulablePodsDuration;
  framework::FeatureGates features;
  // Profile name -> its PreEnqueue plugins, run in this order.
  std::map<std::string, std::vector<framework::PreEnqueuePlugin*>, std::less<>> pre_enqueue_plugins;
  // Profile name -> its event/hint registrations.
  QueueingHintMapPerProfile queueing_hint_map;
  // nullptr: metrics are dropped.
  QueueMetricsRecorder* metrics = nullptr;
  // Used by the nominator to skip pods that are gone or bound; optional.
  PodLister pod_lister;
  // Used by AssignedPodAdded/Updated (hints off) for affinity namespace
  // selectors; optional (unknown namespaces have no labels).
  NamespaceLabelsLister namespace_labels;
  // false: events walk every unschedulable pod, as kube-scheduler does.
  // Outcomes are identical; only the cost differs.
  bool index_unschedulable_pods = true;
  // The share (0-100) of PreEnqueue runs whose plugins' durations are
  // recorded (kube-scheduler's pluginMetricsSamplePercent); `metrics_seed`
  // seeds the draw.
  int plugin_metrics_sample_percent = 10;
  uint64_t metrics_seed = 0;
};

// Result of PendingPods().
struct PendingPodsSummary {
  std::vector<std::shared_ptr<const api::Pod>> pods;  // activeQ, then backoffQ, then unschedulable
  // "activeQ:%d; backoffQ:%d; unschedulablePods:%d"
  std::string summary;
};

class PriorityQueue {
 public:
  using PodPtr = std::shared_ptr<const api::Pod>;

  PriorityQueue(const framework::QueueSortPlugin& sort, PriorityQueueOptions options);
  ~PriorityQueue();
  PriorityQueue(const PriorityQueue&) = delete;
  PriorityQueue& operator=(const PriorityQueue&) = delete;

  // A new unassigned pod of one of our profiles (informer add): to activeQ,
  // or to unschedulablePods if a PreEnqueue plugin gates it.
  void Add(PodPtr pod);
  // An informer update of an unassigned pod. In flight (hints on): records
  // the update's events for the pod's return. In activeQ/backoffQ: replaced
  // in place. In unschedulablePods: replaced, then hints (or, hints off, "did
  // anything but status change") decide whether it moves. Unknown: added.
  // `old_pod` may be null.
  void Update(PodPtr old_pod, PodPtr new_pod);
  // Removes the pod from wherever it waits and drops its nomination.
  // In-flight copies are not touched.
  void Delete(const api::Pod& pod);

  // Blocks until a pod is available (activeQ head; with
  // SchedulerPopFromBackoffQ, else the rejection backoff heap's head) or the
  // queue is closed (returns nullptr). Increments attempts and the
  // scheduling cycle. The caller must end the pod's flight exactly once:
  // AddUnschedulableIfNotPresent or Done.
  framework::QueuedPodInfoPtr Pop();
  // Whether Pop would return a pod without blocking (a pod in activeQ, or,
  // with SchedulerPopFromBackoffQ, in the rejection backoff heap). For a
  // caller that is the only one adding and popping (ksched simulate).
  bool PodReadyToPop() const;
  // Ends the flight of a popped pod (binding started, or the pod is not
  // requeued). No-op with hints off or for unknown UIDs.
  void Done(const std::string& uid);

  // Returns a popped pod after a failed attempt: to activeQ, backoffQ or
  // unschedulablePods depending on its rejectors and the events seen while
  // it was in flight (hints on) or on the move request cycle (hints off).
  // `pod_scheduling_cycle` is SchedulingCycle() read by the caller when the
  // attempt failed. Calls Done for the pod in every case. Error if the pod
  // is already queued.
  util::Status AddUnschedulableIfNotPresent(framework::QueuedPodInfoPtr info, int64_t pod_scheduling_cycle);

  // Moves the given pods from unschedulablePods/backoffQ to activeQ
  // (PodsToActivate). For an in-flight pod, records a ForceActivate event so
  // it is retried at once when it comes back. Unknown pods are ignored.
  void Activate(const std::vector<PodPtr>& pods);

  // A cluster event: moves the unschedulable pods (passing `pre_check`)
  // whose rejectors' hints say the event may help, and records the event
  // for in-flight pods.
  void MoveAllToActiveOrBackoffQueue(const framework::ClusterEvent& event, const framework::EventObject& old_obj,
                                     const framework::EventObject& new_obj, const PreEnqueueCheck& pre_check = {});
  // Hints off only: an assigned pod was added/updated; moves the pods it may
  // help (rejected by PodTopologySpread in its namespace, or with a required
  // pod-affinity term it matches). An UpdatePodScaleDown update moves all
  // pods interested in it.
  void AssignedPodAdded(const PodPtr& pod);
  void AssignedPodUpdated(const PodPtr& old_pod, const PodPtr& new_pod, const framework::ClusterEvent& event);

  int64_t SchedulingCycle() const;

  // Nominator (its own lock; see nominator.h).
  void AddNominatedPod(const framework::PodInfo& pi, const framework::NominatingInfo* ni);
  void UpdateNominatedPod(const api::Pod& old_pod, const framework::PodInfo& new_info);
  void DeleteNominatedPodIfExists(const api::Pod& pod);
  // The PodInfo of each pod nominated to `node` (refreshed on every update
  // of the pod). Takes no lock when nothing is nominated.
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view node) const;
  // Whether any pod is nominated (one atomic load).
  bool HasNominatedPods() const { return nominator_.size() != 0; }

  // Starts the background flusher (idempotent). Its schedule is anchored at
  // the clock's time of this call: the leftover flush is due at once, the
  // first backoff flush one period (with windows: one aligned second) later,
  // however late the thread itself starts.
  void Run();
  // Stops the flusher, ends every flight and wakes blocked Pop callers.
  // Pods still in activeQ may still be popped. Idempotent.
  void Close();

  // Moves pods whose backoff completed to activeQ (the 1 s flush).
  void FlushBackoffQCompleted();
  // Moves pods that stayed unschedulable longer than
  // pod_max_in_unschedulable_pods_duration (the 30 s flush). Gated pods
  // stay.
  void FlushUnschedulablePodsLeftover();

  // Debugging and tests.
  PendingPodsSummary PendingPods() const;
  std::vector<PodPtr> PodsInActiveQ() const;
  std::vector<PodPtr> PodsInBackoffQ() const;
  std::vector<PodPtr> UnschedulablePods() const;
  std::vector<PodPtr> InFlightPods() const;
  size_t NumUnschedulablePods() const;
  // A copy of the queued record of the pod, if queued.
  std::optional<framework::QueuedPodInfo> GetPod(std::string_view name, std::string_view namespace_) const;
  // Where the pod is: "activeQ", "backoffQ", "unschedulable", "gated"
  // (unschedulablePods, held by a PreEnqueue plugin) with a copy of its
  // info, or "inFlight" (popped, cycle not ended; no info). nullopt: none.
  struct Location {
    std::string queue;
    std::optional<framework::QueuedPodInfo> info;
  };
  std::optional<Location> LocatePod(std::string_view name, std::string_view namespace_) const;
  // The event/hint registrations of profile `scheduler_name`; nullptr if
  // unknown. Immutable: no lock.
  const QueueingHintMap* HintMapFor(std::string_view scheduler_name) const;
  // Entries of the in-flight event list (pod markers and events).
  size_t InFlightListSize() const;
  const framework::FeatureGates& features() const { return features_; }

 private:
  enum class QueueingStrategy { kQueueSkip, kQueueAfterBackoff, kQueueImmediately };

  framework::QueuedPodInfoPtr NewQueuedPodInfo(PodPtr pod) const;
  void RunPreEnqueuePlugins(framework::QueuedPodInfo& info);
  // `timed`: this run's plugin durations are sampled.
  bool RunPreEnqueuePlugin(framework::PreEnqueuePlugin& plugin, framework::QueuedPodInfo& info, bool timed);
  void RunPreEnqueueLoop(framework::QueuedPodInfo& info, bool timed);
  // `owned_key`, when given, holds `key` and its StringHash and may be moved
  // from (saves a copy and a hash on the hot paths).
  // `detached`: the caller already removed the pod from unschedulablePods
  // and backoffQ.
  bool MoveToActiveQ(const framework::QueuedPodInfoPtr& info, std::string_view key, std::string_view event,
                     bool from_backoff_q, HashedKey* owned_key = nullptr, bool detached = false);
  bool MoveToBackoffQ(const framework::QueuedPodInfoPtr& info, std::string_view key, std::string_view event);
  // Whether a pod can sit in backoffQ and unschedulablePods at once, as in
  // kube-scheduler: with queueing hints and PopFromBackoffQ off, Update goes
  // on after moving the pod to backoffQ, and a later QueueSkip files it in
  // unschedulablePods too. Moves out of either then clear both (a detached
  // move pays the two lookups only in that mode).
  bool DualFilingPossible() const {
    return features_.scheduler_queueing_hints && !features_.scheduler_pop_from_backoff_q;
  }
  QueueName RequeuePodWithQueueingStrategy(const framework::QueuedPodInfoPtr& info, std::string_view key,
                                           QueueingStrategy strategy, std::string_view event,
                                           HashedKey* owned_key = nullptr, bool detached = false);
  // `hints` are the event's hint functions for the pod's profile, which the
  // caller knows to have a hint map; null to look both up. The hints' runs
  // go to hint_runs_, for the caller to RecordHintRuns.
  QueueingStrategy IsPodWorthRequeuing(const framework::QueuedPodInfo& info, const framework::ClusterEvent& event,
                                       std::string_view label, const MatchedHints* hints,
                                       const framework::EventObject& old_obj, const framework::EventObject& new_obj);
  // Hands hint_runs_, the runs of the hints of event `label`, to the
  // metrics recorder, and clears it.
  void RecordHintRuns(std::string_view label);
  QueueingStrategy DetermineSchedulingHintForInFlightPod(const framework::QueuedPodInfo& info);
  // The event's hint functions per profile; empty when no plugin cares.
  EventHints ComputeEventHints(const framework::ClusterEvent& event) const;
  bool IsEventOfInterest(const framework::ClusterEvent& event) const;
  void MoveAllLocked(const framework::ClusterEvent& event, const framework::EventObject& old_obj,
                     const framework::EventObject& new_obj, const PreEnqueueCheck& pre_check);
  void MovePodsLocked(std::vector<queue::UnschedulablePods::Candidate>& pods, const framework::ClusterEvent& event,
                      const EventHints* hints, const framework::EventObject& old_obj,
                      const framework::EventObject& new_obj);
  std::vector<queue::UnschedulablePods::Candidate> PodsWithCrossTopologyTerm(const api::Pod& assigned);
  bool ActivateLocked(const PodPtr& pod);
  util::Status AddUnschedulableLocked(const framework::QueuedPodInfoPtr& info, int64_t pod_scheduling_cycle);
  void FlushBackoffQCompletedLocked();
  void FlushUnschedulablePodsLeftoverLocked();
  // Runs the flushes on the schedule that began at `start` (Run's time).
  void FlusherLoop(util::TimePoint start);
  void Broadcast() { cond_.notify_all(); }

  const util::Clock& clock_;
  const framework::QueueSortPlugin& sort_;
  const framework::FeatureGates features_;
  const util::Duration pod_max_in_unschedulable_pods_duration_;
  QueueMetricsRecorder& metrics_;
  const QueueingHintMapPerProfile hint_maps_;
  const std::map<std::string, std::vector<framework::PreEnqueuePlugin*>, std::less<>> pre_enqueue_plugins_;
  const std::unordered_map<std::string, std::shared_ptr<const std::vector<framework::ClusterEvent>>>
      plugin_to_events_;
  const NamespaceLabelsLister namespace_labels_;
  // Labels used on hot paths, computed once.
  const std::string label_unscheduled_pod_add_;
  const std::string label_unscheduled_pod_update_;
  const int plugin_metrics_sample_percent_;
  const bool record_metrics_;  // a recorder was given
  // Seconds per util::CycleClock tick when hint durations are recorded, 0
  // when nothing records them: a hint is often cheaper than two reads of
  // the injected clock, and one event may run it for every waiting pod.
  const double hint_seconds_per_tick_;

  mutable util::SpinThenBlockMutex mu_;
  std::minstd_rand metrics_rng_;  // guarded by mu_: draws PreEnqueue's samples
  // guarded by mu_: the hint runs of the event being handled (kept for its
  // capacity: an event may run a hint for every waiting pod).
  std::vector<HintRun> hint_runs_;
  std::condition_variable cond_;     // Pop waiters
  std::condition_variable flush_cv_;  // wakes the flusher on Close
  ActiveQueue active_q_;
  BackoffQueue backoff_q_;
  queue::UnschedulablePods unschedulable_pods_;
  Nominator nominator_;
  // Hints off: the scheduling cycle at the last move request. A pod whose
  // attempt started no later than this goes to backoffQ on failure instead
  // of unschedulablePods, since the event might have helped it.
  int64_t move_request_cycle_ = -1;
  bool closed_ = false;
  bool running_ = false;
  std::thread flusher_;
};

}  // namespace ksched::scheduler::queue
