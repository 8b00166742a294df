// E2eCluster (see cluster.h): kube-apiserver-lite on loopback and ksched's
// app::Server as cmd/ksched builds it, objects created over HTTP.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "cmd/ksched/server.h"
#include "pkg/apiserverlite/handler.h"
#include "pkg/apiserverlite/server.h"
#include "pkg/client/rest_client.h"
#include "pkg/config/defaults.h"
#include "pkg/net/http_message.h"
#include "pkg/net/message_reader.h"
#include "pkg/net/stream.h"
#include "pkg/scheduler/client_adapters.h"
#include "pkg/scheduler/plugins/registry.h"
#include "test/bench/cluster.h"

namespace ksched::bench {
namespace {

using nlohmann::json;

// POST path and body.
using Create = std::pair<std::string, std::string>;

// Requests each create worker keeps in flight on its connection (HTTP/1.1
// pipelining): every object is still one POST answered by the API server,
// but the harness sends and reads them in batches, so it costs a fraction
// of the system calls and thread wake-ups a request-response client does
// (its cost counts in the measured CPU). The server answers a
// connection's requests in order, one at a time, as before.
constexpr size_t kPipelineDepth = 8;
constexpr auto kCreateTimeout = std::chrono::seconds(60);

// One keep-alive connection that POSTs JSON objects in pipelined batches.
class PipelinedPoster {
 public:
  static util::StatusOr<std::unique_ptr<PipelinedPoster>> Connect(uint16_t port) {
    auto socket = net::Socket::Connect("127.0.0.1", port, net::DeadlineAfter(kCreateTimeout));
    if (!socket.ok()) return socket.status();
    return std::unique_ptr<PipelinedPoster>(new PipelinedPoster(std::move(*socket)));
  }

  // POSTs reqs[first, last) and reads every answer; the first non-201
  // answer (or I/O failure) is the error.
  util::Status PostBatch(const std::vector<Create>& reqs, size_t first, size_t last) {
    out_.clear();
    for (size_t i = first; i < last; ++i) {
      const auto& [path, body] = reqs[i];
      out_.append("POST ").append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      out_.append("Content-Type: application/json\r\nAccept: application/json\r\n");
      out_.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n\r\n");
      out_.append(body);
    }
    util::Status wrote = socket_->WriteAll(out_, net::DeadlineAfter(kCreateTimeout));
    if (!wrote.ok()) return wrote;
    util::Status first_error;
    for (size_t i = first; i < last; ++i) {
      net::ResponseHead head;
      util::StatusOr<bool> got = reader_.ReadResponseHead(&head, net::DeadlineAfter(kCreateTimeout));
      if (!got.ok()) return got.status();
      if (!*got) return util::Status(util::StatusCode::kUnavailable, "the API server closed the connection");
      util::StatusOr<net::BodyFraming> framing = net::ResponseBodyFraming(head, "POST");
      if (!framing.ok()) return framing.status();
      reader_.BeginBody(*framing);
      body_.clear();
      util::Status read = reader_.ReadBody(&body_, size_t{64} << 20, net::DeadlineAfter(kCreateTimeout));
      if (!read.ok()) return read;
      if (head.status != 201 && first_error.ok()) {
        first_error = util::Internal(fmt::format("POST {}: HTTP {}: {}", reqs[i].first, head.status,
                                                 body_.substr(0, 300)));
      }
    }
    return first_error;
  }

 private:
  explicit PipelinedPoster(std::unique_ptr<net::Socket> socket)
      : socket_(std::move(socket)), reader_(*socket_) {}

  std::unique_ptr<net::Socket> socket_;
  net::MessageReader reader_;
  std::string out_;
  std::string body_;
};

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
    if (s.ok()) counter_.Add(pod.metadata.namespace_, pod.metadata.name);
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

    // As the daemon: the switches some code reads process-wide.
    options_.features.ApplyProcessWideSwitches();
    util::StatusOr<scheduler::framework::Registry> registry = scheduler::plugins::InTreeRegistry(options_.features);
    if (!registry.ok()) return registry.status();
    registry_ = std::move(registry).value();

    // As cmd/ksched/main.cc: clientConnection qps/burst override the REST
    // config's client-side limiter.
    config::KubeSchedulerConfiguration cfg = config::DefaultConfiguration(registry_.Known());
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
    return CountBoundPodsByList(*client_, namespace_);
  }

  void WaitForBindingCycles() override { server_->Scheduler().WaitForBindingCycles(); }
  util::StatusOr<Families> ScrapeMetrics() override { return server_->Metrics().Registry()->Collect(); }

  void Stop() override {
    if (stopped_) return;
    stopped_ = true;
    if (server_) server_->Stop();
    if (handler_) handler_->Shutdown();
    if (http_) http_->Stop();
  }

 private:
  // POSTs every request from `create_workers` threads, each pipelining
  // batches of kPipelineDepth on its own connection; the first error.
  util::Status PostAll(const std::vector<Create>& reqs) {
    std::atomic<size_t> next{0};
    std::mutex mu;
    util::Status first;
    auto fail = [&](const util::Status& s) {
      std::lock_guard<std::mutex> l(mu);
      if (first.ok()) first = s;
    };
    auto work = [&] {
      util::StatusOr<std::unique_ptr<PipelinedPoster>> poster = PipelinedPoster::Connect(http_->port());
      if (!poster.ok()) return fail(poster.status());
      while (true) {
        const size_t i = next.fetch_add(kPipelineDepth);
        if (i >= reqs.size()) return;
        util::Status s = (*poster)->PostBatch(reqs, i, std::min(reqs.size(), i + kPipelineDepth));
        if (!s.ok()) return fail(s);
      }
    };
    const size_t batches = (reqs.size() + kPipelineDepth - 1) / kPipelineDepth;
    const int workers = std::max(1, std::min<int>(options_.create_workers, static_cast<int>(batches)));
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
