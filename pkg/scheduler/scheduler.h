// Scheduler: the scheduling loop and the binding cycles (kube-scheduler's
// Scheduler, schedule_one.go), composed from a defaulted
// KubeSchedulerConfiguration and a plugin Registry.
//
// It owns, per instance:
//   - one runtime::Framework per profile (keyed by schedulerName), sharing
//     the snapshot, the Parallelizer (`parallelism`, capped at the machine's
//     cores), the waiting-pods map, the nominator/activator (the queue) and
//     the binding client;
//   - the PriorityQueue (QueueSort of profile 0, every profile's PreEnqueue
//     plugins and queueing-hint map, podInitialBackoff/podMaxBackoff, the
//     feature gates);
//   - the Cache and the cycle's Snapshot;
//   - a BindingPool running binding cycles concurrently.
// Plugins of kube's default set that the registry lacks (entries the user
// did not write) are dropped with a warning; plugins the user named must
// exist.
// It borrows (SchedulerOptions) the clock, the API writer (Events and pod
// status patches), the informer listers, the binding client and the metrics.
//
// The scheduling cycle (ScheduleOne) follows kube-scheduler 1.34: Pop;
// profile by schedulerName; skip pods being deleted or already assumed;
// PreFilter; the nominated node first; Filter in parallel from a rotating
// start index until numFeasibleNodesToFind nodes fit; PostFilter and a
// FitError when none fits; PreScore/Score/NormalizeScore; a best node (a
// random one among ties, or by SchedulerOptions::tie_break); assume; Reserve; Permit. The binding cycle (on the pool):
// WaitOnPermit, queue Done, PreBind, Bind, FinishBinding, the Scheduled
// Event, metrics, PostBind. Failures go through FailureHandler: the pod
// returns to the queue with the cycle it was popped in and its rejector
// plugins, a FailedScheduling Event is emitted and the PodScheduled=False
// condition patched (both asynchronously through the ApiWriter). A binding
// that fails (409 Conflict included: another binder bound the pod) is a
// scheduler error like any other, as in kube-scheduler: the pod goes to
// backoff unless the informer already shows it bound, and leaves the queue
// when the informer reports it bound. A binding cycle that throws before
// its outcome is decided is handled as a binding error (logged).
//
// Threads: Run() starts the queue's flusher, the scheduling loop thread and
// a 1 s metrics updater (cache_size). Informer handlers (eventhandlers.h)
// call into the queue and cache from the informers' delivery threads.
// Stop() stops popping, rejects pods waiting at Permit, waits (bounded by
// SchedulerOptions::binding_drain_timeout) for binding cycles in flight,
// then (on_binding_drain_timeout having made the late ones end) joins the
// binding threads. ScheduleOne() may also be driven directly (tests).
//
// Thread-safety: Run/Stop from one thread; ScheduleOne from one thread at a
// time (the scheduling loop); everything else is thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
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
#include <vector>

#include "pkg/api/types.h"
#include "pkg/config/types.h"
#include "pkg/metrics/scheduler_metrics.h"
#include "pkg/scheduler/apiwriter/writer.h"
#include "pkg/scheduler/binding_pool.h"
#include "pkg/scheduler/cache/cache.h"
#include "pkg/scheduler/cache/snapshot.h"
#include "pkg/scheduler/fit_error.h"
#include "pkg/scheduler/framework/binding_waits.h"
#include "pkg/scheduler/framework/cycle_observer.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/pod_signature.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/nominating_info.h"
#include "pkg/scheduler/framework/pods_in_pre_bind.h"
#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/framework/registry.h"
#include "pkg/scheduler/framework/runtime/framework.h"
#include "pkg/scheduler/framework/waiting_pods.h"
#include "pkg/scheduler/metrics_recorders.h"
#include "pkg/scheduler/node_selection.h"
#include "pkg/scheduler/opportunistic_batch.h"
#include "pkg/scheduler/pod_explain_state.h"
#include "pkg/scheduler/queue/priority_queue.h"
#include "pkg/util/clock.h"
#include "pkg/util/parallelizer.h"
#include "pkg/util/status.h"

