// PodGroupStatusController: keeps the status of scheduler-plugins' PodGroups
// (phase, scheduled/running/succeeded/failed, scheduleStartTime,
// occupiedBy), which scheduler-plugins leaves to a separate controller
// manager that a ksched deployment does not run. The computation is
// NextPodGroupStatus (podgroup_status.h); this is the machinery around it:
//
//   PodGroup add/update, pod add/update/delete of a pod naming a group
//     -> work queue key "namespace/name" (de-duplicated)
//   worker: read the group and its pods from the listers, compute the next
//     status, send the difference as a JSON merge patch of the status
//     subresource; a failed patch is retried with the client-go controller
//     rate limiter's backoff (NotFound: the group is gone, dropped). A
//     changed status comes back as a PodGroup update and is reconciled
//     again, so Pending -> Scheduling -> ... converges.
//
// Only the leader writes (the client goes through the writes gate).
//
// Thread-safety: Enqueue* may be called from any thread (informer
// handlers); one worker thread between Start and Stop. Lifetime: the
// listers and client must outlive it.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "pkg/api/podgroup.h"
#include "pkg/client/rest_client.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"
#include "pkg/util/writes_gate.h"
#include "pkg/workqueue/rate_limiting_queue.h"

namespace ksched::scheduler {

class PodGroupStatusClient {
 public:
  virtual ~PodGroupStatusClient() = default;
  // PATCH .../namespaces/{ns}/podgroups/{name}/status, application/merge-patch+json.
  virtual util::Status PatchPodGroupStatus(const std::string& ns, const std::string& name,
                                           const nlohmann::json& merge_patch) = 0;
};

// The client over the REST API, through the writes gate (kCancelled, and
// so retried later, while not leading).
class RestPodGroupStatusClient final : public PodGroupStatusClient {
 public:
  RestPodGroupStatusClient(client::RestClient& client, const util::WritesGate& gate) : client_(client), gate_(gate) {}
  util::Status PatchPodGroupStatus(const std::string& ns, const std::string& name,
                                   const nlohmann::json& merge_patch) override;

 private:
  client::RestClient& client_;
  const util::WritesGate& gate_;
};

class PodGroupStatusController {
 public:
  PodGroupStatusController(const framework::ObjectLister<api::PodGroup>& groups,
                           const framework::ObjectLister<api::Pod>& pods, PodGroupStatusClient& client,
                           const util::Clock& clock);
  ~PodGroupStatusController();

  PodGroupStatusController(const PodGroupStatusController&) = delete;
  PodGroupStatusController& operator=(const PodGroupStatusController&) = delete;

  void EnqueueGroup(const api::PodGroup& group);
  // Enqueues the group `pod` names, if any.
  void EnqueuePod(const api::Pod& pod);

  // Starts the worker thread; Stop shuts the queue down and joins it: keys
  // still queued get one attempt and no retry (the daemon cancels its client
  // at SIGTERM, so that attempt fails at once), keys waiting out a backoff
  // get none. What is not written is dropped and logged in one line with
  // its count; the next leader computes the status again. Idempotent.
  void Start();
  void Stop();

  // One reconcile of "namespace/name": OK when nothing was to be done or the
  // patch succeeded (or the group is gone). For tests and the worker.
  util::Status Sync(const std::string& key);
  // Keys waiting (not counting those waiting out a retry backoff).
  size_t Pending() const { return queue_.Len(); }
  // Keys waiting out a retry backoff.
  size_t WaitingRetries() const { return queue_.WaitingLen(); }
  // The status writes Stop() dropped.
  size_t DroppedAtStop() const { return dropped_.load(); }

 private:
  void WorkerLoop();

  const framework::ObjectLister<api::PodGroup>& groups_;
  const framework::ObjectLister<api::Pod>& pods_;
  PodGroupStatusClient& client_;
  const util::Clock& clock_;
  workqueue::RateLimitingQueue<std::string> queue_;
  std::thread worker_;
  bool started_ = false;  // only Start/Stop touch it, from the owner's thread
  std::atomic<bool> stopping_{false};
  std::atomic<size_t> dropped_{0};
};

}  // namespace ksched::scheduler
