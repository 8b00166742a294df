#include "cmd/ksched/server.h"

#include <chrono>
#include <map>
#include <thread>
#include <utility>

#include <spdlog/spdlog.h>

#include "pkg/auth/authentication_configmap.h"
#include "pkg/config/encode.h"
#include "pkg/informer/rest_lister_watcher.h"
#include "pkg/leaderelection/identity.h"
#include "pkg/log/log.h"
#include "pkg/metrics/process_collector.h"
#include "pkg/scheduler/explain_json.h"
#include "pkg/scheduler/pending_pods.h"
#include "pkg/util/thread_name.h"

namespace ksched::app {

namespace sched = ::ksched::scheduler;

util::StatusOr<std::unique_ptr<Server>> Server::New(ServerOptions options, const sched::framework::Registry& registry) {
  std::unique_ptr<Server> s(new Server(std::move(options)));
  util::Status st = s->Init(registry);
  if (!st.ok()) return st;
  return s;
}

util::Status Server::Init(const sched::framework::Registry& registry) {
  util::Clock& clock = util::RealClock::Get();
  // The families and help texts of the kube-scheduler ksched behaves as.
  static_assert(metrics::kNewestMetricsKubeMinor == sched::framework::kNewestKubeMinor);
  metrics_ = std::make_unique<metrics::SchedulerMetrics>(options_.features.minor);
  dra_metrics_ = std::make_unique<DraMetricsSink>(*metrics_);

  // Every client's, the watch loops' and the API writer's work queue's
  // metrics join the scheduler's registry, so /metrics serves them all.
  request_metrics_ = std::make_unique<client::PrometheusRequestMetrics>(*metrics_->Registry());
  client::RestClientOptions client_options;
  client_options.metrics = request_metrics_.get();
  util::StatusOr<std::unique_ptr<client::RestClient>> client =
      client::RestClient::Create(options_.rest, clock, std::move(client_options));
  if (!client.ok()) return client.status();
  client_ = std::move(client).value();

  reflector_metrics_ = std::make_unique<informer::PrometheusReflectorMetrics>(*metrics_->Registry());
  workqueue_metrics_ =
      std::make_unique<workqueue::PrometheusMetricsProvider>(*metrics_->Registry(), options_.features.minor);
  informer::InformerFactoryOptions informer_options;
  const bool taint_rules = options_.features.dra_device_taint_rules;
  if (taint_rules) {
    informer_options.api_versions[api::TypeInfo<api::DeviceTaintRule>::kResource] =
        options_.features.DeviceTaintRuleApiVersion();
  }
  informers_ = std::make_unique<informer::InformerFactory>(informer::RestListerWatcherFactory(*client_), clock,
                                                           std::move(informer_options), reflector_metrics_.get());
  listers_ = std::make_unique<sched::InformerListers>(*informers_, taint_rules);
  // Every attempt of a write, retries included, asks the gate again just
  // before it is sent (a Lease's tenure can end while a call waits).
  auto gate_open = [this] { return writes_gate_.IsOpen(); };
  binding_rest_ = client_->WithStops(
      {.cancel = writes_gate_.StopToken(), .no_retry = shutdown_.get_token(), .may_send = gate_open});
  best_effort_rest_ = client_->WithStops({.cancel = writes_gate_.StopToken(), .may_send = gate_open})
                          ->WithStops({.cancel = shutdown_.get_token()});
  binding_client_ = std::make_unique<sched::RestBindingClient>(*binding_rest_);
  writer_client_ = std::make_unique<sched::RestApiWriterClient>(*best_effort_rest_);
  // The PV/PVC updates always go through our own connection, also when a
  // caller injects its binding client.
  gated_binding_client_ = std::make_unique<sched::GatedBindingClient>(
      options_.binding_client != nullptr ? *options_.binding_client : *binding_client_, writes_gate_,
      binding_client_->Volumes(), binding_client_->ResourceClaims());
  gated_writer_client_ = std::make_unique<sched::GatedApiWriterClient>(*writer_client_, writes_gate_);
  sched::apiwriter::ApiWriterOptions writer_options;
  writer_options.metrics_provider = workqueue_metrics_.get();
  api_writer_ = std::make_unique<sched::apiwriter::ApiWriter>(*gated_writer_client_, clock, writer_options);

  sched::SchedulerOptions so;
  so.clock = &clock;
  so.features = options_.features;
  so.binding_client = gated_binding_client_.get();
  so.api_writer = api_writer_.get();
  so.listers = listers_.get();
  so.metrics = metrics_.get();
  so.extra_queue_metrics = options_.extra_queue_metrics;
  so.binding_drain_timeout = options_.binding_drain_timeout;
  // The drain is over: no write starts any more, those in flight end.
  so.on_binding_drain_timeout = [this] { writes_gate_.Close(); };
  so.pod_max_in_unschedulable_pods_duration = options_.pod_max_in_unschedulable_pods_duration;
  if (options_.explain_record_size > 0) {
    attempt_record_ = std::make_unique<sched::AttemptRecord>(options_.explain_record_size,
                                                             sched::AttemptRecord::kDefaultTopNodes, clock);
    so.observer = attempt_record_.get();
  }
  util::StatusOr<std::unique_ptr<sched::Scheduler>> s = sched::Scheduler::New(options_.config, registry, std::move(so));
  if (!s.ok()) return s.status();
  scheduler_ = std::move(s).value();

  handlers_ = std::make_unique<sched::EventHandlers>(*scheduler_);
  registrations_ = handlers_->Register(*informers_);
  if (listers_->WatchesPodGroups()) InitPodGroupStatus(clock);

  // Built even without ports, so the routes can be served in-process.
  endpoints_ = std::make_unique<metrics::EndpointServer>(options_.endpoints, clock);
  if (options_.endpoints.secure_port != 0) {
    util::Status a = InitAuth(clock);
    if (!a.ok()) return a;
  }
  endpoints_->AddCollectable(metrics_->Registry());
  endpoints_->AddCollectable(std::make_shared<metrics::ProcessCollector>());
  endpoints_->Readyz().Add("informer-sync", [this]() -> util::Status {
    if (HandlersSynced()) return util::Status();
    return util::Status(util::StatusCode::kUnavailable, "informers not synced");
  });
  util::Status le = InitLeaderElection(clock);
  if (!le.ok()) return le;

  nlohmann::ordered_json configz;
  configz["componentconfig"] = config::ToJson(options_.config);
  endpoints_->HandleJson("/configz", [body = configz.dump(2) + "\n"] { return body; });
  endpoints_->HandleJson("/debug/pending", [this] {
    return sched::PendingPodsJson(scheduler_->PendingPodsDebug(), scheduler_->Clock());
  });
  endpoints_->Handle("/debug/explain", [this](const metrics::HttpRequest& req) {
    std::optional<std::string> pod;
    if (req.HasQuery("pod")) pod = req.QueryValues("pod").front();
    sched::ExplainResponse r = sched::ServeExplain(*scheduler_, attempt_record_.get(), pod);
    metrics::HttpResponse out;
    out.status = r.status;
    out.content_type = "application/json";
    out.body = std::move(r.body);
    return out;
  });
  return util::Status();
}

void Server::InitPodGroupStatus(util::Clock& clock) {
  // The status counts finished pods too, which the scheduler's pod informer
  // leaves out: a pod informer of its own, of every phase, for the pods that
  // name a PodGroup (the label's existence).
  client::RestClient* rest = client_.get();
  podgroup_pod_informers_ = std::make_unique<informer::InformerFactory>(
      [rest](const informer::ResourceType& type) -> std::unique_ptr<informer::ListerWatcher> {
        if (type.kind == "Pod") {
          return std::make_unique<informer::RestListerWatcher>(*rest, "/api/v1/pods", "",
                                                               std::string(api::kPodGroupLabel));
        }
        return informer::NewSchedulerListerWatcher(*rest, type);
      },
      clock, informer::InformerFactoryOptions{}, reflector_metrics_.get());
  podgroup_pods_ = std::make_unique<sched::StoreLister<api::Pod>>(podgroup_pod_informers_->Pods().GetStore());
  podgroup_status_client_ = std::make_unique<sched::RestPodGroupStatusClient>(*best_effort_rest_, writes_gate_);
  podgroup_status_ = std::make_unique<sched::PodGroupStatusController>(listers_->PodGroups(), *podgroup_pods_,
                                                                       *podgroup_status_client_, clock);
  sched::PodGroupStatusController* c = podgroup_status_.get();
  informer::ResourceEventHandlerFuncs<api::PodGroup> groups;
  groups.on_add = [c](const std::shared_ptr<const api::PodGroup>& g, bool) { c->EnqueueGroup(*g); };
  groups.on_update = [c](const std::shared_ptr<const api::PodGroup>&, const std::shared_ptr<const api::PodGroup>& g) {
    c->EnqueueGroup(*g);
  };
  registrations_.push_back(informers_->InformerFor<api::PodGroup>().AddEventHandler(std::move(groups)));
  informer::ResourceEventHandlerFuncs<api::Pod> pods;
  pods.on_add = [c](const std::shared_ptr<const api::Pod>& p, bool) { c->EnqueuePod(*p); };
  pods.on_update = [c](const std::shared_ptr<const api::Pod>&, const std::shared_ptr<const api::Pod>& p) {
    c->EnqueuePod(*p);
  };
  pods.on_delete = [c](const std::shared_ptr<const api::Pod>& p, bool) { c->EnqueuePod(*p); };
  registrations_.push_back(podgroup_pod_informers_->Pods().AddEventHandler(std::move(pods)));
}

util::Status Server::InitLeaderElection(util::Clock& clock) {
  const config::LeaderElectionConfiguration& lec = options_.config.leader_election;
  if (!lec.leader_elect.value_or(false)) {
    endpoints_->Readyz().Add("leader-election", [] { return util::Status(); },
                             [] { return std::string("leader election disabled"); });
    return util::Status();
  }
  // The elector retries on its own schedule (every retry period, until the
  // renew deadline), so the client must not: no retries, and no attempt
  // longer than the margin between the renew deadline and the lease
  // duration, so a leader notices its loss before any standby may take over
  // (client-go bounds the attempt with the renew deadline's context).
  client::RestConfig lease_rest = options_.rest;
  const util::Duration margin = lec.lease_duration - lec.renew_deadline;
  if (margin > util::Duration(0) && (lease_rest.timeout == util::Duration(0) || lease_rest.timeout > margin)) {
    lease_rest.timeout = margin;
  }
  client::RestClientOptions lease_options;
  lease_options.retry.max_retries = 0;
  lease_options.metrics = request_metrics_.get();
  util::StatusOr<std::unique_ptr<client::RestClient>> rest =
      client::RestClient::Create(lease_rest, clock, std::move(lease_options));
  if (!rest.ok()) return rest.status();
  lease_rest_client_ = std::move(rest).value();
  lease_client_ = std::make_unique<leaderelection::RestLeaseClient>(*lease_rest_client_);
  leader_election_metrics_ = std::make_unique<metrics::LeaderElectionMetrics>(*metrics_->Registry());
  leader_election_metrics_->SetLeading(lec.resource_name, false);

  std::string identity =
      options_.leader_identity.empty() ? leaderelection::DefaultIdentity() : options_.leader_identity;
  leaderelection::LeaderElectionConfig c;
  c.lease_duration = lec.lease_duration;
  c.renew_deadline = lec.renew_deadline;
  c.retry_period = lec.retry_period;
  c.release_on_cancel = true;
  c.metrics = leader_election_metrics_.get();
  const std::string lease = lec.resource_namespace + "/" + lec.resource_name;
  leader_work_ = std::make_unique<LeaderWork>(*scheduler_, api_writer_.get(), writes_gate_, clock);
  c.callbacks.on_started_leading = [this, lease] {
    spdlog::info("leader acquired: lease {} held as {}; scheduling", lease, elector_->Identity());
    scheduling_ = true;
    leader_work_->StartLeading();
  };
  c.callbacks.on_stopped_leading = [this, lease, renew_deadline = lec.renew_deadline] {
    const bool requested = stop_requested_.load();
    if (requested) {
      spdlog::info("stopping leading lease {}: draining bindings and writes before releasing it", lease);
    } else {
      spdlog::error("lost lease {}: no more writes; stopping the scheduling loop", lease);
    }
    leader_work_->StopLeading(requested, elector_->LastObservedTime() + renew_deadline);
    scheduling_ = false;
  };
  // Every write checks the tenure itself (see WritesGate): a leader that
  // wakes from a pause past its Lease writes nothing, even before its
  // elector notices the loss.
  writes_gate_.BoundBy(clock);
  c.callbacks.on_renewed = [this, renew_deadline = lec.renew_deadline](util::TimePoint attempt_start) {
    writes_gate_.ExtendUntil(attempt_start + renew_deadline);
  };
  c.callbacks.on_new_leader = [this, lease](const std::string& holder) {
    if (holder.empty()) {
      spdlog::info("lease {} was released", lease);
    } else if (holder != elector_->Identity()) {
      spdlog::info("new leader elected: {} holds lease {}; standing by", holder, lease);
    }
  };
  util::StatusOr<std::unique_ptr<leaderelection::LeaderElector>> e = leaderelection::LeaderElector::New(
      std::move(c), leaderelection::LeaseLock(lec.resource_namespace, lec.resource_name, identity, *lease_client_),
      clock);
  if (!e.ok()) return e.status();
  elector_ = std::move(e).value();

  endpoints_->Readyz().Add("leader-election", [] { return util::Status(); },
                           [this]() -> std::string {
                             if (elector_->IsLeader()) return "leader";
                             std::string holder = elector_->GetLeader();
                             return holder.empty() ? "standby (no leader observed)" : "standby (leader: " + holder + ")";
                           });
  // client-go's HealthzAdaptor with kube-scheduler's 20 s tolerance.
  auto watchdog = [this] { return elector_->Check(std::chrono::seconds(20)); };
  endpoints_->Healthz().Add("leaderElection", watchdog);
  endpoints_->Livez().Add("leaderElection", watchdog);
  return util::Status();
}

util::Status Server::InitAuth(util::Clock& clock) {
  auto make_client = [&](const std::optional<client::RestConfig>& given) {
    client::RestConfig rc = given.value_or(options_.rest);
    rc.timeout = std::chrono::seconds(10);
    client::RestClientOptions o;
    o.retry.max_retries = 1;  // a request waits on the review: fail fast
    o.metrics = request_metrics_.get();
    util::StatusOr<std::unique_ptr<client::RestClient>> c = client::RestClient::Create(rc, clock, std::move(o));
    // Reviews end at shutdown, so the endpoints' connections can close.
    if (c.ok()) return util::StatusOr<std::unique_ptr<client::RestClient>>((*c)->WithStops({shutdown_.get_token()}));
    return c;
  };
  util::StatusOr<std::unique_ptr<client::RestClient>> authn = make_client(options_.authentication_rest);
  if (!authn.ok()) return util::InvalidArgument("--authentication-kubeconfig: " + authn.status().message());
  util::StatusOr<std::unique_ptr<client::RestClient>> authz = make_client(options_.authorization_rest);
  if (!authz.ok()) return util::InvalidArgument("--authorization-kubeconfig: " + authz.status().message());
  authn_client_ = std::move(authn).value();
  authz_client_ = std::move(authz).value();
  token_reviewer_ = std::make_unique<auth::RestTokenReviewer>(*authn_client_);
  access_reviewer_ = std::make_unique<auth::RestAccessReviewer>(*authz_client_);
  auth_ = std::make_unique<auth::DelegatingAuth>(token_reviewer_.get(), access_reviewer_.get(), options_.auth, clock);
  endpoints_->SetAuth(auth_.get());
  return util::Status();
}

util::Status Server::LookupClientCa() {
  const bool need_client_ca = options_.endpoints.client_ca_file.empty();
  const bool need_requestheader = options_.endpoints.requestheader_client_ca_file.empty();
  if (options_.endpoints.secure_port == 0 || (!need_client_ca && !need_requestheader) ||
      options_.authentication_skip_lookup) {
    return util::Status();
  }
  const std::string where = "kube-system/extension-apiserver-authentication";
  util::StatusOr<nlohmann::json> cm =
      authn_client_->Get("/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
  if (!cm.ok()) {
    if (cm.status().code() == util::StatusCode::kNotFound) {
      spdlog::warn("configmap {} not found: client certificates will not authenticate", where);
      return util::Status();
    }
    std::string msg = "unable to look up the client CA in configmap " + where + ": " + cm.status().message() +
                      " (usually fixed by 'kubectl create rolebinding -n kube-system ROLEBINDING_NAME "
                      "--role=extension-apiserver-authentication-reader --serviceaccount=YOUR_NS:YOUR_SA')";
    if (options_.authentication_tolerate_lookup_failure) {
      spdlog::warn("{}; continuing without {} (--authentication-tolerate-lookup-failure)", msg,
                   need_client_ca ? "client certificate authentication" : "front-proxy authentication");
      return util::Status();
    }
    return util::Status(cm.status().code(), msg);
  }
  auth::AuthenticationConfigMap found = auth::ParseAuthenticationConfigMap(*cm);
  if (need_client_ca) {
    if (found.client_ca_pem.empty()) {
      spdlog::info("configmap {} has no client-ca-file: client certificates will not authenticate", where);
    } else {
      endpoints_->SetClientCaPem(found.client_ca_pem);
      spdlog::info("client certificates are verified against the client-ca-file of configmap {}", where);
    }
  }
  // The front proxy's CA and header names come together from the cluster
  // (kube-apiserver writes them from its own --requestheader-* flags).
  if (need_requestheader) {
    if (found.requestheader_client_ca_pem.empty()) {
      KLOG_V(2, "configmap {} has no requestheader-client-ca-file: no front-proxy authentication", where);
    } else {
      endpoints_->SetRequestHeaderFromCluster(found.requestheader_client_ca_pem, std::move(found.requestheader));
      spdlog::info("front-proxy certificates are verified against the requestheader-client-ca-file of configmap {}",
                   where);
    }
  }
  return util::Status();
}

Server::~Server() { Stop(); }

util::StatusOr<std::string> Server::Connect() {
  util::StatusOr<nlohmann::json> v = client_->Get("/version", {}, shutdown_.get_token());
  if (!v.ok()) return v.status();
  if (v->is_object() && v->contains("gitVersion") && (*v)["gitVersion"].is_string()) {
    return (*v)["gitVersion"].get<std::string>();
  }
  return std::string("unknown");
}

util::Status Server::ServeEndpoints() {
  if (options_.endpoints.secure_port == 0 && options_.endpoints.http_port == 0) return util::Status();
  util::Status ca = LookupClientCa();
  if (!ca.ok()) return ca;
  return endpoints_->Start();
}

void Server::StartInformers() {
  informers_->Start();
  if (podgroup_pod_informers_ != nullptr) podgroup_pod_informers_->Start();
}

bool Server::HandlersSynced() const {
  for (const auto& r : registrations_) {
    if (!r->HasSynced()) return false;
  }
  return true;
}

bool Server::WaitForCacheSync(util::Duration timeout) {
  std::map<std::string, bool> synced = informers_->WaitForCacheSync(timeout);
  if (podgroup_pod_informers_ != nullptr) {
    for (const auto& [resource, ok] : podgroup_pod_informers_->WaitForCacheSync(timeout)) {
      synced["podgroup-members/" + resource] = ok;
    }
  }
  bool all = true;
  for (const auto& [resource, ok] : synced) {
    if (!ok) {
      spdlog::warn("informer for {} has not synced yet", resource);
      all = false;
    }
  }
  if (!all) return false;
  // The informers synced; their handlers have then received the first list
  // (a registration syncs once the list was delivered to it).
  // Registrations expose no wait, so poll them (kube polls every 100 ms).
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!HandlersSynced()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // The PodGroups' status is computed from complete caches only.
  if (podgroup_status_ != nullptr) podgroup_status_->Start();
  return true;
}

void Server::RunScheduler() {
  scheduling_ = true;
  scheduler_->Run();
}

void Server::StartLeaderElection() {
  if (elector_ == nullptr || elector_thread_.joinable()) return;
  elector_thread_ = std::thread([this] {
    util::NameThisThread("leader-election");
    leaderelection::LeaderElector::Result r = elector_->Run();
    if (options_.on_leader_election_end) options_.on_leader_election_end(r);
  });
}

util::Status Server::Start(util::Duration sync_timeout) {
  util::StatusOr<std::string> v = Connect();
  if (!v.ok()) spdlog::warn("API server not reachable yet: {}", v.status().message());
  util::Status s = ServeEndpoints();
  if (!s.ok()) return s;
  StartInformers();
  if (!WaitForCacheSync(sync_timeout)) return util::Status(util::StatusCode::kDeadlineExceeded, "caches not synced");
  if (LeaderElectionEnabled()) {
    StartLeaderElection();
  } else {
    RunScheduler();
  }
  return util::Status();
}

void Server::Stop() {
  {
    std::lock_guard<std::mutex> l(stop_mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  // Order: best-effort calls are cancelled at once (BeginShutdown); no new
  // pods are popped and binding cycles finish first, so no event handler
  // races a half-stopped scheduler; then (the elector's on_stopped_leading
  // having drained and closed the writes) the Lease is released; then the
  // informers. Without leader election the writer stops last. What the
  // writer and the PodGroup status controller still held is dropped (their
  // calls are cancelled) and logged with its count.
  BeginShutdown();
  stop_requested_ = true;
  if (elector_ != nullptr) {
    elector_->Stop();
    if (elector_thread_.joinable()) elector_thread_.join();
  }
  if (scheduler_ != nullptr) scheduler_->Stop();
  // The drain is over (LeaderWork closed the gate already when leading).
  writes_gate_.Close();
  scheduling_ = false;
  if (podgroup_status_ != nullptr) podgroup_status_->Stop();
  if (informers_ != nullptr) informers_->Shutdown();
  if (podgroup_pod_informers_ != nullptr) podgroup_pod_informers_->Shutdown();
  if (api_writer_ != nullptr) api_writer_->Stop();
  if (endpoints_ != nullptr && (options_.endpoints.secure_port != 0 || options_.endpoints.http_port != 0)) {
    endpoints_->Stop();
  }
}

std::vector<std::string> Server::ListeningUris() const {
  if (options_.endpoints.secure_port == 0 && options_.endpoints.http_port == 0) return {};
  return endpoints_->ListeningUris();
}

}  // namespace ksched::app