namespace ksched::scheduler {

struct SchedulerOptions {
  const util::Clock* clock = &util::RealClock::Get();
  framework::FeatureGates features;
  // The binding API call (DefaultBinder uses it through Handle::Client()).
  // nullptr: plugins see no client.
  framework::BindingClient* binding_client = nullptr;
  // Events, pod status patches and victim evictions; nullptr: none are
  // written.
  apiwriter::Writer* api_writer = nullptr;
  // Informer listers for plugins, the failure handler's pod lookup and the
  // nominator; nullptr: empty in-memory listers.
  const framework::SharedListers* listers = nullptr;
  // nullptr: no prometheus metrics.
  metrics::SchedulerMetrics* metrics = nullptr;
  // Also receives every queue metric (tests, debugging); may be null.
  queue::QueueMetricsRecorder* extra_queue_metrics = nullptr;
  // Upper bound of concurrently running binding cycles' threads.
  size_t max_binding_threads = 64;
  // The scheduling loop pops the next pod only while fewer bindings than
  // this wait for a binding thread (those parked at Permit aside): it then
  // schedules at the pace it binds instead of holding thousands of assumed
  // pods. 0: no limit.
  size_t max_binding_backlog = 64;
  // How long Stop() waits for binding cycles in flight.
  util::Duration binding_drain_timeout = std::chrono::seconds(30);
  // Runs (on Stop's thread) when cycles outlast binding_drain_timeout,
  // before Stop joins their threads: it must make them end, e.g. cancel
  // their writes (the daemon closes its writes gate). May be empty: Stop
  // then waits for them.
  std::function<void()> on_binding_drain_timeout;
  // The longest a pod stays in unschedulablePods before the periodic flush
  // moves it (--pod-max-in-unschedulable-pods-duration).
  util::Duration pod_max_in_unschedulable_pods_duration = queue::kDefaultPodMaxInUnschedulablePodsDuration;
  // Seeds host tie-breaking and plugin-metric sampling; 0: random.
  uint64_t seed = 0;
  // How SelectHost breaks ties among the best-scored nodes.
  HostTieBreak tie_break = HostTieBreak::kRandom;
  // nullptr (the daemon): nothing observed. Else told each cycle's Filter
  // verdicts and scores (framework/cycle_observer.h); passed to every
  // profile's framework.
  framework::CycleObserver* observer = nullptr;
};

// The outcome of a successful SchedulePod.
struct ScheduleResult {
  std::string suggested_host;
  // Nodes Filter evaluated (feasible + rejected) and feasible nodes found.
  int evaluated_nodes = 0;
  int feasible_nodes = 0;
};

// A pending pod's state for /debug/pending.
struct PendingPodDebug {
  std::shared_ptr<const api::Pod> pod;
  std::string queue;  // active, backoff, unschedulable, gated, inFlight
  int attempts = 0;
  std::optional<util::TimePoint> backoff_expiration;
  std::vector<std::string> unschedulable_plugins;
  std::vector<std::string> pending_plugins;
  std::string gating_plugin;
  std::string last_failure_message;
};

class Scheduler {
 public:
  static util::StatusOr<std::unique_ptr<Scheduler>> New(const config::KubeSchedulerConfiguration& config,
                                                        const framework::Registry& registry,
                                                        SchedulerOptions options);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void Run();
  void Stop();

  // One iteration of the scheduling loop: blocks in Pop, then runs the
  // scheduling cycle and hands a success to the binding pool. Returns at
  // once when the queue is closed.
  void ScheduleOne();
  // Blocks until no binding cycle is queued or running (tests).
  void WaitForBindingCycles();
  // Blocks until every binding cycle has either ended or waits at Permit
  // for a decision nobody has made yet, and returns the pods so waiting.
  // Then nothing moves until this thread allows or rejects a waiting pod,
  // runs a cycle, or moves the clock past a Permit deadline: a driver that
  // steps a fake clock (ksched simulate) settles each step this way. Needs
  // a binding thread per waiting pod plus one (max_binding_threads), or a
  // decided cycle queued behind the waiting ones never runs. Polls every
  // 50 us while Permit waits are in play, else blocks like
  // WaitForBindingCycles.
  std::vector<std::shared_ptr<framework::WaitingPod>> SettleBindingCycles();

