// SchedulerFixture: the gtest fixture of the integration tests that run
// ksched (app::Server: informers, queue, the in-tree plugins, binding)
// against kube-apiserver-lite on loopback, and drive it the way a user
// drives a cluster: objects created and read through the REST API.
//
// Ownership: owns the API server (LoopbackApiServer, with its client
// `kubectl_`), the plugin registry and at most one app::Server. TearDown
// stops the scheduler before the API server; a test may call it and start
// both again.
//
// Thread-safety: call everything from the test's thread. The helpers only
// read and write through the API, so they may run while the scheduler
// works on its own threads.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cmd/ksched/server.h"
#include "pkg/config/types.h"
#include "pkg/scheduler/framework/registry.h"
#include "test/integration/loopback_api_server.h"

namespace ksched::integration {

// The profile the tests schedule with: the defaults, under the scheduler
// name "ksched", leader election off.
inline constexpr char kKschedConfig[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: ksched
)";

// A Node with `cpu` CPUs, 16Gi of memory and room for 110 pods (capacity
// and allocatable alike).
nlohmann::json Node(const std::string& name, const std::string& cpu, nlohmann::json labels = nlohmann::json::object(),
                    nlohmann::json taints = nlohmann::json::array());

class SchedulerFixture : public ::testing::Test {
 protected:
  // Starts the API server and kubectl_ (replacing any earlier ones).
  // `kubelet_delay`: with a value, the simulated kubelets and controllers
  // act after it, and bound pods are deleted gracefully for them to finish.
  void StartApiServer(apiserver::ServerOptions options = {}, std::optional<util::Duration> kubelet_delay = {});

  // Starts app::Server on `yaml` (a KubeSchedulerConfiguration, loaded
  // against the in-tree plugins) or on `config`, with no listeners;
  // `adjust` may set further options (binding client, feature gates,
  // metrics) before the server is built. Waits up to 10 s for the caches.
  void StartScheduler(const std::string& yaml = kKschedConfig,
                      const std::function<void(app::ServerOptions&)>& adjust = {});
  void StartScheduler(config::KubeSchedulerConfiguration config,
                      const std::function<void(app::ServerOptions&)>& adjust = {});

  void TearDown() override;

  // POSTs `obj` to the collection `path`; failing is a fatal test failure.
  void Create(const std::string& path, const nlohmann::json& obj);
  void CreateNode(const nlohmann::json& node) { Create("/api/v1/nodes", node); }
  // In namespace "default", as every pod helper here.
  void CreatePod(const nlohmann::json& pod) { Create("/api/v1/namespaces/default/pods", pod); }
  // The object at `path`, or null when it cannot be read.
  nlohmann::json GetObject(const std::string& path);
  nlohmann::json GetPod(const std::string& name);
  // The pod's node ("" while unbound or missing).
  std::string NodeOf(const std::string& pod);
  // Waits until the pod is bound; returns its node ("" on timeout).
  std::string WaitBound(const std::string& pod, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // The message of the pod's PodScheduled=False condition, once the
  // scheduler wrote one.
  std::optional<std::string> UnschedulableMessage(const std::string& pod);
  // Waits for that message ("" on timeout).
  std::string WaitUnschedulableMessage(const std::string& pod,
                                       std::chrono::milliseconds timeout = std::chrono::seconds(10));

  std::unique_ptr<LoopbackApiServer> api_;
  client::RestClient* kubectl_ = nullptr;  // api_'s client
  scheduler::framework::Registry registry_;
  std::unique_ptr<app::Server> server_;
};

}  // namespace ksched::integration
