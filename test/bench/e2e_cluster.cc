// E2eCluster (see cluster.h): kube-apiserver-lite on loopback and ksched's
// app::Server as cmd/ksched builds it, objects created over HTTP.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "cmd/ksched/server.h"
#include "cmd/kube-apiserver-lite/handler.h"
#include "cmd/kube-apiserver-lite/server.h"
#include "pkg/client/rest_client.h"
#include "pkg/config/defaults.h"
#include "pkg/scheduler/client_adapters.h"
#include "pkg/scheduler/plugins/registry.h"
#include "test/bench/cluster.h"

namespace ksched::bench {
namespace {

using nlohmann::json;

// POST path and body.
using Create = std::pair<std::string, std::string>;

class RequestBatch final : public PodBatch {
 public:
  size_t size() const override { return requests.size(); }
  std::vector<Create> requests;
};

// ksched's own REST binding client (on the server's client and rate
// limiter), counting the bindings the API server accepted.
class CountingBinder final : public scheduler::framework::BindingClient {
 public:
  explicit CountingBinder(ScheduledCounter& counter) : counter_(counter) {}
  void SetInner(std::unique_ptr<scheduler::RestBindingClient> inner) { inner_ = std::move(inner); }

  util::Status Bind(const api::Pod& pod, std::string_view node_name) override {
    util::Status s = inner_->Bind(pod, node_name);
    if (s.ok()) counter_.Add(pod.metadata.namespace_);
    return s;
  }

 private:
  ScheduledCounter& counter_;
  std::unique_ptr<scheduler::RestBindingClient> inner_;
};

class E2eCluster final : public Cluster {
 public:
  explicit E2eCluster(const ClusterOptions& options) : options_(options), binder_(scheduled_) {}
  ~E2eCluster() override { Stop(); }
  const char* Mode() const override { return "e2e"; }

  util::Status Init() {
    handler_ = std::make_unique<apiserver::ApiHandler>(apiserver::ServerOptions{}, util::RealClock::Get());
    apiserver::HttpServerOptions http;
    http.port = 0;
    http_ = std::make_unique<apiserver::HttpServer>(*handler_, http);
    util::Status started = http_->Start();
    if (!started.ok()) return started;

    client::RestConfig harness;
    harness.host = http_->url();
    harness.qps = 0;  // the harness creates objects as fast as the server takes them
    util::StatusOr<std::unique_ptr<client::RestClient>> c = client::RestClient::Create(harness, util::RealClock::Get());
    if (!c.ok()) return c.status();
    client_ = std::move(c).value();

    util::StatusOr<scheduler::framework::Registry> registry = scheduler::plugins::InTreeRegistry();
    if (!registry.ok()) return registry.status();
    registry_ = std::move(registry).value();

    // As cmd/ksched/main.cc: clientConnection qps/burst override the REST
    // config's client-side limiter.
    config::KubeSchedulerConfiguration cfg = config::DefaultConfiguration();
    cfg.client_connection.qps = options_.qps;
    cfg.client_connection.burst = options_.burst;
    client::RestConfig rest;
    rest.host = http_->url();
    if (cfg.client_connection.qps > 0) rest.qps = cfg.client_connection.qps;
    if (cfg.client_connection.burst > 0) rest.burst = cfg.client_connection.burst;

    app::ServerOptions so;
    so.config = cfg;
    so.rest = rest;
    so.features = options_.features;
    so.endpoints.secure_port = 0;
    so.endpoints.http_port = 0;
    so.binding_client = &binder_;
    util::StatusOr<std::unique_ptr<app::Server>> s = app::Server::New(std::move(so), registry_);
    if (!s.ok()) return s.status();
    server_ = std::move(s).value();
    binder_.SetInner(std::make_unique<scheduler::RestBindingClient>(server_->Client()));
    return server_->Start(std::chrono::seconds(30));
  }