  // ---- Parts (used by the event handlers, the daemon and tests)
  queue::PriorityQueue& Queue() { return *queue_; }
  cache::Cache& Cache() { return cache_; }
  const util::Clock& Clock() const { return clock_; }
  const framework::FeatureGates& Features() const { return options_.features; }
  const framework::SharedListers& Listers() const { return *listers_; }
  metrics::SchedulerMetrics* Metrics() const { return options_.metrics; }
  apiwriter::Writer* ApiWriter() const { return options_.api_writer; }
  // The profile of `scheduler_name`, nullptr if none.
  framework::runtime::Framework* Profile(std::string_view scheduler_name) const;
  framework::runtime::Framework* FrameworkForPod(const api::Pod& pod) const {
    return Profile(pod.spec.scheduler_name);
  }
  // Whether one of the profiles schedules the pod.
  bool IsResponsibleFor(const api::Pod& pod) const { return FrameworkForPod(pod) != nullptr; }
  std::vector<std::string> ProfileNames() const;

  // Forgets bookkeeping kept for a pod that left the scheduler's hands
  // (deleted or bound by someone else).
  void ForgetPendingPod(const api::Pod& pod);

  // Lets the PreBind waits that `event` may have ended check again now
  // (framework::BindingWaitWaker). Thread-safe.
  void WakeBindingWaits(const framework::ClusterEvent& event) const {
    for (framework::BindingWaitWaker* w : binding_wait_wakers_) w->WakeBindingWaits(event);
  }

  // Every pending pod with its queue state (activeQ, backoffQ,
  // unschedulable/gated, then in flight).
  std::vector<PendingPodDebug> PendingPodsDebug() const;

  // Where the pod is (queue, Permit, bound) and which cluster events would
  // requeue it (/debug/explain). Any thread.
  PodExplainState ExplainPod(std::string_view namespace_, std::string_view name) const;

  // Exposed for tests: the start of the next Filter round-robin.
  size_t NextStartNodeIndex() const { return next_start_node_index_; }

 private:
  class Nominator;
  class Activator;
  class Preemption;

  // Why a scheduling or binding cycle failed.
  struct Failure {
    framework::Status status;
    std::optional<FitError> fit_error;
    // nullopt: Noop (keep status.nominatedNodeName).
    std::optional<framework::NominatingInfo> nominating_info;
  };

  explicit Scheduler(SchedulerOptions options);
  util::Status Init(const config::KubeSchedulerConfiguration& config, const framework::Registry& registry);

  void Loop();
  void MetricsLoop();
  bool SkipPodSchedule(framework::runtime::Framework& fwk, const api::Pod& pod);

  // Returns the assumed pod info on success (and fills `result`); nullptr
  // and `failure` otherwise. `failure_info` is the info to return to the
  // queue (the assumed copy once assumed).
  framework::QueuedPodInfoPtr SchedulingCycle(framework::CycleState& state, framework::runtime::Framework& fwk,
                                              const framework::QueuedPodInfoPtr& pinfo,
                                              framework::PodsToActivate& pods_to_activate, ScheduleResult* result,
                                              Failure* failure, framework::QueuedPodInfoPtr* failure_info);
  // kube's schedulePod. On failure returns false with `failure` set.
  bool SchedulePod(framework::runtime::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                   ScheduleResult* result, Failure* failure);
  // Opportunistic batching of one profile.
  struct ProfileBatching {
    framework::PodSigner signer;
    OpportunisticBatch batch;
  };
  // What batching knows of a cycle between PreFilter and the host's choice.
  struct BatchCycle {
    ProfileBatching* batching = nullptr;  // null: the profile does not batch
    std::optional<std::string> signature;
    std::string hint;
  };
  // kube's findNodesThatFitPod. Error: returns false with `error`.
  bool FindNodesThatFitPod(framework::runtime::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                           BatchCycle& batch, framework::NodeInfoList* feasible, Diagnosis* diagnosis,
                           framework::Status* error);
  bool FindNodesThatPassFilters(framework::runtime::Framework& fwk, framework::CycleState& state,
                                const api::Pod& pod, Diagnosis* diagnosis, const framework::NodeInfoList& nodes,
                                framework::NodeInfoList* feasible, framework::Status* error);
  bool PrioritizeNodes(framework::runtime::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                       const framework::NodeInfoList& nodes, bool keep_raw,
                       framework::runtime::NodeScores* scores, framework::Status* error);
  // The host among `feasible` by their scores; with batching, the rest of
  // the ranking goes to the profile's batch.
  std::string SelectHostAndStore(const BatchCycle& batch, const framework::NodeInfoList& feasible,
                                 const framework::runtime::NodeScores& scores);

