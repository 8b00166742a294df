#include "pkg/apiserverlite/pv_controller_simulator.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "pkg/apiserverlite/defaulting.h"
#include "pkg/apiserverlite/meta.h"

namespace ksched::apiserver {
namespace {

using nlohmann::json;

class PVControllerSimulatorTest : public ::testing::Test {
 protected:
  PVControllerSimulatorTest()
      : pvs_("persistentvolumes", rv_, 100),
        pvcs_("persistentvolumeclaims", rv_, 100),
        classes_("storageclasses.storage.k8s.io", rv_, 100),
        nodes_("nodes", rv_, 100),
        timers_(clock_),
        sim_(pvs_, pvcs_, classes_, nodes_, *ResourceTable::Default().Find("", "v1", "persistentvolumes"), timers_,
             std::chrono::seconds(1)) {
    sim_.Attach();
    // Wakes StepAndWaitFor on every write. Observers run under the store
    // mutex, so they must not take mu_ (the waiter reads the stores).
    pvcs_.AddObserver([this](const EventPtr&) { cv_.notify_all(); });
    pvs_.AddObserver([this](const EventPtr&) { cv_.notify_all(); });
  }
  ~PVControllerSimulatorTest() override { timers_.Stop(); }

  void Create(ObjectStore& store, const std::string& resource, json obj, const std::string& ns = "") {
    auto prepared = PrepareForCreate(*ResourceTable::Default().Find(resource == "storageclasses" ? "storage.k8s.io" : "",
                                                                    "v1", resource),
                                     std::move(obj), ns, clock_.WallNow());
    ASSERT_TRUE(prepared.ok());
    ASSERT_TRUE(store.Create(std::move(prepared.value())).ok());
  }
  void PV(const std::string& name, const std::string& size, const std::string& sc, json claim_ref = nullptr) {
    json pv = {{"metadata", {{"name", name}}},
               {"spec",
                {{"capacity", {{"storage", size}}},
                 {"accessModes", {"ReadWriteOnce"}},
                 {"storageClassName", sc}}}};
    if (!claim_ref.is_null()) pv["spec"]["claimRef"] = claim_ref;
    Create(pvs_, "persistentvolumes", pv);
  }
  // Creates the claim and returns the uid the server gave it.
  std::string PVC(const std::string& name, const std::string& sc, json annotations = json::object()) {
    Create(pvcs_, "persistentvolumeclaims",
           {{"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", annotations}}},
            {"spec",
             {{"accessModes", {"ReadWriteOnce"}},
              {"storageClassName", sc},
              {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}},
           "default");
    return Get(pvcs_, "default/" + name)["metadata"].value("uid", "");
  }
  void Class(const std::string& name, const std::string& mode, const std::string& provisioner) {
    Create(classes_, "storageclasses",
           {{"metadata", {{"name", name}}}, {"provisioner", provisioner}, {"volumeBindingMode", mode}});
  }
  // Steps the clock once and blocks until `pred` holds on the stores.
  bool StepAndWaitFor(const std::function<bool()>& pred) {
    clock_.Step(std::chrono::seconds(1));
    // A notification between a check and the wait is lost, so each wait is
    // bounded by a short slice.
    for (int i = 0; i < 1000; ++i) {
      if (pred()) return true;
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait_for(l, std::chrono::milliseconds(10));
    }
    return pred();
  }
  json Get(ObjectStore& store, const std::string& key) {
    ObjectPtr o = store.Get(key);
    return o ? o->object : json();
  }
  std::string Phase(ObjectStore& store, const std::string& key) {
    json o = Get(store, key);
    return o.is_object() && o.contains("status") ? o["status"].value("phase", "") : "";
  }

