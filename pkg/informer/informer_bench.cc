// Client-to-server benchmarks of the watch loops against kube-apiserver-lite
// on loopback HTTP (issue 5): how fast an informer lists and decodes a large
// cluster into its Store, and how many watch events per second it decodes
// and applies.
//
//   build/bench/informer_bench [--benchmark_filter=...]
//
// Every figure includes the server's side (kube-apiserver-lite serializing
// the list or the events) on the same two cores, as a real cluster would
// not; the client-only cost is lower.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "pkg/apiserverlite/handler.h"
#include "pkg/apiserverlite/server.h"
#include "pkg/client/rest_client.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/informer/rest_lister_watcher.h"

namespace ksched::informer {
namespace {

using nlohmann::json;

// A pod as workload controllers create them: labels, owner, requests,
// tolerations, an anti-affinity term (~1.4 kB of JSON).
std::string PodBody(const std::string& name) {
  static const json kTemplate = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {
      "labels": {"app": "bench", "pod-template-hash": "5d8f7c9b6", "tier": "web"},
      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "bench-5d8f7c9b6",
                           "uid": "6f1c3a52-8e0b-4d55-9a57-3b1a2f0c9e11", "controller": true}]},
    "spec": {
      "schedulerName": "ksched",
      "containers": [{"name": "app", "image": "registry.k8s.io/nginx-slim:0.27",
                      "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                      "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                                    "limits": {"cpu": "500m", "memory": "128Mi"}}}],
      "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                       "effect": "NoExecute", "tolerationSeconds": 300}],
      "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                            "labelSelector": {"matchLabels": {"app": "bench"}}}}]}}}})");
  json pod = kTemplate;
  pod["metadata"]["name"] = name;
  return pod.dump();
}

std::string NodeBody(const std::string& name) {
  return json{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata",
               {{"name", name},
                {"labels",
                 {{"kubernetes.io/hostname", name},
                  {"topology.kubernetes.io/zone", "zone-a"},
                  {"node.kubernetes.io/instance-type", "m5.2xlarge"}}}}},
              {"status",
               {{"capacity", {{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}}},
                {"allocatable", {{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}}},
                {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}}
      .dump();
}

apiserver::ApiRequest Post(const std::string& path, std::string body) {
  apiserver::ApiRequest r;
  r.method = "POST";
  r.path = path;
  r.content_type = "application/json";
  r.body = std::move(body);
  return r;
}

void MustCreate(apiserver::ApiHandler& handler, const std::string& path, std::string body) {
  if (handler.Handle(Post(path, std::move(body))).code != 201) std::abort();
}

// kube-apiserver-lite on a loopback port, and a client without throttling.
struct Cluster {
  Cluster() {
    apiserver::ServerOptions options;
    options.watch_history = 200000;
    handler = std::make_unique<apiserver::ApiHandler>(options, util::RealClock::Get());
    apiserver::HttpServerOptions http;
    http.port = 0;
    server = std::make_unique<apiserver::HttpServer>(*handler, http);
    if (!server->Start().ok()) std::abort();
    client::RestConfig config;
    config.host = server->url();
    config.qps = 0;
    auto c = client::RestClient::Create(config, util::RealClock::Get());
    if (!c.ok()) std::abort();
    rest = std::move(c).value();
  }
  ~Cluster() {
    handler->Shutdown();
    server->Stop();
  }

  std::unique_ptr<apiserver::ApiHandler> handler;
  std::unique_ptr<apiserver::HttpServer> server;
  std::unique_ptr<client::RestClient> rest;
};

// One informer of T from a fresh factory: list (paginated, 500 per page as
// client-go) and decode everything into the Store. items/s = objects listed.
template <class T>
void ListIntoStore(benchmark::State& state, Cluster& cluster, size_t objects) {
  for (auto _ : state) {
    InformerFactory factory(RestListerWatcherFactory(*cluster.rest), util::RealClock::Get());
    SharedInformer<T>& informer = factory.InformerFor<T>();
    factory.Start();
    factory.WaitForCacheSync(std::chrono::seconds(120));
    if (informer.GetStore().Size() < objects) {
      state.SkipWithError("the informer did not sync every object");
      break;
    }
    state.PauseTiming();
    factory.Shutdown();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * objects));
}

void BM_ListPodsIntoStore(benchmark::State& state) {
  static Cluster* cluster = [] {
    auto* c = new Cluster();
    for (int i = 0; i < 10000; ++i) {
      MustCreate(*c->handler, "/api/v1/namespaces/default/pods", PodBody(fmt::format("pod-{}", i)));
    }
    return c;
  }();
  ListIntoStore<api::Pod>(state, *cluster, 10000);
}
BENCHMARK(BM_ListPodsIntoStore)->Name("List/10000pods")->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);

void BM_ListNodesIntoStore(benchmark::State& state) {
  static Cluster* cluster = [] {
    auto* c = new Cluster();
    for (int i = 0; i < 5000; ++i) MustCreate(*c->handler, "/api/v1/nodes", NodeBody(fmt::format("node-{}", i)));
    return c;
  }();
  ListIntoStore<api::Node>(state, *cluster, 5000);
}
BENCHMARK(BM_ListNodesIntoStore)->Name("List/5000nodes")->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);

// A synced pod informer while a writer creates `range(0)` pods through the
// server's handler (no HTTP on the write side): time until the informer's
// handler has seen every ADDED event. items/s = watch events decoded and
// applied per second, bounded by the writer too (the handler's create costs
// ~25 µs, see apiserver_bench).
void BM_WatchThroughput(benchmark::State& state) {
  const int per_iteration = static_cast<int>(state.range(0));
  Cluster cluster;
  InformerFactory factory(RestListerWatcherFactory(*cluster.rest), util::RealClock::Get());
  std::mutex mu;
  std::condition_variable cv;
  int64_t added = 0;
  ResourceEventHandlerFuncs<api::Pod> counting;
  counting.on_add = [&](const std::shared_ptr<const api::Pod>&, bool) {
    {
      std::lock_guard<std::mutex> l(mu);
      ++added;
    }
    cv.notify_all();
  };
  factory.Pods().AddEventHandler(counting);
  factory.Start();
  factory.WaitForCacheSync(std::chrono::seconds(30));
  int next = 0;
  for (auto _ : state) {
    const int64_t target = next + per_iteration;
    std::thread writer([&, from = next] {
      for (int i = from; i < from + per_iteration; ++i) {
        MustCreate(*cluster.handler, "/api/v1/namespaces/default/pods", PodBody(fmt::format("pod-{}", i)));
      }
    });
    {
      std::unique_lock<std::mutex> l(mu);
      if (!cv.wait_for(l, std::chrono::seconds(120), [&] { return added >= target; })) {
        state.SkipWithError("watch events were lost");
      }
    }
    writer.join();
    next += per_iteration;
  }
  state.SetItemsProcessed(state.iterations() * per_iteration);
  factory.Shutdown();
}
BENCHMARK(BM_WatchThroughput)->Name("Watch/podsAdded")->Arg(5000)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(4);

}  // namespace
}  // namespace ksched::informer

BENCHMARK_MAIN();