  util::Status CreateNamespace(const json& ns) override {
    util::StatusOr<json> r = client_->Post("/api/v1/namespaces", ns);
    if (!r.ok() && r.status().code() != util::StatusCode::kAlreadyExists) return r.status();
    return util::Status();
  }

  util::Status CreateNodes(const std::vector<json>& nodes) override {
    std::vector<Create> reqs;
    reqs.reserve(nodes.size());
    for (const json& n : nodes) reqs.emplace_back("/api/v1/nodes", n.dump());
    util::Status s = PostAll(reqs);
    if (!s.ok()) return s;
    nodes_ += static_cast<int64_t>(nodes.size());
    // The informer delivers them asynchronously; pods created before the
    // cache holds every node would see a partial cluster.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (static_cast<int64_t>(server_->Scheduler().Cache().NodeCount()) < nodes_) {
      if (std::chrono::steady_clock::now() > deadline) return util::Internal("nodes did not reach the cache");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return util::Status();
  }

  util::StatusOr<std::unique_ptr<PodBatch>> PreparePods(const std::vector<json>& pods) override {
    auto batch = std::make_unique<RequestBatch>();
    batch->requests.reserve(pods.size());
    for (const json& p : pods) {
      batch->requests.emplace_back("/api/v1/namespaces/" + p["metadata"].value("namespace", "default") + "/pods",
                                   p.dump());
    }
    return std::unique_ptr<PodBatch>(std::move(batch));
  }

  util::Status CreatePods(PodBatch& batch) override { return PostAll(static_cast<RequestBatch&>(batch).requests); }

  util::StatusOr<int64_t> CountBoundPods(const std::string& namespace_) override {
    util::StatusOr<json> list = client_->Get("/api/v1/namespaces/" + namespace_ + "/pods");
    if (!list.ok()) return list.status();
    int64_t n = 0;
    for (const json& p : (*list)["items"]) {
      if (p.contains("spec") && !p["spec"].value("nodeName", "").empty()) ++n;
    }
    return n;
  }

  void WaitForBindingCycles() override { server_->Scheduler().WaitForBindingCycles(); }
  metrics::SchedulerMetrics& Metrics() override { return server_->Metrics(); }

  void Stop() override {
    if (stopped_) return;
    stopped_ = true;
    if (server_) server_->Stop();
    if (handler_) handler_->Shutdown();
    if (http_) http_->Stop();
  }

 private:
  // POSTs every request from `create_workers` threads; the first error.
  util::Status PostAll(const std::vector<Create>& reqs) {
    std::atomic<size_t> next{0};
    std::mutex mu;
    util::Status first;
    auto work = [&] {
      while (true) {
        const size_t i = next.fetch_add(1);
        if (i >= reqs.size()) return;
        client::Request r;
        r.verb = "POST";
        r.path = reqs[i].first;
        r.body = reqs[i].second;
        util::StatusOr<client::Response> resp = client_->Do(r);
        if (!resp.ok()) {
          std::lock_guard<std::mutex> l(mu);
          if (first.ok()) first = resp.status();
          return;
        }
      }
    };
    const int workers = std::max(1, std::min<int>(options_.create_workers, static_cast<int>(reqs.size())));
    std::vector<std::thread> threads;
    for (int w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
    return first;
  }

  const ClusterOptions options_;
  std::unique_ptr<apiserver::ApiHandler> handler_;
  std::unique_ptr<apiserver::HttpServer> http_;
  std::unique_ptr<client::RestClient> client_;
  scheduler::framework::Registry registry_;
  CountingBinder binder_;
  std::unique_ptr<app::Server> server_;
  int64_t nodes_ = 0;
  bool stopped_ = false;
};

}  // namespace

util::StatusOr<std::unique_ptr<Cluster>> NewE2eCluster(const ClusterOptions& options) {
  auto c = std::make_unique<E2eCluster>(options);
  util::Status s = c->Init();
  if (!s.ok()) return s;
  return std::unique_ptr<Cluster>(std::move(c));
}

}  // namespace ksched::bench
