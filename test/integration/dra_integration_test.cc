// Dynamic Resource Allocation objects against kube-apiserver-lite on
// loopback: the server serves resource.k8s.io/v1 (list, watch, the claim's
// status subresource, defaulting), ksched's informers keep them, and the
// simulated resource-claim controller creates a pod's claim from its
// template, records it in the pod's status, and releases the claim when the
// pod goes away. The simulation runs on a fake clock that the test steps;
// waits are bounded polls on observable state.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "pkg/api/resource_codec.h"
#include "pkg/client/resource_path.h"
#include "pkg/client/rest_client.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/informer/rest_lister_watcher.h"
#include "pkg/util/clock.h"
#include "test/integration/loopback_api_server.h"

namespace ksched {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kNs[] = "team-a";

json J(const char* text) { return json::parse(text); }

class DraIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    integration::LoopbackApiServerOptions options;
    options.simulation_delay = seconds(1);
    options.simulation_clock = &sim_clock_;
    auto api = integration::LoopbackApiServer::Start(options);
    ASSERT_TRUE(api.ok()) << api.status().ToString();
    api_ = std::move(api).value();
    client_ = &api_->client();
    ASSERT_TRUE(client_->Post("/api/v1/namespaces", J(R"({"metadata": {"name": "team-a"}})")).ok());
  }

  void TearDown() override {
    if (factory_) factory_->Shutdown();
    api_.reset();
  }

  void StartInformers() {
    informer::InformerFactoryOptions options;
    factory_ = std::make_unique<informer::InformerFactory>(informer::RestListerWatcherFactory(*client_),
                                                           util::RealClock::Get(), options);
    factory_->DeviceClasses();
    factory_->ResourceClaims();
    factory_->ResourceClaimTemplates();
    factory_->ResourceSlices();
    factory_->Start();
    for (const auto& [resource, ok] : factory_->WaitForCacheSync(seconds(30))) EXPECT_TRUE(ok) << resource;
  }

  // Steps the simulation's clock once, then polls `pred` for up to ~10 s.
  static bool StepAndWaitFor(util::FakeClock& clock, const std::function<bool()>& pred) {
    clock.Step(seconds(1));
    const auto deadline = std::chrono::steady_clock::now() + seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      std::unique_lock<std::mutex> lock(wait_mu_);
      wait_cv_.wait_for(lock, milliseconds(10));
    }
    return pred();
  }

  json MustGet(const std::string& path) {
    auto got = client_->Get(path);
    EXPECT_TRUE(got.ok()) << path << ": " << got.status().ToString();
    return got.ok() ? *got : json();
  }

  static inline std::mutex wait_mu_;
  static inline std::condition_variable wait_cv_;
  util::FakeClock sim_clock_;  // before api_, whose simulation runs on it
  std::unique_ptr<integration::LoopbackApiServer> api_;
  client::RestClient* client_ = nullptr;  // api_'s
  std::unique_ptr<informer::InformerFactory> factory_;
};

