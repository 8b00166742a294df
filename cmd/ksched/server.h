// Server: ksched as a process (kube's cmd/kube-scheduler/app): the REST
// client, the informers and their listers, the API writer, the Scheduler
// and its event handlers, the metrics registry and the HTTP(S) endpoints,
// wired together and started in phases:
//
//   New()           builds everything (fails on a bad profile or client
//                   configuration);
//   Connect()       GET /version: says which server answered (a failure is
//                   only a warning: informers keep retrying);
//   ServeEndpoints() opens /metrics /healthz /livez /readyz /configz
//                   /debug/pending, /debug/explain (readyz fails until the caches synced);
//   StartInformers() / WaitForCacheSync(timeout); once synced, the PodGroup
//                   status controller starts (when a profile runs Coscheduling);
//   RunScheduler()  starts the scheduling loop (leader election off);
//   StartLeaderElection()  (leader election on) campaigns for the Lease on
//                   a thread of its own; the scheduling loop runs only
//                   while this process leads (informers, caches and the
//                   queue run on standbys too, as in kube-scheduler). Every
//                   write (binding, volume update, status patch, Event,
//                   victim deletion) passes a WritesGate that LeaderWork
//                   (leader_work.h) closes before the Lease is released or
//                   given up. A leader that cannot renew closes it at once,
//                   stops scheduling, and options.on_leader_election_end
//                   tells the daemon, which exits non-zero;
//   Stop()          BeginShutdown(), stops popping, lets binding cycles
//                   finish (bounded), stops the API writer, closes the
//                   writes gate, releases the Lease if held, stops the
//                   informers, closes the endpoints. Idempotent. Every step
//                   that talks to the API server has a deadline, whatever
//                   the server does (docs/architecture.md, "Shutdown"):
//                   each kind of caller has its own view of the REST client
//                   (RestClient::WithStops) whose calls end when the
//                   shutdown says so:
//                     best effort (API writer: Events, pod status patches,
//                       victim deletions; PodGroup status; auth reviews;
//                       Connect, the client CA lookup): cancelled at
//                       BeginShutdown (and, for writes, when the gate
//                       closes); what they still held is dropped and
//                       logged with its count;
//                     bindings, volume and claim writes: no retry or
//                       throttling wait from BeginShutdown on, the attempt
//                       in flight may finish until the drain ends
//                       (binding_drain_timeout, or the lease's renew
//                       deadline), then cancelled with the writes gate;
//                     the Lease: no retries, each request within
//                       leaseDuration - renewDeadline.
//   BeginShutdown() only the cancellations above; from any thread (the
//                   signal thread calls it at once, so a start-up phase
//                   waiting on the network returns).
// Start(timeout) runs Connect..RunScheduler (or StartLeaderElection) in
// order (integration tests).
//
// Endpoints: /readyz passes once the informers synced, on the leader and on
// standbys alike (a standby must stay in the Service and count as available
// for rollouts); its "leader-election" check says which one this is
// ("[+]leader-election ok: leader" with ?verbose, or GET
// /readyz/leader-election). /healthz and /livez carry client-go's
// "leaderElection" watchdog: a leader that has not renewed for
// leaseDuration + 20 s reports unhealthy.
//
// Thread-safety: the phase methods from one thread; Stop may be called from
// another (e.g. a signal thread) once New returned, but not from
// on_leader_election_end. Accessors are safe after New.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "cmd/ksched/dra_metrics_sink.h"
#include "cmd/ksched/leader_work.h"
#include "pkg/auth/delegating_auth.h"
#include "pkg/auth/rest_reviewers.h"
#include "pkg/client/prometheus_metrics.h"
#include "pkg/client/rest_client.h"
#include "pkg/client/rest_config.h"
#include "pkg/config/types.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/informer/prometheus_reflector_metrics.h"
#include "pkg/informer/shared_informer.h"
#include "pkg/leaderelection/leader_elector.h"
#include "pkg/leaderelection/lease_client.h"
#include "pkg/metrics/leader_election_metrics.h"
#include "pkg/metrics/http_server.h"
#include "pkg/metrics/scheduler_metrics.h"
#include "pkg/scheduler/apiwriter/api_writer.h"
#include "pkg/scheduler/attempt_record.h"
#include "pkg/scheduler/client_adapters.h"
#include "pkg/scheduler/eventhandlers.h"
#include "pkg/scheduler/gated_clients.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/registry.h"
#include "pkg/scheduler/informer_listers.h"
#include "pkg/scheduler/podgroup_status_controller.h"
#include "pkg/scheduler/queue/metrics.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"
#include "pkg/util/writes_gate.h"
#include "pkg/workqueue/prometheus_metrics.h"

