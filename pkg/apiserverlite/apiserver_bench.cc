// Micro-benchmarks of kube-apiserver-lite's request handling (no HTTP):
// create and bind a pod, list 10k pods, fan one event out to many watchers.
//
//   build/bench/apiserver_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <string>

#include "pkg/apiserverlite/handler.h"

namespace ksched::apiserver {
namespace {

using nlohmann::json;

std::string PodBody(const std::string& name) {
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"labels", {{"app", "bench"}}}}},
              {"spec",
               {{"schedulerName", "ksched"},
                {"containers",
                 {{{"name", "c"},
                   {"image", "registry.k8s.io/pause:3.10"},
                   {"resources",
                    {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}}}}}}}}}
      .dump();
}

ApiRequest Post(const std::string& path, std::string body) {
  ApiRequest r;
  r.method = "POST";
  r.path = path;
  r.content_type = "application/json";
  r.body = std::move(body);
  return r;
}

void CreatePods(ApiHandler& h, int from, int to) {
  for (int i = from; i < to; ++i) {
    if (h.Handle(Post("/api/v1/namespaces/default/pods", PodBody(fmt::format("p{}", i))))
            .code != 201) {
      std::abort();
    }
  }
}

void BM_CreatePod(benchmark::State& state) {
  util::FakeClock clock;
  ApiHandler h(ServerOptions{}, clock);
  int i = 0;
  for (auto _ : state) {
    ApiResponse r = h.Handle(Post("/api/v1/namespaces/default/pods", PodBody(fmt::format("p{}", i++))));
    benchmark::DoNotOptimize(r.code);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CreatePod);

void BM_BindPod(benchmark::State& state) {
  util::FakeClock clock;
  ApiHandler h(ServerOptions{}, clock);
  int created = 0, next = 0;
  const std::string binding = R"({"target":{"kind":"Node","name":"node-1"}})";
  for (auto _ : state) {
    if (next == created) {
      state.PauseTiming();
      CreatePods(h, created, created + 1000);
      created += 1000;
      state.ResumeTiming();
    }
    ApiResponse r = h.Handle(Post(
        fmt::format("/api/v1/namespaces/default/pods/p{}/binding", next++), binding));
    benchmark::DoNotOptimize(r.code);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BindPod);

void BM_List10kPods(benchmark::State& state) {
  util::FakeClock clock;
  ApiHandler h(ServerOptions{}, clock);
  CreatePods(h, 0, 10000);
  ApiRequest list;
  list.method = "GET";
  list.path = "/api/v1/pods";
  size_t bytes = 0;
  for (auto _ : state) {
    ApiResponse r = h.Handle(list);
    bytes = r.body.size();
    benchmark::DoNotOptimize(r.body.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_List10kPods)->Unit(benchmark::kMillisecond);

void BM_List10kPodsWithSelectors(benchmark::State& state) {
  util::FakeClock clock;
  ApiHandler h(ServerOptions{}, clock);
  CreatePods(h, 0, 10000);
  ApiRequest list;
  list.method = "GET";
  list.path = "/api/v1/pods";
  list.query = {{"fieldSelector", "spec.nodeName=,status.phase!=Succeeded"},
                {"labelSelector", "app=bench"}};
  for (auto _ : state) {
    ApiResponse r = h.Handle(list);
    benchmark::DoNotOptimize(r.body.data());
  }
}
BENCHMARK(BM_List10kPodsWithSelectors)->Unit(benchmark::kMillisecond);

// A sink that only counts bytes (what the HTTP sink's copy costs aside).
class CountingSink : public WatchSink {
 public:
  bool Write(std::string_view line) override {
    bytes_ += line.size();
    return true;
  }
  void Close() override {}
  size_t bytes_ = 0;
};

void BM_UpdateFannedOutToWatchers(benchmark::State& state) {
  util::FakeClock clock;
  ApiHandler h(ServerOptions{}, clock);
  CreatePods(h, 0, 1);
  ObjectStore& pods = *h.store("pods");
  for (int i = 0; i < state.range(0); ++i) {
    WatchOptions options;
    options.resource_version = h.current_resource_version();
    pods.Watch(options, std::make_shared<CountingSink>());
  }
  int n = 0;
  for (auto _ : state) {
    ApiRequest patch;
    patch.method = "PATCH";
    patch.path = "/api/v1/namespaces/default/pods/p0";
    patch.content_type = "application/merge-patch+json";
    patch.body = fmt::format(R"({{"metadata":{{"annotations":{{"n":"{}"}}}}}})", n++);
    ApiResponse r = h.Handle(patch);
    benchmark::DoNotOptimize(r.code);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_UpdateFannedOutToWatchers)->Arg(1)->Arg(100);

}  // namespace
}  // namespace ksched::apiserver

BENCHMARK_MAIN();