TEST_F(DraIntegrationTest, ServesTheFourResourcesToInformers) {
  StartInformers();
  ASSERT_TRUE(client_
                  ->Post(client::CollectionPath<api::DeviceClass>(),
                         J(R"({"metadata": {"name": "gpu.example.com"},
                               "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}})"))
                  .ok());
  ASSERT_TRUE(client_
                  ->Post(client::CollectionPath<api::ResourceSlice>(),
                         J(R"({"metadata": {"name": "node-1-gpu"},
                               "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                                        "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                                        "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "A100"}},
                                                     "capacity": {"memory": {"value": "40Gi"}}}]}})"))
                  .ok());
  // A claim written directly: the server defaults the request and drops a
  // status sent with the create.
  auto created = client_->Post(client::CollectionPath<api::ResourceClaim>(kNs),
                               J(R"({"metadata": {"name": "shared"},
                                     "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
                                     "status": {"reservedFor": [{"resource": "pods", "name": "x", "uid": "u"}]}})"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ((*created)["spec"]["devices"]["requests"][0]["exactly"]["allocationMode"], "ExactCount");
  EXPECT_EQ((*created)["spec"]["devices"]["requests"][0]["exactly"]["count"], 1);
  EXPECT_FALSE(created->contains("status") && (*created)["status"].contains("reservedFor"));

  // The status subresource writes the status only.
  json claim = *created;
  claim["status"] = J(R"({"allocation": {"devices": {"results": [
                           {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}]}}})");
  claim["spec"]["devices"]["requests"][0]["exactly"]["count"] = 5;
  auto status_put = client_->Put(client::ObjectPath<api::ResourceClaim>(kNs, "shared", "status"), claim);
  ASSERT_TRUE(status_put.ok()) << status_put.status().ToString();
  EXPECT_EQ((*status_put)["spec"]["devices"]["requests"][0]["exactly"]["count"], 1);

  // Each resource has its own informer: wait until every one has caught up.
  const auto& claims = factory_->ResourceClaims().GetStore();
  ASSERT_TRUE(StepAndWaitFor(sim_clock_, [&] {
    auto c = claims.Get(std::string(kNs) + "/shared");
    return c && c->status.allocation.has_value() &&
           factory_->ResourceSlices().GetStore().Get("node-1-gpu") != nullptr &&
           factory_->DeviceClasses().GetStore().Get("gpu.example.com") != nullptr;
  }));
  auto seen = claims.Get(std::string(kNs) + "/shared");
  EXPECT_EQ(seen->status.allocation->devices.results[0].device, "gpu-0");
  auto slice = factory_->ResourceSlices().GetStore().Get("node-1-gpu");
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->spec.devices[0].capacity.at("memory").value, "40Gi");
  EXPECT_NE(factory_->DeviceClasses().GetStore().Get("gpu.example.com"), nullptr);

  // Field selectors a DRA driver's informer uses.
  auto by_node = client_->Get(client::CollectionPath<api::ResourceSlice>(), {{"fieldSelector", "spec.nodeName=node-2"}});
  ASSERT_TRUE(by_node.ok()) << by_node.status().ToString();
  EXPECT_TRUE((*by_node)["items"].empty());
}

