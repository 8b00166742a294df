// Gang scheduling (Coscheduling over scheduler-plugins' PodGroups) end to
// end: ksched (app::Server) against an in-process kube-apiserver-lite that
// serves the PodGroup CRD from manifests/crds/, driven through the REST API.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
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
#include "pkg/config/known_plugins.h"
#include "pkg/config/load.h"
#include "pkg/scheduler/plugins/registry.h"
#include "test/integration/eventually.h"

namespace ksched {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The example profile ksched ships, under the scheduler name the pods use.
constexpr char kGangConfigFile[] = "config/ksched-gang.yaml";
constexpr char kSchedulerName[] = "ksched";

constexpr char kPodGroups[] = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups";

// How long a gang's outcome may take unless a case says otherwise.
constexpr milliseconds kGangWait = seconds(15);

json Node(const std::string& name, const std::string& cpu) {
  return json{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", name}}},
              {"status",
               {{"capacity", {{"cpu", cpu}, {"memory", "16Gi"}, {"pods", "110"}}},
                {"allocatable", {{"cpu", cpu}, {"memory", "16Gi"}, {"pods", "110"}}}}}};
}

json Member(const std::string& name, const std::string& group, const std::string& cpu = "1") {
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"scheduling.x-k8s.io/pod-group", group}}}}},
              {"spec",
               {{"schedulerName", kSchedulerName},
                {"containers",
                 json::array({{{"name", "c"},
                               {"image", "registry.k8s.io/pause:3.10"},
                               {"resources", {{"requests", {{"cpu", cpu}}}}}}})}}}};
}

json PodGroup(const std::string& name, int min_member) {
  return json{{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
              {"kind", "PodGroup"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"minMember", min_member}}}};
}

class GangIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    handler_ = std::make_unique<apiserver::ApiHandler>(apiserver::ServerOptions{}, util::RealClock::Get());
    apiserver::HttpServerOptions http;
    http.port = 0;
    api_ = std::make_unique<apiserver::HttpServer>(*handler_, http);
    ASSERT_TRUE(api_->Start().ok());
    rest_.host = api_->url();
    rest_.qps = 0;
    auto c = client::RestClient::Create(rest_, util::RealClock::Get());
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    kubectl_ = std::move(c).value();
    // The CRD exactly as shipped.
    std::ifstream in("manifests/crds/scheduling.x-k8s.io_podgroups.yaml");
    ASSERT_TRUE(in) << "run from the project root";
    std::stringstream text;
    text << in.rdbuf();
    auto crd = api::YamlToJson(text.str());
    ASSERT_TRUE(crd.ok()) << crd.status().ToString();
    Create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", *crd);
  }

  void StartScheduler() {
    auto registry = scheduler::plugins::InTreeRegistry();
    ASSERT_TRUE(registry.ok()) << registry.status().ToString();
    registry_ = std::move(registry).value();
    util::StatusOr<config::KubeSchedulerConfiguration> loaded =
        config::LoadConfigFile(kGangConfigFile, registry_.Known());
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    loaded->profiles.at(0).scheduler_name = kSchedulerName;
    app::ServerOptions o;
    o.config = *loaded;
    o.rest = rest_;
    o.endpoints.secure_port = 0;
    o.endpoints.http_port = 0;
    auto s = app::Server::New(std::move(o), registry_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(s).value();
    util::Status st = server_->Start(seconds(10));
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  void TearDown() override {
    if (server_) server_->Stop();
    if (handler_) handler_->Shutdown();
    if (api_) api_->Stop();
  }

  void Create(const std::string& path, const json& obj) {
    auto r = kubectl_->Post(path, obj);
    ASSERT_TRUE(r.ok()) << path << ": " << r.status().ToString();
  }
  std::string NodeOf(const std::string& pod) {
    auto r = kubectl_->Get("/api/v1/namespaces/default/pods/" + pod);
    return r.ok() ? (*r)["spec"].value("nodeName", "") : "";
  }
  int Bound(const std::vector<std::string>& pods) {
    int n = 0;
    for (const auto& p : pods) n += NodeOf(p).empty() ? 0 : 1;
    return n;
  }
  // Whether the scheduler reported the pod unschedulable (PodScheduled=False).
  bool Unschedulable(const std::string& pod) {
    auto r = kubectl_->Get("/api/v1/namespaces/default/pods/" + pod);
    if (!r.ok()) return false;
    for (const json& c : (*r)["status"].value("conditions", json::array())) {
      if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False") return true;
    }
    return false;
  }
  json Group(const std::string& name) {
    auto r = kubectl_->Get(std::string(kPodGroups) + "/" + name);
    return r.ok() ? *r : json();
  }

  std::unique_ptr<apiserver::ApiHandler> handler_;
  std::unique_ptr<apiserver::HttpServer> api_;
  client::RestConfig rest_;
  std::unique_ptr<client::RestClient> kubectl_;
  scheduler::framework::Registry registry_;
  std::unique_ptr<app::Server> server_;
};

TEST_F(GangIntegrationTest, AGangWithRoomForTwoOfThreeStaysPendingUntilANodeIsAdded) {
  Create("/api/v1/nodes", Node("n1", "2"));
  Create(kPodGroups, PodGroup("trio", 3));
  StartScheduler();
  const std::vector<std::string> pods = {"trio-0", "trio-1", "trio-2"};
  for (const auto& p : pods) Create("/api/v1/namespaces/default/pods", Member(p, "trio"));
  // Every member is tried and reported unschedulable; none binds.
  ASSERT_TRUE(Eventually([&] {
    return Unschedulable("trio-0") && Unschedulable("trio-1") && Unschedulable("trio-2");
  }, kGangWait));
  std::this_thread::sleep_for(seconds(1));  // a bind would have followed the quorum at once
  EXPECT_EQ(Bound(pods), 0);
  // The status ksched keeps: three pods of minMember 3 -> Scheduling.
  ASSERT_TRUE(Eventually([&] { return Group("trio")["status"].value("phase", "") == "Scheduling"; }, kGangWait));
  EXPECT_TRUE(Group("trio")["status"].contains("scheduleStartTime"));

  Create("/api/v1/nodes", Node("n2", "2"));
  ASSERT_TRUE(Eventually([&] { return Bound(pods) == 3; }, seconds(30)));
  ASSERT_TRUE(Eventually([&] { return Group("trio")["status"].value("scheduled", 0) == 3; }, kGangWait));
  // Finished pods still count (the scheduler's own pod informer leaves them out).
  for (const auto& p : pods) {
    ASSERT_TRUE(kubectl_
                    ->Patch("/api/v1/namespaces/default/pods/" + p + "/status", client::PatchType::kJsonMerge,
                            json{{"status", {{"phase", "Succeeded"}}}})
                    .ok());
  }
  ASSERT_TRUE(Eventually([&] {
    json st = Group("trio")["status"];
    return st.value("phase", "") == "Finished" && st.value("succeeded", 0) == 3;
  }, kGangWait)) << Group("trio").dump();
}

TEST_F(GangIntegrationTest, TwoGangsThatCannotBothFitDoNotDeadlock) {
  // Room for four 1-cpu pods; two gangs of three.
  Create("/api/v1/nodes", Node("n1", "2"));
  Create("/api/v1/nodes", Node("n2", "2"));
  Create(kPodGroups, PodGroup("first", 3));
  std::this_thread::sleep_for(milliseconds(1100));  // creation times have whole seconds
  Create(kPodGroups, PodGroup("second", 3));
  std::vector<std::string> first, second;
  for (int i = 0; i < 3; ++i) {
    // Interleaved creation: the queue order, not the arrival order, keeps gangs apart.
    second.push_back("second-" + std::to_string(i));
    first.push_back("first-" + std::to_string(i));
    Create("/api/v1/namespaces/default/pods", Member(second.back(), "second"));
    Create("/api/v1/namespaces/default/pods", Member(first.back(), "first"));
  }
  StartScheduler();
  // One gang gets the cluster well before any Permit timeout (60 s); the
  // other keeps nothing bound.
  ASSERT_TRUE(Eventually([&] { return Bound(first) == 3 || Bound(second) == 3; }, seconds(20)));
  std::this_thread::sleep_for(seconds(1));
  EXPECT_EQ(Bound(first), 3);
  EXPECT_EQ(Bound(second), 0);
}

TEST_F(GangIntegrationTest, AMemberDeletedDuringPermitReleasesTheOthers) {
  Create("/api/v1/nodes", Node("n1", "8"));
  Create(kPodGroups, PodGroup("trio", 3));
  StartScheduler();
  // The third member is held by a scheduling gate, so the first two wait at
  // Permit (up to 60 s) for a quorum that cannot come.
  json gated = Member("trio-2", "trio");
  gated["spec"]["schedulingGates"] = json::array({{{"name", "example.com/hold"}}});
  Create("/api/v1/namespaces/default/pods", gated);
  Create("/api/v1/namespaces/default/pods", Member("trio-0", "trio"));
  Create("/api/v1/namespaces/default/pods", Member("trio-1", "trio"));
  ASSERT_TRUE(Eventually([&] {
    int waiting = 0;
    server_->Scheduler().Profile("ksched")->IterateOverWaitingPods([&](scheduler::framework::WaitingPod&) { ++waiting; });
    return waiting == 2;
  }, kGangWait));
  const auto deleted = std::chrono::steady_clock::now();
  ASSERT_TRUE(kubectl_->Delete("/api/v1/namespaces/default/pods/trio-1").ok());
  // The survivor is rejected at once (Unreserve), not after the timeout, and
  // goes back to the queue unbound.
  ASSERT_TRUE(Eventually([&] { return Unschedulable("trio-0"); }, seconds(10)));
  EXPECT_LT(std::chrono::steady_clock::now() - deleted, seconds(10));
  EXPECT_EQ(NodeOf("trio-0"), "");
  ASSERT_TRUE(Eventually([&] {
    auto info = server_->Scheduler().Queue().GetPod("trio-0", "default");
    return info.has_value() && info->unschedulable_plugins.Has("Coscheduling");
  }, kGangWait));
}

}  // namespace
}  // namespace ksched
