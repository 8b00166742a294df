#include "test/integration/scheduler_fixture.h"

#include "pkg/config/load.h"
#include "pkg/scheduler/plugins/registry.h"
#include "test/integration/eventually.h"

namespace ksched::integration {

using nlohmann::json;

json Node(const std::string& name, const std::string& cpu, json labels, json taints) {
  const json resources = {{"cpu", cpu}, {"memory", "16Gi"}, {"pods", "110"}};
  return json{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", name}, {"labels", std::move(labels)}}},
              {"spec", {{"taints", std::move(taints)}}},
              {"status", {{"capacity", resources}, {"allocatable", resources}}}};
}

void SchedulerFixture::StartApiServer(apiserver::ServerOptions options, std::optional<util::Duration> kubelet_delay) {
  LoopbackApiServerOptions o;
  o.server = std::move(options);
  o.server.graceful_pod_deletion = kubelet_delay.has_value();
  o.simulation_delay = kubelet_delay;
  kubectl_ = nullptr;
  api_.reset();
  util::StatusOr<std::unique_ptr<LoopbackApiServer>> started = LoopbackApiServer::Start(o);
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  api_ = std::move(started).value();
  kubectl_ = &api_->client();
}

void SchedulerFixture::StartScheduler(const std::string& yaml,
                                      const std::function<void(app::ServerOptions&)>& adjust) {
  config::LoadResult loaded = config::LoadConfig(yaml, "test-config.yaml", scheduler::plugins::InTreePlugins());
  std::string errors;
  for (const config::FieldError& e : loaded.errors) errors += e.ToString() + "\n";
  ASSERT_TRUE(loaded.config.has_value()) << errors;
  StartScheduler(*std::move(loaded.config), adjust);
}

void SchedulerFixture::StartScheduler(config::KubeSchedulerConfiguration config,
                                      const std::function<void(app::ServerOptions&)>& adjust) {
  ASSERT_NE(api_, nullptr) << "StartApiServer first";
  auto registry = scheduler::plugins::InTreeRegistry();
  ASSERT_TRUE(registry.ok()) << registry.status().ToString();
  registry_ = std::move(registry).value();
  app::ServerOptions o;
  o.config = std::move(config);
  o.rest = api_->rest();
  o.endpoints.secure_port = 0;
  o.endpoints.http_port = 0;
  if (adjust) adjust(o);
  auto s = app::Server::New(std::move(o), registry_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  server_ = std::move(s).value();
  util::Status st = server_->Start(std::chrono::seconds(10));
  ASSERT_TRUE(st.ok()) << st.ToString();
}

void SchedulerFixture::TearDown() {
  if (server_) server_->Stop();
  server_.reset();
  kubectl_ = nullptr;
  api_.reset();
}

void SchedulerFixture::Create(const std::string& path, const json& obj) {
  ASSERT_NE(kubectl_, nullptr) << "StartApiServer first";
  auto r = kubectl_->Post(path, obj);
  ASSERT_TRUE(r.ok()) << path << ": " << r.status().ToString();
}

json SchedulerFixture::GetObject(const std::string& path) {
  auto r = kubectl_->Get(path);
  return r.ok() ? *r : json();
}

json SchedulerFixture::GetPod(const std::string& name) { return GetObject("/api/v1/namespaces/default/pods/" + name); }

std::string SchedulerFixture::NodeOf(const std::string& pod) {
  json p = GetPod(pod);
  if (!p.is_object()) return "";
  return p["spec"].value("nodeName", "");
}

std::string SchedulerFixture::WaitBound(const std::string& pod, std::chrono::milliseconds timeout) {
  std::string node;
  Eventually([&] { return !(node = NodeOf(pod)).empty(); }, timeout);
  return node;
}

std::optional<std::string> SchedulerFixture::UnschedulableMessage(const std::string& pod) {
  json p = GetPod(pod);
  if (!p.is_object() || !p.contains("status")) return std::nullopt;
  for (const json& c : p["status"].value("conditions", json::array())) {
    if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False") return c.value("message", "");
  }
  return std::nullopt;
}

std::string SchedulerFixture::WaitUnschedulableMessage(const std::string& pod, std::chrono::milliseconds timeout) {
  std::optional<std::string> msg;
  Eventually([&] { return (msg = UnschedulableMessage(pod)).has_value(); }, timeout);
  return msg.value_or("");
}

}  // namespace ksched::integration