TEST_F(DraIntegrationTest, ClaimControllerCreatesTheClaimAndReleasesIt) {
  StartInformers();
  ASSERT_TRUE(client_
                  ->Post(client::CollectionPath<api::ResourceClaimTemplate>(kNs),
                         J(R"({"metadata": {"name": "single-gpu"},
                               "spec": {"metadata": {"labels": {"app": "trainer"}, "annotations": {"team": "a"}},
                                        "spec": {"devices": {"requests": [
                                          {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}})"))
                  .ok());
  auto pod = client_->Post(client::CollectionPath<api::Pod>(kNs),
                           J(R"({"metadata": {"name": "trainer-0"},
                                 "spec": {"containers": [{"name": "c", "image": "i"}],
                                          "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}]}})"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  const std::string pod_uid = (*pod)["metadata"]["uid"];

  // The claim appears, owned by the pod, and the pod's status names it.
  const auto& claims = factory_->ResourceClaims().GetStore();
  ASSERT_TRUE(StepAndWaitFor(sim_clock_, [&] { return claims.Size() == 1; }));
  std::shared_ptr<const api::ResourceClaim> claim = claims.List()[0];
  const std::string name = claim->metadata.name;
  EXPECT_EQ(name.rfind("trainer-0-gpu-", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("trainer-0-gpu-").size() + 5);
  EXPECT_EQ(claim->metadata.annotations.at("resource.kubernetes.io/pod-claim-name"), "gpu");
  EXPECT_EQ(claim->metadata.annotations.at("team"), "a");
  EXPECT_EQ(claim->metadata.labels.at("app"), "trainer");
  ASSERT_EQ(claim->metadata.owner_references.size(), 1u);
  EXPECT_EQ(claim->metadata.owner_references[0].kind, "Pod");
  EXPECT_EQ(claim->metadata.owner_references[0].uid, pod_uid);
  EXPECT_EQ(claim->metadata.owner_references[0].controller, std::optional<bool>(true));
  EXPECT_EQ(claim->spec.devices.requests[0].exactly->count, 1);
  ASSERT_TRUE(StepAndWaitFor(sim_clock_, [&] {
    json p = MustGet(client::ObjectPath<api::Pod>(kNs, "trainer-0"));
    return p["status"].contains("resourceClaimStatuses");
  }));
  json got = MustGet(client::ObjectPath<api::Pod>(kNs, "trainer-0"));
  json want = J(R"([{"name": "gpu"}])");
  want[0]["resourceClaimName"] = name;
  EXPECT_EQ(got["status"]["resourceClaimStatuses"], want);
  // Further passes change nothing: still one claim.
  sim_clock_.Step(seconds(5));
  EXPECT_EQ(claims.Size(), 1u);

  // What a scheduler writes: the protection finalizer, then the allocation
  // and the reservation for the pod.
  json object = MustGet(client::ObjectPath<api::ResourceClaim>(kNs, name));
  object["metadata"]["finalizers"] = J(R"(["resource.kubernetes.io/delete-protection"])");
  auto with_finalizer = client_->Put(client::ObjectPath<api::ResourceClaim>(kNs, name), object);
  ASSERT_TRUE(with_finalizer.ok()) << with_finalizer.status().ToString();
  json status_body = *with_finalizer;
  status_body["status"] = J(R"({"allocation": {"devices": {"results": [
                                 {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}]}},
                               "reservedFor": [{"resource": "pods", "name": "trainer-0"}]})");
  status_body["status"]["reservedFor"][0]["uid"] = pod_uid;
  ASSERT_TRUE(client_->Put(client::ObjectPath<api::ResourceClaim>(kNs, name, "status"), status_body).ok());
  sim_clock_.Step(seconds(2));
  json still = MustGet(client::ObjectPath<api::ResourceClaim>(kNs, name));
  EXPECT_TRUE(still["status"].contains("allocation"));  // the pod still needs it

  // The pod goes away: the reservation goes, the allocation is cleared, the
  // finalizer removed and the generated claim deleted.
  ASSERT_TRUE(client_->Delete(client::ObjectPath<api::Pod>(kNs, "trainer-0")).ok());
  ASSERT_TRUE(StepAndWaitFor(sim_clock_, [&] {
    sim_clock_.Step(seconds(1));
    return claims.Size() == 0;
  }));
  EXPECT_EQ(api_->simulation()->resource_claim_controller().reservations_removed(), 1u);
  EXPECT_EQ(api_->simulation()->resource_claim_controller().claims_deallocated(), 1u);
  EXPECT_EQ(client_->Get(client::ObjectPath<api::ResourceClaim>(kNs, name)).status().code(),
            util::StatusCode::kNotFound);
}

// Past 57 characters both the pod's and the entry's names are shortened in
// proportion, so the entry stays recognisable (the real controller's rule).
TEST_F(DraIntegrationTest, LongNamesAreShortenedProportionally) {
  ASSERT_TRUE(client_
                  ->Post(client::CollectionPath<api::ResourceClaimTemplate>(kNs),
                         J(R"({"metadata": {"name": "t"},
                               "spec": {"spec": {"devices": {"requests": [
                                 {"name": "r", "exactly": {"deviceClassName": "c"}}]}}}})"))
                  .ok());
  const std::string pod_name(50, 'p');
  const std::string entry(20, 'e');
  json body = J(R"({"spec": {"containers": [{"name": "c", "image": "i"}]}})");
  body["metadata"]["name"] = pod_name;
  body["spec"]["resourceClaims"] = J(R"([{"resourceClaimTemplateName": "t"}])");
  body["spec"]["resourceClaims"][0]["name"] = entry;
  ASSERT_TRUE(client_->Post(client::CollectionPath<api::Pod>(kNs), body).ok());
  std::string name;
  ASSERT_TRUE(StepAndWaitFor(sim_clock_, [&] {
    auto list = client_->Get(client::CollectionPath<api::ResourceClaim>(kNs));
    if (!list.ok() || (*list)["items"].empty()) return false;
    name = (*list)["items"][0]["metadata"]["name"];
    return true;
  }));
  // 50 * 57 / 72 = 39 characters of the pod, 20 * 57 / 72 = 15 of the
  // entry, a hyphen between, and the server's 5 random characters.
  EXPECT_EQ(name.size(), 39u + 1 + 15 + 5) << name;
  EXPECT_EQ(name.rfind(std::string(39, 'p') + "-" + std::string(15, 'e'), 0), 0u) << name;
}

TEST_F(DraIntegrationTest, SharedClaimIsDeallocatedButKept) {
  ASSERT_TRUE(client_
                  ->Post(client::CollectionPath<api::ResourceClaim>(kNs),
                         J(R"({"metadata": {"name": "shared", "finalizers": ["resource.kubernetes.io/delete-protection"]},
                               "spec": {"devices": {"requests": [{"name": "nic", "exactly": {"deviceClassName": "nic"}}]}}})"))
                  .ok());
  std::string uids[2];
  for (int i = 0; i < 2; ++i) {
    json body = J(R"({"spec": {"containers": [{"name": "c", "image": "i"}],
                          "resourceClaims": [{"name": "nic", "resourceClaimName": "shared"}]}})");
    body["metadata"]["name"] = "p-" + std::to_string(i);
    auto pod = client_->Post(client::CollectionPath<api::Pod>(kNs), body);
    ASSERT_TRUE(pod.ok());
    uids[i] = (*pod)["metadata"]["uid"];
  }
  json claim = MustGet(client::ObjectPath<api::ResourceClaim>(kNs, "shared"));
  claim["status"] = J(R"({"allocation": {"devices": {"results": [
                           {"request": "nic", "driver": "nic", "pool": "n", "device": "eth0"}]}},
                         "reservedFor": [{"resource": "pods", "name": "p-0"}, {"resource": "pods", "name": "p-1"},
                                         {"apiGroup": "example.com", "resource": "things", "name": "t", "uid": "t-1"}]})");
  claim["status"]["reservedFor"][0]["uid"] = uids[0];
  claim["status"]["reservedFor"][1]["uid"] = uids[1];
  ASSERT_TRUE(client_->Put(client::ObjectPath<api::ResourceClaim>(kNs, "shared", "status"), claim).ok());

  // p-0 finishes: only its entry goes.
  ASSERT_TRUE(client_
                  ->Patch(client::ObjectPath<api::Pod>(kNs, "p-0", "status"), client::PatchType::kJsonMerge,
                          J(R"({"status": {"phase": "Succeeded"}})"))
                  .ok());
  ASSERT_TRUE(StepAndWaitFor(sim_clock_, [&] {
    json c = MustGet(client::ObjectPath<api::ResourceClaim>(kNs, "shared"));
    return c["status"]["reservedFor"].size() == 2;
  }));
  json c = MustGet(client::ObjectPath<api::ResourceClaim>(kNs, "shared"));
  EXPECT_EQ(c["status"]["reservedFor"][0]["name"], "p-1");
  EXPECT_EQ(c["status"]["reservedFor"][1]["resource"], "things");  // not a pod: kept
  EXPECT_TRUE(c["status"].contains("allocation"));
}

