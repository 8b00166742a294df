// DynamicResources end to end: ksched (app::Server, the default profile)
// against an in-process kube-apiserver-lite with the simulated kubelet and
// resource-claim controller, driven through the REST API. Pods ask for
// devices that ResourceSlices publish on some nodes; ksched allocates them,
// writes the claims (finalizer, allocation, reservedFor) and binds.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/api/resource_codec.h"
#include "pkg/client/resource_path.h"
#include "test/integration/scheduler_fixture.h"

namespace ksched {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kDriver[] = "gpu.example.com";
constexpr char kClass[] = "gpu.example.com";
constexpr char kNs[] = "default";

// A slice of `node` with one device per model, named gpu-0, gpu-1, ...
json Slice(const std::string& node, const std::vector<std::string>& models) {
  json devices = json::array();
  for (size_t i = 0; i < models.size(); ++i) {
    devices.push_back({{"name", "gpu-" + std::to_string(i)}, {"attributes", {{"model", {{"string", models[i]}}}}}});
  }
  return json{{"metadata", {{"name", node + "-gpus"}}},
              {"spec",
               {{"driver", kDriver},
                {"nodeName", node},
                {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
                {"devices", devices}}}};
}

json Request(const std::string& selector = "", const std::string& mode = "ExactCount") {
  json exactly = {{"deviceClassName", kClass}, {"allocationMode", mode}};
  if (!selector.empty()) exactly["selectors"] = json::array({{{"cel", {{"expression", selector}}}}});
  return json{{"name", "gpu"}, {"exactly", exactly}};
}

json ClaimSpec(const json& request) { return json{{"devices", {{"requests", json::array({request})}}}}; }

json Claim(const std::string& name, const json& request = Request()) {
  return json{{"metadata", {{"name", name}}}, {"spec", ClaimSpec(request)}};
}

// A pod of ksched with one claim entry "gpu": the named claim, or a
// template.
json Pod(const std::string& name, const std::string& claim, bool from_template = false) {
  json entry = {{"name", "gpu"}, {from_template ? "resourceClaimTemplateName" : "resourceClaimName", claim}};
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", kNs}}},
              {"spec",
               {{"schedulerName", "ksched"},
                {"resourceClaims", json::array({entry})},
                {"containers",
                 json::array({{{"name", "c"},
                               {"image", "registry.k8s.io/pause:3.10"},
                               {"resources", {{"claims", json::array({{{"name", "gpu"}}})}}}}})}}}};
}

class DraSchedulingIntegrationTest : public integration::SchedulerFixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StartApiServer({}, milliseconds(50)));
    for (const char* n : {"node-a", "node-b"}) CreateNode(integration::Node(n, "4", {{"kubernetes.io/hostname", n}}));
    Create(client::CollectionPath<api::DeviceClass>(),
           json{{"metadata", {{"name", kClass}}},
                {"spec",
                 {{"selectors", json::array({{{"cel", {{"expression", "device.driver == 'gpu.example.com'"}}}}})}}}});
  }

  void CreateSlice(const json& slice) { Create(client::CollectionPath<api::ResourceSlice>(), slice); }
  void CreateClaim(const json& claim) { Create(client::CollectionPath<api::ResourceClaim>(kNs), claim); }
  json GetClaim(const std::string& name) { return GetObject(client::ObjectPath<api::ResourceClaim>(kNs, name)); }
  std::string WaitBound(const std::string& pod) { return SchedulerFixture::WaitBound(pod, seconds(15)); }
  // The devices of the claim's allocation, as "pool/device".
  std::vector<std::string> AllocatedDevices(const json& claim) {
    std::vector<std::string> out;
    if (!claim.is_object() || !claim.contains("status") || !claim["status"].contains("allocation")) return out;
    for (const json& r : claim["status"]["allocation"]["devices"]["results"]) {
      EXPECT_EQ(r.value("driver", ""), kDriver);
      EXPECT_EQ(r.value("request", ""), "gpu");
      out.push_back(r.value("pool", "") + "/" + r.value("device", ""));
    }
    return out;
  }
};