namespace ksched::app {

struct ServerOptions {
  // Defaulted and validated.
  config::KubeSchedulerConfiguration config;
  client::RestConfig rest;
  scheduler::framework::FeatureGates features;
  // secure_port / http_port 0 turn a listener off; with both 0 nothing
  // listens (the routes still answer Endpoints().Serve()).
  metrics::EndpointServerOptions endpoints;
  // Delegated authentication and authorization of the secure port: where
  // TokenReviews and SubjectAccessReviews go (nullopt: `rest`, the main
  // connection, as kube-scheduler falls back to its in-cluster or
  // --kubeconfig one), the always-allowed paths and the cache TTLs.
  std::optional<client::RestConfig> authentication_rest;
  std::optional<client::RestConfig> authorization_rest;
  auth::DelegatingAuthOptions auth;
  // Unless skipped, ServeEndpoints() reads the client CA from the
  // kube-system/extension-apiserver-authentication ConfigMap when no
  // --client-ca-file is given, and the front-proxy CA and header names when
  // no --requestheader-client-ca-file is (once, at start-up: kube-scheduler
  // also follows later changes of the ConfigMap); a failed lookup (other
  // than NotFound) fails start-up unless tolerated.
  bool authentication_skip_lookup = false;
  bool authentication_tolerate_lookup_failure = false;
  // Replaces the REST binding client (tests wrap it to interleave another
  // binder); may be null.
  scheduler::framework::BindingClient* binding_client = nullptr;
  // Also receives the queue's metrics (tests); may be null.
  scheduler::queue::QueueMetricsRecorder* extra_queue_metrics = nullptr;
  // How long Stop() lets binding cycles in flight finish.
  util::Duration binding_drain_timeout = std::chrono::seconds(30);
  // --explain-record-size: pods whose last attempt /debug/explain keeps;
  // 0: no record (the scheduler gets no CycleObserver).
  size_t explain_record_size = 0;
  // --pod-max-in-unschedulable-pods-duration.
  util::Duration pod_max_in_unschedulable_pods_duration = scheduler::queue::kDefaultPodMaxInUnschedulablePodsDuration;
  // Leader election (config.leader_election.leaderElect): the holder
  // identity; empty: hostname_<uuid>.
  std::string leader_identity;
  // Runs on the leader-election thread when the elector stops: kLost after
  // a failed renewal (scheduling has stopped by then), kStopped after
  // Stop(). May be empty.
  std::function<void(leaderelection::LeaderElector::Result)> on_leader_election_end;
};

class Server {
 public:
  static util::StatusOr<std::unique_ptr<Server>> New(ServerOptions options,
                                                     const scheduler::framework::Registry& registry);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Returns the server's version string ("v1.34.0") or the error.
  util::StatusOr<std::string> Connect();
  util::Status ServeEndpoints();
  void StartInformers();
  bool WaitForCacheSync(util::Duration timeout);
  void RunScheduler();
  // Leader election on: starts campaigning (non-blocking).
  void StartLeaderElection();
  bool LeaderElectionEnabled() const { return elector_ != nullptr; }
  // Whether the scheduling loop runs: leading, or leader election off and
  // RunScheduler called.
  bool Scheduling() const { return scheduling_.load(); }
  // nullptr when leader election is off.
  leaderelection::LeaderElector* Elector() { return elector_.get(); }
  // Connect (warning only), ServeEndpoints, StartInformers,
  // WaitForCacheSync(timeout), RunScheduler.
  util::Status Start(util::Duration sync_timeout);
  void Stop();
  // Thread-safe, idempotent, never blocks (see the header comment).
  void BeginShutdown() { shutdown_.request_stop(); }

  bool HandlersSynced() const;
  scheduler::Scheduler& Scheduler() { return *scheduler_; }
  informer::InformerFactory& Informers() { return *informers_; }
  client::RestClient& Client() { return *client_; }
  metrics::SchedulerMetrics& Metrics() { return *metrics_; }
  // "https://0.0.0.0:10259/", ... after ServeEndpoints.
  std::vector<std::string> ListeningUris() const;
  // The endpoints' router (tests call Serve() on it without HTTP).
  metrics::EndpointServer& Endpoints() { return *endpoints_; }