TEST_F(DraIntegrationTest, LastReservationGoneClearsTheAllocation) {
  ASSERT_TRUE(client_
                  ->Post(client::CollectionPath<api::ResourceClaim>(kNs),
                         J(R"({"metadata": {"name": "shared", "finalizers": ["resource.kubernetes.io/delete-protection"]},
                               "spec": {"devices": {"requests": [{"name": "nic", "exactly": {"deviceClassName": "nic"}}]}}})"))
                  .ok());
  json claim = MustGet(client::ObjectPath<api::ResourceClaim>(kNs, "shared"));
  claim["status"] = J(R"({"allocation": {"devices": {"results": [
                           {"request": "nic", "driver": "nic", "pool": "n", "device": "eth0"}]}},
                         "reservedFor": [{"resource": "pods", "name": "gone", "uid": "gone-uid"}]})");
  ASSERT_TRUE(client_->Put(client::ObjectPath<api::ResourceClaim>(kNs, "shared", "status"), claim).ok());
  ASSERT_TRUE(StepAndWaitFor(sim_clock_, [&] {
    json c = MustGet(client::ObjectPath<api::ResourceClaim>(kNs, "shared"));
    return !c["status"].contains("allocation");
  }));
  json c = MustGet(client::ObjectPath<api::ResourceClaim>(kNs, "shared"));
  EXPECT_FALSE(c["status"].contains("reservedFor"));
  EXPECT_FALSE(c["metadata"].contains("finalizers"));
  // Not generated for a pod: the claim itself stays.
  sim_clock_.Step(seconds(2));
  EXPECT_TRUE(client_->Get(client::ObjectPath<api::ResourceClaim>(kNs, "shared")).ok());
}

}  // namespace
}  // namespace ksched
