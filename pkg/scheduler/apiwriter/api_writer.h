// ApiWriter: the scheduler's asynchronous writes to the API server — the
// PodScheduled condition and nominatedNodeName of pods, and Events — with
// retry, backoff, coalescing and Event aggregation, never blocking the
// scheduling loop.
//
// Each write is a key in one named workqueue::RateLimitingQueue
// ("pod/<ns>/<name>", "event/<id>", "victim/<ns>/<name>") served by
// `workers` threads:
//  * Pod status: the latest desired change per pod is kept beside the queue;
//    writes for a pod queued but not yet sent are merged (later fields win),
//    and the queue's de-duplication means one request carries them all. The
//    request is a strategic merge patch computed against what this writer
//    last wrote for the pod (else the status the caller saw), and is skipped
//    when nothing would change (kube-scheduler's updatePod).
//    NotFound: the pod is gone, the write is dropped. Conflict, Unavailable,
//    DeadlineExceeded, Internal: retried with the rate limiter's backoff
//    (default: 5 ms doubling to 1000 s per pod, 10 qps burst 100 overall)
//    until it succeeds, the pod is forgotten or the writer stops. Other
//    errors drop the write.
//  * Events: aggregated by EventAggregator (a repeated event becomes a
//    series on one Event object); a series Event the server lost is created
//    again. Transient errors are retried with backoff, up to
//    `max_event_attempts` attempts per write (client-go: 12); other errors
//    drop the Event.
//  * Preemption victims: DisruptionTarget condition, then DELETE (see
//    DeleteVictim).
//  * A maintenance thread finishes quiet series (every series_finish_after)
//    and refreshes active ones (every series_refresh_period) on the clock.
//
// Thread-safety: every public method is thread-safe and returns without
// waiting for the API (it takes one mutex briefly and enqueues a key).
// Lock order: the writer's mutex is never held while calling the client or
// the queue.
// Lifetime: `client` and `clock` must outlive the writer. Threads start in
// the constructor. Stop() — also run by the destructor — gives every
// pending write one more attempt (including writes waiting out a backoff,
// a status patch whose call was under way and fails, and unwritten series
// counts) and no retry, waits for the workers to finish,
// and returns; writes requested after Stop are ignored. What that last
// attempt does not write is dropped, counted (DroppedAtStop) and logged in
// one line. Stop waits for client calls in flight, so the client must time
// its calls out or be cancelled: the daemon cancels its writer's calls at
// SIGTERM (cmd/ksched/server.h), which makes the last attempt of each write
// fail at once, without the network: best effort, as kube-scheduler's event
// broadcaster drops what it has not sent when it shuts down.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/apiwriter/api_writer_client.h"
#include "pkg/scheduler/apiwriter/event_aggregator.h"
#include "pkg/scheduler/apiwriter/pod_status_patch.h"
#include "pkg/scheduler/apiwriter/scheduler_events.h"
#include "pkg/scheduler/apiwriter/writer.h"
#include "pkg/util/clock.h"
#include "pkg/workqueue/metrics.h"
#include "pkg/workqueue/rate_limiter.h"
#include "pkg/workqueue/rate_limiting_queue.h"

namespace ksched::scheduler::apiwriter {

struct ApiWriterOptions {
  // The queue's name: the `name` label of its workqueue_* metrics.
  std::string queue_name = "scheduler_api_writer";
  int workers = 2;
  // Not owned; nullptr: no metrics.
  workqueue::MetricsProvider* metrics_provider = nullptr;
  // Spacing of retries; nullptr: workqueue::DefaultControllerRateLimiter.
  std::shared_ptr<workqueue::RateLimiter<std::string>> rate_limiter;
  // Events' reportingInstance is "<reportingController>-<hostname>"; empty:
  // the machine's host name.
  std::string hostname;
  util::Duration series_finish_after = EventAggregator::kDefaultFinishAfter;
  util::Duration series_refresh_period = std::chrono::minutes(30);  // client-go refreshTime
  int max_event_attempts = 12;                                      // client-go maxTriesPerEvent
};

class ApiWriter final : public Writer {
 public:
  ApiWriter(ApiWriterClient& client, const util::Clock& clock, ApiWriterOptions options = {});
  ~ApiWriter() override;

  ApiWriter(const ApiWriter&) = delete;
  ApiWriter& operator=(const ApiWriter&) = delete;

  // Asks for `update` on `pod` (namespace, name and uid identify it; its
  // status is the baseline when this writer has not written the pod yet).
  void UpdatePodStatus(const api::Pod& pod, const PodStatusUpdate& update) override;

