#include "cmd/ksched/server.h"

#include <chrono>
#include <map>
#include <thread>
#include <utility>

#include <spdlog/spdlog.h>

#include "pkg/config/encode.h"
#include "pkg/informer/rest_lister_watcher.h"
#include "pkg/metrics/process_collector.h"
#include "pkg/scheduler/pending_pods.h"

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
  metrics_ = std::make_unique<metrics::SchedulerMetrics>();

  util::StatusOr<std::unique_ptr<client::RestClient>> client = client::RestClient::Create(options_.rest, clock);
  if (!client.ok()) return client.status();
  client_ = std::move(client).value();

  informers_ = std::make_unique<informer::InformerFactory>(informer::RestListerWatcherFactory(*client_), clock);
  listers_ = std::make_unique<sched::InformerListers>(*informers_);
  binding_client_ = std::make_unique<sched::RestBindingClient>(*client_);
  writer_client_ = std::make_unique<sched::RestApiWriterClient>(*client_);
  api_writer_ = std::make_unique<sched::apiwriter::ApiWriter>(*writer_client_, clock);

  sched::SchedulerOptions so;
  so.clock = &clock;
  so.features = options_.features;
  so.binding_client =
      options_.binding_client != nullptr ? options_.binding_client : binding_client_.get();
  so.api_writer = api_writer_.get();
  so.listers = listers_.get();
  so.metrics = metrics_.get();
  so.extra_queue_metrics = options_.extra_queue_metrics;
  so.binding_drain_timeout = options_.binding_drain_timeout;
  util::StatusOr<std::unique_ptr<sched::Scheduler>> s = sched::Scheduler::New(options_.config, registry, std::move(so));
  if (!s.ok()) return s.status();
  scheduler_ = std::move(s).value();

  handlers_ = std::make_unique<sched::EventHandlers>(*scheduler_);
  registrations_ = handlers_->Register(*informers_);

  // Built even without ports, so the routes can be served in-process.
  endpoints_ = std::make_unique<metrics::EndpointServer>(options_.endpoints, clock);
  endpoints_->AddCollectable(metrics_->Registry());
  endpoints_->AddCollectable(std::make_shared<metrics::ProcessCollector>());
  endpoints_->Readyz().Add("informer-sync", [this]() -> util::Status {
    if (HandlersSynced()) return util::Status();
    return util::Status(util::StatusCode::kUnavailable, "informers not synced");
  });
  nlohmann::ordered_json configz;
  configz["componentconfig"] = config::ToJson(options_.config);
  endpoints_->HandleJson("/configz", [body = configz.dump(2) + "\n"] { return body; });
  endpoints_->HandleJson("/debug/pending", [this] {
    return sched::PendingPodsJson(scheduler_->PendingPodsDebug(), scheduler_->Clock());
  });
  return util::Status();
}

Server::~Server() { Stop(); }

util::StatusOr<std::string> Server::Connect() {
  util::StatusOr<nlohmann::json> v = client_->Get("/version");
  if (!v.ok()) return v.status();
  if (v->is_object() && v->contains("gitVersion") && (*v)["gitVersion"].is_string()) {
    return (*v)["gitVersion"].get<std::string>();
  }
  return std::string("unknown");
}

util::Status Server::ServeEndpoints() {
  if (options_.endpoints.secure_port == 0 && options_.endpoints.http_port == 0) return util::Status();
  return endpoints_->Start();
}

void Server::StartInformers() { informers_->Start(); }

bool Server::HandlersSynced() const {
  for (const auto& r : registrations_) {
    if (!r->HasSynced()) return false;
  }
  return true;
}

bool Server::WaitForCacheSync(util::Duration timeout) {
  std::map<std::string, bool> synced = informers_->WaitForCacheSync(timeout);
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
  return true;
}

void Server::RunScheduler() { scheduler_->Run(); }

util::Status Server::Start(util::Duration sync_timeout) {
  util::StatusOr<std::string> v = Connect();
  if (!v.ok()) spdlog::warn("API server not reachable yet: {}", v.status().message());
  util::Status s = ServeEndpoints();
  if (!s.ok()) return s;
  StartInformers();
  if (!WaitForCacheSync(sync_timeout)) return util::Status(util::StatusCode::kDeadlineExceeded, "caches not synced");
  RunScheduler();
  return util::Status();
}

void Server::Stop() {
  {
    std::lock_guard<std::mutex> l(stop_mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  // Order: no new pods are popped and binding cycles finish first, so no
  // event handler races a half-stopped scheduler; then the informers; then
  // the writes still queued get their last attempt.
  if (scheduler_ != nullptr) scheduler_->Stop();
  if (informers_ != nullptr) informers_->Shutdown();
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