  // Sets `settled` once the pod's outcome is decided (bound, or its
  // failure handled): an exception after that has nothing to undo.
  void BindingCycle(std::shared_ptr<framework::CycleState> state, framework::runtime::Framework& fwk,
                    ScheduleResult result, framework::QueuedPodInfoPtr assumed, util::TimePoint start,
                    std::shared_ptr<framework::PodsToActivate> pods_to_activate, bool& settled);
  void HandleBindingCycleError(framework::CycleState& state, framework::runtime::Framework& fwk,
                               const framework::QueuedPodInfoPtr& assumed, util::TimePoint start,
                               const ScheduleResult& result, Failure failure);
  void FailureHandler(framework::runtime::Framework& fwk, const framework::QueuedPodInfoPtr& pinfo,
                      const Failure& failure, util::TimePoint start);

  // Tells options_.observer (not null) how the cycle of `pod` ended.
  void ObserveOutcome(framework::runtime::Framework& fwk, const api::Pod& pod, bool scheduled,
                      const ScheduleResult& result, const Failure& failure);
  void RecordEvent(const apiwriter::EventRecord& record);
  void ObserveAttempt(metrics::Result result, std::string_view profile, util::TimePoint start);
  double SecondsSince(util::TimePoint t) const;

  const SchedulerOptions options_;
  const util::Clock& clock_;
  framework::InMemorySharedListers empty_listers_;
  const framework::SharedListers* listers_ = nullptr;
  int32_t percentage_of_nodes_to_score_ = 0;

  std::unique_ptr<FrameworkMetrics> framework_metrics_;
  std::unique_ptr<QueueMetrics> queue_metrics_;
  std::unique_ptr<Nominator> nominator_;
  std::unique_ptr<Activator> activator_;
  std::unique_ptr<Preemption> preemption_;
  std::unique_ptr<util::Parallelizer> parallelizer_;
  std::shared_ptr<framework::WaitingPodsMap> waiting_pods_;
  std::shared_ptr<framework::PodsInPreBind> pods_in_pre_bind_;
  // Every profile's PreBind plugins whose waits informer events may end, and
  // those whose waits Stop cancels; set once at construction.
  std::vector<framework::BindingWaitWaker*> binding_wait_wakers_;
  std::vector<framework::BindingWaitCanceller*> binding_wait_cancellers_;
  cache::Cache cache_;
  cache::Snapshot snapshot_;
  // The scheduling cycle's feasible nodes and scores; kept so that each
  // cycle reuses their buffers (an allocation of a KB or more per cycle made
  // malloc consolidate the fast bins that binding threads filled).
  framework::NodeInfoList feasible_;
  framework::runtime::NodeScores node_scores_;
  // Declared before the queue, which refers to their plugins: destroyed
  // after it.
  std::map<std::string, std::unique_ptr<framework::runtime::Framework>, std::less<>> profiles_;
  // Per profile when OpportunisticBatching is on; empty otherwise.
  std::unordered_map<const framework::runtime::Framework*, std::unique_ptr<ProfileBatching>> batching_;
  std::unique_ptr<queue::PriorityQueue> queue_;
  std::unique_ptr<BindingPool> binding_pool_;

  // Scheduling-loop state (only the loop thread touches these).
  size_t next_start_node_index_ = 0;
  std::mt19937_64 rng_;

  // uid -> message of the pod's last failed attempt (for /debug/pending).
  mutable std::mutex failures_mu_;
  std::unordered_map<std::string, std::string> last_failures_;

  std::atomic<bool> stopping_{false};
  std::mutex run_mu_;
  std::condition_variable run_cv_;
  bool running_ = false;
  std::thread loop_thread_;
  std::thread metrics_thread_;
};

}  // namespace ksched::scheduler