  util::FakeClock clock_;
  ResourceVersionClock rv_;
  ObjectStore pvs_, pvcs_, classes_, nodes_;
  TimerQueue timers_;
  PVControllerSimulator sim_;
  std::mutex mu_;
  std::condition_variable cv_;
};

TEST_F(PVControllerSimulatorTest, NewVolumesBecomeAvailable) {
  PV("pv-1", "1Gi", "local");
  EXPECT_EQ(Phase(pvs_, "pv-1"), "Pending");
  EXPECT_TRUE(StepAndWaitFor([&] { return Phase(pvs_, "pv-1") == "Available"; }));
}

TEST_F(PVControllerSimulatorTest, BindsTheClaimTheSchedulerChoseThroughClaimRef) {
  Class("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner");
  std::string uid = PVC("data", "local");
  ASSERT_FALSE(uid.empty());
  PV("pv-1", "1Gi", "local",
     {{"kind", "PersistentVolumeClaim"}, {"namespace", "default"}, {"name", "data"}, {"uid", uid}});
  // The counter moves just after the claim's write.
  ASSERT_TRUE(StepAndWaitFor([&] { return Phase(pvcs_, "default/data") == "Bound" && sim_.claims_bound() == 1; }));
  json pvc = Get(pvcs_, "default/data");
  EXPECT_EQ(pvc["spec"]["volumeName"], "pv-1");
  EXPECT_EQ(pvc["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"], "yes");
  EXPECT_EQ(pvc["status"]["capacity"]["storage"], "1Gi");
  EXPECT_EQ(Phase(pvs_, "pv-1"), "Bound");
}

TEST_F(PVControllerSimulatorTest, LeavesWaitForFirstConsumerClaimsToTheScheduler) {
  Class("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner");
  PV("pv-1", "1Gi", "local");
  PVC("data", "local");
  ASSERT_TRUE(StepAndWaitFor([&] { return Phase(pvs_, "pv-1") == "Available"; }));
  EXPECT_EQ(Phase(pvcs_, "default/data"), "Pending");
  EXPECT_EQ(sim_.claims_bound(), 0u);
}

TEST_F(PVControllerSimulatorTest, BindsImmediateClaimsToTheSmallestAvailableVolume) {
  Class("fast", "Immediate", "kubernetes.io/no-provisioner");
  PV("big", "10Gi", "fast");
  PV("small", "2Gi", "fast");
  PV("other-class", "1Gi", "slow");
  ASSERT_TRUE(StepAndWaitFor([&] { return Phase(pvs_, "small") == "Available"; }));
  std::string uid = PVC("data", "fast");
  ASSERT_TRUE(StepAndWaitFor([&] { return Phase(pvcs_, "default/data") == "Bound"; }));
  EXPECT_EQ(Get(pvcs_, "default/data")["spec"]["volumeName"], "small");
  EXPECT_EQ(Get(pvs_, "small")["spec"]["claimRef"]["uid"], uid);
  EXPECT_EQ(Get(pvs_, "small")["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"], "yes");
}

TEST_F(PVControllerSimulatorTest, ProvisionsForTheSelectedNode) {
  Class("dynamic", "WaitForFirstConsumer", "csi.example.com");
  Create(nodes_, "nodes", {{"metadata", {{"name", "node-1"}, {"labels", {{"kubernetes.io/hostname", "host-1"}}}}}});
  std::string uid = PVC("data", "dynamic", {{"volume.kubernetes.io/selected-node", "node-1"}});
  ASSERT_TRUE(StepAndWaitFor([&] { return Phase(pvcs_, "default/data") == "Bound"; }));
  json pv = Get(pvs_, "pvc-" + uid);
  ASSERT_TRUE(pv.is_object());
  EXPECT_EQ(pv["spec"]["capacity"]["storage"], "1Gi");
  EXPECT_EQ(pv["spec"]["storageClassName"], "dynamic");
  EXPECT_EQ(pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"][0],
            "host-1");
  EXPECT_EQ(pv["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"], "csi.example.com");
  EXPECT_EQ(Get(pvcs_, "default/data")["spec"]["volumeName"], "pvc-" + uid);
  EXPECT_EQ(sim_.volumes_provisioned(), 1u);
  // A class without a provisioner never provisions.
  Class("manual", "WaitForFirstConsumer", "kubernetes.io/no-provisioner");
  PVC("manual-claim", "manual", {{"volume.kubernetes.io/selected-node", "node-1"}});
  PV("trigger", "1Gi", "none");
  ASSERT_TRUE(StepAndWaitFor([&] { return Phase(pvs_, "trigger") == "Available"; }));
  EXPECT_EQ(Phase(pvcs_, "default/manual-claim"), "Pending");
  EXPECT_EQ(sim_.volumes_provisioned(), 1u);
}

}  // namespace
}  // namespace ksched::apiserver