  // Forgets what was written or pending for a pod (call when it is deleted
  // or bound, so memory stays bounded by the pods in flight).
  void ForgetPod(const std::string& ns, const std::string& name) override;

  // ForgetPod, then waits until no status patch of the pod is in flight
  // (a client call, which times out or is cancelled at Stop).
  void SettlePod(const std::string& ns, const std::string& name) override;

  // Evicts a preemption victim: patches its DisruptionTarget=True condition
  // (reason PreemptionByScheduler, `message`; skipped when the pod already
  // has it), then DELETEs it with its uid as precondition. NotFound (or a
  // uid mismatch) at either step means the victim is gone: done. Transient
  // errors are retried with the rate limiter's backoff; another error on
  // the condition patch gives up without deleting (as kube does).
  // With `done` (asynchronous preemption): each step is tried once — a
  // failure ends the eviction, the preemptor's next attempt is the retry —
  // and `done` is called exactly once, without the writer's mutex, with OK
  // (deleted or gone) or the error; kCancelled when the writer stops first.
  // Requests for a victim already queued join it (retried if any of them
  // came without `done`).
  void DeleteVictim(const api::Pod& victim, const std::string& message, VictimDone done = {}) override;

  // Emits an Event (see scheduler_events.h for the scheduler's three).
  void RecordEvent(const EventRecord& record) override;

  // Drains and stops (see the header comment). Idempotent.
  void Stop();

  // The writes Stop() dropped: their last attempt failed (or was cancelled).
  struct Dropped {
    size_t events = 0;
    size_t pod_status_patches = 0;
    size_t victim_deletions = 0;
    size_t Total() const { return events + pod_status_patches + victim_deletions; }
  };
  Dropped DroppedAtStop() const;

  // Writes currently waiting out a retry backoff (for tests and debugging).
  size_t NumWaitingRetries() const { return queue_.WaitingLen(); }
  // SettlePod calls waiting for a patch in flight (for tests).
  size_t NumSettling() const {
    std::lock_guard<std::mutex> l(mu_);
    return settling_;
  }
  // Entries in the Event aggregation cache.
  size_t NumCachedEvents() const;

  // Whether Stop has begun.
  bool Stopping() const;

 private:
  struct PodEntry {
    std::string ns;
    std::string name;
    std::string uid;
    // Distinguishes this entry from a later one for the same key (after
    // ForgetPod, or a new uid), so a write finishing late is not credited
    // to it.
    uint64_t incarnation = 0;
    PodSchedulingStatus observed;                // as the caller last saw it
    std::optional<PodSchedulingStatus> written;  // as this writer last wrote it
    std::optional<PodStatusUpdate> pending;      // not sent yet
  };

  void WorkerLoop();
  void MaintenanceLoop(util::TimePoint next_finish, util::TimePoint next_refresh);
  void ProcessPod(const std::string& key);
  void ProcessEvent(const std::string& key);
  void ProcessVictim(const std::string& key);
  std::string NextEventNameLocked(const std::string& regarding_name, api::Time now);
  void CountDropped(size_t Dropped::*kind);

  ApiWriterClient& client_;
  const util::Clock& clock_;
  const ApiWriterOptions options_;
  const std::string hostname_;
  workqueue::RateLimitingQueue<std::string> queue_;

  mutable std::mutex mu_;
  std::condition_variable maintenance_cv_;  // wakes the maintenance thread at Stop
  bool stopping_ = false;
  Dropped dropped_;  // since Stop began
  std::unordered_map<std::string, PodEntry> pods_;  // by "ns/name"
  // Pods ("ns/name") whose status patch is a client call in flight, and
  // the signal SettlePod waits for when one ends.
  std::unordered_set<std::string> patching_;
  std::condition_variable patch_done_cv_;
  size_t settling_ = 0;
  struct VictimEntry {
    std::string ns;
    std::string name;
    std::string uid;
    std::string message;
    bool condition_written = false;
    bool retry = false;  // some request came without `done`
    std::vector<VictimDone> done;
  };
  std::unordered_map<std::string, VictimEntry> victims_;  // by "ns/name"
  EventAggregator events_;
  uint64_t last_event_name_ns_ = 0;
  uint64_t next_pod_incarnation_ = 1;

  std::mutex stop_mu_;  // serialises Stop
  std::thread maintenance_thread_;
  std::vector<std::thread> workers_;
};

}  // namespace ksched::scheduler::apiwriter
