// Gang scheduling (Coscheduling over scheduler-plugins' PodGroups) end to
// end: ksched (app::Server) against an in-process kube-apiserver-lite that
// serves the PodGroup CRD from manifests/crds/, driven through the REST API.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/api/yaml.h"
#include "pkg/config/load.h"
#include "pkg/scheduler/plugins/registry.h"
#include "test/integration/eventually.h"
#include "test/integration/scheduler_fixture.h"

namespace ksched {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using integration::Node;

// The example profile ksched ships, under the scheduler name the pods use.
constexpr char kGangConfigFile[] = "config/ksched-gang.yaml";
constexpr char kSchedulerName[] = "ksched";

constexpr char kPodGroups[] = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups";

// How long a gang's outcome may take unless a case says otherwise.
constexpr milliseconds kGangWait = seconds(15);

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

class GangIntegrationTest : public integration::SchedulerFixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StartApiServer());
    // The CRD exactly as shipped.
    std::ifstream in("manifests/crds/scheduling.x-k8s.io_podgroups.yaml");
    ASSERT_TRUE(in) << "run from the project root";
    std::stringstream text;
    text << in.rdbuf();
    auto crd = api::YamlToJson(text.str());
    ASSERT_TRUE(crd.ok()) << crd.status().ToString();
    Create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", *crd);
  }

  // The shipped gang profile, renamed to the pods' scheduler name.
  void StartScheduler() {
    util::StatusOr<config::KubeSchedulerConfiguration> loaded =
        config::LoadConfigFile(kGangConfigFile, scheduler::plugins::InTreePlugins());
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    loaded->profiles.at(0).scheduler_name = kSchedulerName;
    SchedulerFixture::StartScheduler(*std::move(loaded));
  }

  int Bound(const std::vector<std::string>& pods) {
    int n = 0;
    for (const auto& p : pods) n += NodeOf(p).empty() ? 0 : 1;
    return n;
  }
  // Whether the scheduler reported the pod unschedulable (PodScheduled=False).
  bool Unschedulable(const std::string& pod) { return UnschedulableMessage(pod).has_value(); }
  json Group(const std::string& name) { return GetObject(std::string(kPodGroups) + "/" + name); }
};

TEST_F(GangIntegrationTest, AGangWithRoomForTwoOfThreeStaysPendingUntilANodeIsAdded) {
  CreateNode(Node("n1", "2"));
  Create(kPodGroups, PodGroup("trio", 3));
  StartScheduler();
  const std::vector<std::string> pods = {"trio-0", "trio-1", "trio-2"};
  for (const auto& p : pods) CreatePod(Member(p, "trio"));
  // Every member is tried and reported unschedulable; none binds.
  ASSERT_TRUE(Eventually([&] {
    return Unschedulable("trio-0") && Unschedulable("trio-1") && Unschedulable("trio-2");
  }, kGangWait));
  std::this_thread::sleep_for(seconds(1));  // a bind would have followed the quorum at once
  EXPECT_EQ(Bound(pods), 0);
  // The status ksched keeps: three pods of minMember 3 -> Scheduling.
  ASSERT_TRUE(Eventually([&] { return Group("trio")["status"].value("phase", "") == "Scheduling"; }, kGangWait));
  EXPECT_TRUE(Group("trio")["status"].contains("scheduleStartTime"));

  CreateNode(Node("n2", "2"));
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

// Members wait at Permit on binding threads; a gang larger than the binding
// pool's busy threads (8) still gathers, as each wait makes room for the next
// member's binding cycle.
TEST_F(GangIntegrationTest, AGangLargerThanTheBusyBindingThreadsGathers) {
  for (int i = 0; i < 3; ++i) CreateNode(Node("n" + std::to_string(i), "4"));
  Create(kPodGroups, PodGroup("dozen", 12));
  std::vector<std::string> pods;
  for (int i = 0; i < 12; ++i) {
    pods.push_back("dozen-" + std::to_string(i));
    CreatePod(Member(pods.back(), "dozen"));
  }
  StartScheduler();
  ASSERT_TRUE(Eventually([&] { return Bound(pods) == 12; }, kGangWait));
}

TEST_F(GangIntegrationTest, TwoGangsThatCannotBothFitDoNotDeadlock) {
  // Room for four 1-cpu pods; two gangs of three.
  CreateNode(Node("n1", "2"));
  CreateNode(Node("n2", "2"));
  Create(kPodGroups, PodGroup("first", 3));
  std::this_thread::sleep_for(milliseconds(1100));  // creation times have whole seconds
  Create(kPodGroups, PodGroup("second", 3));
  std::vector<std::string> first, second;
  for (int i = 0; i < 3; ++i) {
    // Interleaved creation: the queue order, not the arrival order, keeps gangs apart.
    second.push_back("second-" + std::to_string(i));
    first.push_back("first-" + std::to_string(i));
    CreatePod(Member(second.back(), "second"));
    CreatePod(Member(first.back(), "first"));
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
  CreateNode(Node("n1", "8"));
  Create(kPodGroups, PodGroup("trio", 3));
  StartScheduler();
  // The third member is held by a scheduling gate, so the first two wait at
  // Permit (up to 60 s) for a quorum that cannot come.
  json gated = Member("trio-2", "trio");
  gated["spec"]["schedulingGates"] = json::array({{{"name", "example.com/hold"}}});
  CreatePod(gated);
  CreatePod(Member("trio-0", "trio"));
  CreatePod(Member("trio-1", "trio"));
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