 private:
  explicit Server(ServerOptions options) : options_(std::move(options)) {}
  util::Status Init(const scheduler::framework::Registry& registry);
  // The PodGroup status controller and its informer handlers.
  void InitPodGroupStatus(util::Clock& clock);
  util::Status InitLeaderElection(util::Clock& clock);
  util::Status InitAuth(util::Clock& clock);
  // The client CA and front-proxy settings of the
  // extension-apiserver-authentication ConfigMap.
  util::Status LookupClientCa();

  const ServerOptions options_;
  // Requested by BeginShutdown; the REST views below cancel on it.
  std::stop_source shutdown_;
  std::unique_ptr<metrics::SchedulerMetrics> metrics_;
  std::unique_ptr<DraMetricsSink> dra_metrics_;  // after metrics_: goes first
  // Every client's rest_client_* measurements (outlives the clients).
  std::unique_ptr<client::PrometheusRequestMetrics> request_metrics_;
  std::unique_ptr<informer::PrometheusReflectorMetrics> reflector_metrics_;
  std::unique_ptr<workqueue::PrometheusMetricsProvider> workqueue_metrics_;
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<informer::InformerFactory> informers_;
  std::unique_ptr<scheduler::InformerListers> listers_;
  // Every write passes the gate (see StartLeaderElection above).
  util::WritesGate writes_gate_;
  // Views of client_ (see Stop above): bindings and their volume and claim
  // writes; best-effort writes (API writer, PodGroup status).
  std::unique_ptr<client::RestClient> binding_rest_;
  std::unique_ptr<client::RestClient> best_effort_rest_;
  std::unique_ptr<scheduler::RestBindingClient> binding_client_;
  std::unique_ptr<scheduler::RestApiWriterClient> writer_client_;
  std::unique_ptr<scheduler::GatedBindingClient> gated_binding_client_;
  std::unique_ptr<scheduler::GatedApiWriterClient> gated_writer_client_;
  std::unique_ptr<scheduler::apiwriter::ApiWriter> api_writer_;
  // --explain-record-size > 0: the scheduler's CycleObserver (outlives it).
  std::unique_ptr<scheduler::AttemptRecord> attempt_record_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::unique_ptr<scheduler::EventHandlers> handlers_;
  // With Coscheduling: the PodGroups' status (no PodGroup controller runs
  // beside ksched).
  std::unique_ptr<informer::InformerFactory> podgroup_pod_informers_;  // pods of every phase naming a group
  std::unique_ptr<scheduler::StoreLister<api::Pod>> podgroup_pods_;
  std::unique_ptr<scheduler::RestPodGroupStatusClient> podgroup_status_client_;
  std::unique_ptr<scheduler::PodGroupStatusController> podgroup_status_;
  std::vector<std::shared_ptr<const informer::HandlerRegistration>> registrations_;
  // Delegated authn/authz of the secure port, declared before endpoints_,
  // which calls them. Connections of their own (even to the main API
  // server), so reviews never queue behind bindings in the main client's
  // rate limiter, and with a 10 s timeout as kube's review clients.
  std::unique_ptr<client::RestClient> authn_client_;
  std::unique_ptr<client::RestClient> authz_client_;
  std::unique_ptr<auth::RestTokenReviewer> token_reviewer_;
  std::unique_ptr<auth::RestAccessReviewer> access_reviewer_;
  std::unique_ptr<auth::DelegatingAuth> auth_;
  std::unique_ptr<metrics::EndpointServer> endpoints_;

  // Leader election: its own connection, so lease renewals never queue
  // behind bindings in the main client's rate limiter (as kube-scheduler's
  // separate leader-election client).
  std::unique_ptr<client::RestClient> lease_rest_client_;
  std::unique_ptr<leaderelection::RestLeaseClient> lease_client_;
  std::unique_ptr<metrics::LeaderElectionMetrics> leader_election_metrics_;
  std::unique_ptr<leaderelection::LeaderElector> elector_;
  std::unique_ptr<LeaderWork> leader_work_;
  // Set by Stop() before it stops the elector: its on_stopped_leading then
  // drains instead of treating the end as a loss.
  std::atomic<bool> stop_requested_{false};
  std::thread elector_thread_;
  std::atomic<bool> scheduling_{false};

  std::mutex stop_mu_;
  bool stopped_ = false;
};

}  // namespace ksched::app