// One GPU on node-a: the first pod gets it (allocation for node-a, reserved
// for the pod, finalizer); the second waits with kube's reason until the
// first pod is deleted and the controller frees the device.
TEST_F(DraSchedulingIntegrationTest, TheOnlyDeviceGoesToOnePodAtATime) {
  CreateSlice(Slice("node-a", {"A100"}));
  CreateClaim(Claim("first"));
  CreateClaim(Claim("second"));
  StartScheduler();

  CreatePod(Pod("p1", "first"));
  ASSERT_EQ(WaitBound("p1"), "node-a");
  json claim = GetClaim("first");
  EXPECT_EQ(AllocatedDevices(claim), std::vector<std::string>{"node-a/gpu-0"});
  const json& selector = claim["status"]["allocation"]["nodeSelector"];
  EXPECT_EQ(selector["nodeSelectorTerms"][0]["matchFields"][0],
            (json{{"key", "metadata.name"}, {"operator", "In"}, {"values", {"node-a"}}}))
      << claim.dump();
  ASSERT_EQ(claim["status"]["reservedFor"].size(), 1u) << claim.dump();
  EXPECT_EQ(claim["status"]["reservedFor"][0]["resource"], "pods");
  EXPECT_EQ(claim["status"]["reservedFor"][0]["name"], "p1");
  EXPECT_EQ(claim["status"]["reservedFor"][0]["uid"], GetPod("p1")["metadata"]["uid"]);
  EXPECT_EQ(claim["metadata"]["finalizers"], json::array({"resource.kubernetes.io/delete-protection"}));

  CreatePod(Pod("p2", "second"));
  EXPECT_EQ(WaitUnschedulableMessage("p2"),
            "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes "
            "are available: 2 Preemption is not helpful for scheduling.");
  EXPECT_TRUE(NodeOf("p2").empty());
  EXPECT_TRUE(AllocatedDevices(GetClaim("second")).empty());

  // The simulated kubelet ends p1; the controller drops its reservation and
  // the allocation; the deallocation event brings p2 back.
  auto deleted = kubectl_->Delete("/api/v1/namespaces/default/pods/p1");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  ASSERT_EQ(WaitBound("p2"), "node-a");
  EXPECT_EQ(AllocatedDevices(GetClaim("second")), std::vector<std::string>{"node-a/gpu-0"});
  EXPECT_TRUE(AllocatedDevices(GetClaim("first")).empty());
}

// A claim from a template: the pod waits at PreEnqueue until the
// controller created the claim and recorded it in the pod's status.
TEST_F(DraSchedulingIntegrationTest, ClaimFromATemplate) {
  CreateSlice(Slice("node-b", {"A100"}));
  Create(client::CollectionPath<api::ResourceClaimTemplate>(kNs),
         json{{"metadata", {{"name", "one-gpu"}}}, {"spec", {{"spec", ClaimSpec(Request())}}}});
  StartScheduler();
  CreatePod(Pod("p", "one-gpu", /*from_template=*/true));
  ASSERT_EQ(WaitBound("p"), "node-b");
  json pod = GetPod("p");
  ASSERT_EQ(pod["status"]["resourceClaimStatuses"].size(), 1u) << pod.dump();
  const std::string claim_name = pod["status"]["resourceClaimStatuses"][0].value("resourceClaimName", "");
  json claim = GetClaim(claim_name);
  EXPECT_EQ(AllocatedDevices(claim), std::vector<std::string>{"node-b/gpu-0"});
  EXPECT_EQ(claim["status"]["reservedFor"][0]["uid"], pod["metadata"]["uid"]);
  EXPECT_EQ(claim["metadata"]["ownerReferences"][0]["uid"], pod["metadata"]["uid"]);
}

// A CEL selector on an attribute decides the node.
TEST_F(DraSchedulingIntegrationTest, SelectorOnAnAttributeChoosesTheNode) {
  CreateSlice(Slice("node-a", {"A100"}));
  CreateSlice(Slice("node-b", {"A100", "H100"}));
  CreateClaim(Claim("h100", Request("device.attributes[\"gpu.example.com\"].model == \"H100\"")));
  StartScheduler();
  CreatePod(Pod("p", "h100"));
  ASSERT_EQ(WaitBound("p"), "node-b");
  EXPECT_EQ(AllocatedDevices(GetClaim("h100")), std::vector<std::string>{"node-b/gpu-1"});
}

// allocationMode All takes every matching device of the node.
TEST_F(DraSchedulingIntegrationTest, AllocationModeAllTakesEveryDevice) {
  CreateSlice(Slice("node-a", {"A100", "A100", "A100"}));
  CreateClaim(Claim("all", Request("", "All")));
  StartScheduler();
  CreatePod(Pod("p", "all"));
  ASSERT_EQ(WaitBound("p"), "node-a");
  EXPECT_EQ(AllocatedDevices(GetClaim("all")),
            (std::vector<std::string>{"node-a/gpu-0", "node-a/gpu-1", "node-a/gpu-2"}));
}

}  // namespace
}  // namespace ksched
