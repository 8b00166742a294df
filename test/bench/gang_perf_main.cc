// gang_perf: 100 gangs of 8 pods (PodGroups, minMember 8) on 500 nodes,
// end to end: kube-apiserver-lite and ksched's app::Server in one process,
// the objects POSTed over loopback by 8 threads, as scheduler_perf's e2e
// mode does. Prints the time from the first pod's creation until every pod
// is bound, and the same pods without gangs (the default profile) for
// comparison. Usage: gang_perf [--gangs N] [--size M] [--nodes K]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cmd/ksched/server.h"
#include "pkg/api/yaml.h"
#include "pkg/apiserverlite/handler.h"
#include "pkg/apiserverlite/server.h"
#include "pkg/client/rest_client.h"
#include "pkg/config/defaults.h"
#include "pkg/config/known_plugins.h"
#include "pkg/config/load.h"
#include "pkg/scheduler/plugins/registry.h"

namespace ksched {
namespace {

using nlohmann::json;

// With gangs: the example profile ksched ships (read from the repository
// root); without: the default profile. Either under the pods' scheduler name.
constexpr char kGangConfigFile[] = "config/ksched-gang.yaml";
constexpr char kSchedulerName[] = "ksched";

struct Result {
  double seconds = 0;
  int bound = 0;
};

int Fail(const std::string& what) {
  std::fprintf(stderr, "gang_perf: %s\n", what.c_str());
  return 1;
}

// One run on a fresh API server and scheduler; `gangs` false schedules the
// same pods with the default profile.
bool Run(bool gangs, int groups, int size, int nodes, Result* out) {
  apiserver::ApiHandler handler(apiserver::ServerOptions{}, util::RealClock::Get());
  apiserver::HttpServerOptions http;
  http.port = 0;
  apiserver::HttpServer api(handler, http);
  if (!api.Start().ok()) return false;
  client::RestConfig rest;
  rest.host = api.url();
  rest.qps = 0;
  auto kubectl = client::RestClient::Create(rest, util::RealClock::Get());
  if (!kubectl.ok()) return false;
  client::RestClient& c = **kubectl;
  std::ifstream in("manifests/crds/scheduling.x-k8s.io_podgroups.yaml");
  std::stringstream text;
  text << in.rdbuf();
  auto crd = api::YamlToJson(text.str());
  if (!crd.ok() || !c.Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", *crd).ok()) return false;
  for (int i = 0; i < nodes; ++i) {
    json node = {{"apiVersion", "v1"},
                 {"kind", "Node"},
                 {"metadata", {{"name", "node-" + std::to_string(i)}}},
                 {"status",
                  {{"capacity", {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}}},
                   {"allocatable", {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}}}}}};
    if (!c.Post("/api/v1/nodes", node).ok()) return false;
  }
  for (int g = 0; gangs && g < groups; ++g) {
    json pg = {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
               {"kind", "PodGroup"},
               {"metadata", {{"name", "gang-" + std::to_string(g)}, {"namespace", "default"}}},
               {"spec", {{"minMember", size}}}};
    if (!c.Post("/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups", pg).ok()) return false;
  }

  auto registry = scheduler::plugins::InTreeRegistry();
  if (!registry.ok()) return false;
  const config::KnownPlugins known = registry->Known();
  util::StatusOr<config::KubeSchedulerConfiguration> cfg =
      gangs ? config::LoadConfigFile(kGangConfigFile, known)
            : util::StatusOr<config::KubeSchedulerConfiguration>(config::DefaultConfiguration(known));
  if (!cfg.ok()) return false;
  cfg->leader_election.leader_elect = false;
  cfg->profiles.at(0).scheduler_name = kSchedulerName;
  cfg->client_connection.qps = 5000;
  cfg->client_connection.burst = 5000;
  app::ServerOptions o;
  o.config = *cfg;
  o.rest = rest;
  o.endpoints.secure_port = 0;
  o.endpoints.http_port = 0;
  auto server = app::Server::New(std::move(o), *registry);
  if (!server.ok() || !(*server)->Start(std::chrono::seconds(30)).ok()) return false;

  const int total = groups * size;
  std::atomic<int> next{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> creators;
  std::atomic<bool> ok{true};
  for (int t = 0; t < 8; ++t) {
    creators.emplace_back([&] {
      auto mine = client::RestClient::Create(rest, util::RealClock::Get());
      if (!mine.ok()) {
        ok = false;
        return;
      }
      for (int i = next++; i < total; i = next++) {
        const int g = i % groups, m = i / groups;  // members of a gang arrive spread out
        json labels = json::object();
        if (gangs) labels["scheduling.x-k8s.io/pod-group"] = "gang-" + std::to_string(g);
        json pod = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata",
                     {{"name", "gang-" + std::to_string(g) + "-" + std::to_string(m)},
                      {"namespace", "default"},
                      {"labels", labels}}},
                    {"spec",
                     {{"schedulerName", kSchedulerName},
                      {"containers",
                       json::array({{{"name", "c"},
                                     {"image", "registry.k8s.io/pause:3.10"},
                                     {"resources", {{"requests", {{"cpu", "500m"}, {"memory", "1Gi"}}}}}}})}}}};
        if (!(*mine)->Post("/api/v1/namespaces/default/pods", pod).ok()) ok = false;
      }
    });
  }
  for (auto& t : creators) t.join();
  if (!ok) return false;
  const auto deadline = start + std::chrono::seconds(300);
  int bound = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    auto list = c.Get("/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%21%3D");
    if (list.ok()) bound = static_cast<int>((*list)["items"].size());
    if (bound == total) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  out->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out->bound = bound;
  (*server)->Stop();
  handler.Shutdown();
  api.Stop();
  return bound == total;
}

}  // namespace
}  // namespace ksched

int main(int argc, char** argv) {
  int groups = 100, size = 8, nodes = 500;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (flag == "--gangs") groups = v;
    else if (flag == "--size") size = v;
    else if (flag == "--nodes") nodes = v;
    else return ksched::Fail("unknown flag " + flag);
  }
  if (groups <= 0 || size <= 0 || nodes <= 0) return ksched::Fail("values must be positive");
  for (bool gangs : {true, false}) {
    ksched::Result r;
    bool ok = ksched::Run(gangs, groups, size, nodes, &r);
    std::printf("%-10s %d pods (%d x %d) on %d nodes: %d bound in %.2f s = %.0f pods/s\n",
                gangs ? "gangs" : "no-gangs", groups * size, groups, size, nodes, r.bound, r.seconds,
                r.seconds > 0 ? r.bound / r.seconds : 0.0);
    if (!ok) return ksched::Fail("not every pod was bound");
  }
  return 0;
}
