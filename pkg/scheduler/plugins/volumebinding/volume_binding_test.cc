#include "pkg/scheduler/plugins/volumebinding/volume_binding.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/plugins/helper/fake_handle.h"
#include "pkg/scheduler/plugins/helper/other_args.h"
#include "pkg/scheduler/plugins/score_nodes_test_util.h"

namespace ksched::scheduler::plugins::volumebinding {
namespace {

using framework::ActionType;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;
using std::chrono::seconds;

constexpr char kWFFC[] = "WaitForFirstConsumer";

// Records the PUTs and answers with a bumped resourceVersion, or `fail`.
class FakeVolumeClient final : public framework::VolumeClient {
 public:
  util::StatusOr<api::PersistentVolume> UpdatePersistentVolume(const api::PersistentVolume& pv) override {
    std::lock_guard<std::mutex> l(mu);
    if (!fail.ok()) return fail;
    api::PersistentVolume out = pv;
    out.metadata.resource_version = std::to_string(++rv);
    pvs.push_back(out);
    Signal();
    return out;
  }
  util::StatusOr<api::PersistentVolumeClaim> UpdatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc) override {
    std::lock_guard<std::mutex> l(mu);
    if (!fail.ok()) return fail;
    api::PersistentVolumeClaim out = pvc;
    out.metadata.resource_version = std::to_string(++rv);
    pvcs.push_back(out);
    Signal();
    return out;
  }
  void Signal() {
    if (!signalled) written.set_value();
    signalled = true;
  }

  std::mutex mu;
  uint64_t rv = 100;
  util::Status fail;
  std::vector<api::PersistentVolume> pvs;
  std::vector<api::PersistentVolumeClaim> pvcs;
  std::promise<void> written;
  bool signalled = false;
};

api::NodeSelectorTerm Term(const std::string& key, std::vector<std::string> values) {
  api::NodeSelectorTerm t;
  t.match_expressions.push_back({key, "In", std::move(values)});
  return t;
}

std::shared_ptr<api::Node> Node(const std::string& name, const std::string& zone = "a") {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = name;
  n->metadata.labels[std::string(kLabelHostname)] = name;
  n->metadata.labels["topology.kubernetes.io/zone"] = zone;
  return n;
}

std::shared_ptr<api::PersistentVolume> PV(const std::string& name, const std::string& size, const std::string& sc,
                                          const std::string& host = "") {
  auto pv = std::make_shared<api::PersistentVolume>();
  pv->metadata.name = name;
  pv->metadata.resource_version = "1";
  pv->spec.capacity["storage"] = api::Quantity::MustParse(size);
  pv->spec.storage_class_name = sc;
  pv->spec.access_modes = {"ReadWriteOnce"};
  if (!host.empty()) {
    pv->spec.node_affinity = api::VolumeNodeAffinity{api::NodeSelector{{Term(std::string(kLabelHostname), {host})}}};
  }
  pv->status.phase = "Available";
  return pv;
}

std::shared_ptr<api::PersistentVolumeClaim> PVC(const std::string& name, std::optional<std::string> sc,
                                                const std::string& size = "1Gi") {
  auto c = std::make_shared<api::PersistentVolumeClaim>();
  c->metadata.name = name;
  c->metadata.namespace_ = "default";
  c->metadata.uid = "uid-" + name;
  c->metadata.resource_version = "1";
  c->spec.storage_class_name = std::move(sc);
  c->spec.access_modes = {"ReadWriteOnce"};
  c->spec.resources.requests["storage"] = api::Quantity::MustParse(size);
  c->status.phase = "Pending";
  return c;
}

std::shared_ptr<api::PersistentVolumeClaim> BoundPVC(const std::string& name, const std::string& pv) {
  auto c = PVC(name, "local");
  c->spec.volume_name = pv;
  c->metadata.annotations[std::string(kAnnBindCompleted)] = "yes";
  c->status.phase = "Bound";
  return c;
}

std::shared_ptr<api::StorageClass> SC(const std::string& name, std::optional<std::string> mode,
                                      const std::string& provisioner = std::string(kNotSupportedProvisioner)) {
  auto sc = std::make_shared<api::StorageClass>();
  sc->metadata.name = name;
  sc->volume_binding_mode = std::move(mode);
  sc->provisioner = provisioner;
  return sc;
}

std::shared_ptr<api::Pod> Pod(const std::string& name, std::vector<std::string> claims) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = name;
  p->metadata.namespace_ = "default";
  p->metadata.uid = "uid-" + name;
  for (const std::string& c : claims) {
    api::Volume v;
    v.name = "vol-" + c;
    v.persistent_volume_claim = api::PersistentVolumeClaimVolumeSource{c, false};
    p->spec.volumes.push_back(v);
  }
  return p;
}

class VolumeBindingTest : public ::testing::Test {
 protected:
  VolumeBindingTest() {
    for (const char* n : {"node-1", "node-2"}) nodes_.emplace(n, framework::NodeInfo(Node(n, "a")));
    nodes_.emplace("node-3", framework::NodeInfo(Node("node-3", "b")));
    listers_.storage_classes.Set(SC("local", kWFFC));
    listers_.storage_classes.Set(SC("immediate", "Immediate"));
  }

  VolumeBinding& Plugin(util::Duration timeout = seconds(600)) {
    if (!plugin_) plugin_ = std::make_unique<VolumeBinding>(listers_, &client_, clock_, timeout, true);
    return *plugin_;
  }

  // PreFilter then Filter on every node; the per-node statuses.
  std::map<std::string, Status> Run(framework::CycleState& state, const api::Pod& pod,
                                    framework::PreFilterResult* result = nullptr, Status* pre = nullptr) {
    auto [r, s] = Plugin().PreFilter(state, pod, {});
    if (result != nullptr) *result = r;
    if (pre != nullptr) *pre = s;
    std::map<std::string, Status> out;
    if (!s.IsSuccess() && s.code() != Code::kSkip) return out;
    for (auto& [name, info] : nodes_) out[name] = Plugin().Filter(state, pod, info);
    return out;
  }

  // Run, then Reserve on `node`; fails naming the step whose status on
  // `node` was not a success.
  ::testing::AssertionResult ReservedOn(framework::CycleState& state, const api::Pod& pod, const std::string& node) {
    Status pre;
    std::map<std::string, Status> filtered = Run(state, pod, nullptr, &pre);
    auto it = filtered.find(node);
    if (it == filtered.end()) return ::testing::AssertionFailure() << "PreFilter: " << pre.ToString();
    if (!it->second.IsSuccess()) return ::testing::AssertionFailure() << "Filter: " << it->second.ToString();
    if (Status s = Plugin().Reserve(state, pod, node); !s.IsSuccess()) {
      return ::testing::AssertionFailure() << "Reserve: " << s.ToString();
    }
    return ::testing::AssertionSuccess();
  }

  // Pod "p" with claim "data", which the local PV "pv-a" on node-1 can
  // satisfy, taken through Reserve on node-1; `bound_pod_` is the pod as
  // bound there.
  ::testing::AssertionResult ReservedWithLocalVolume(framework::CycleState& state) {
    listers_.persistent_volumes.Set(PV("pv-a", "1Gi", "local", "node-1"));
    listers_.persistent_volume_claims.Set(PVC("data", "local"));
    auto pod = Pod("p", {"data"});
    listers_.pods.Set(pod);
    bound_pod_ = std::make_shared<api::Pod>(*pod);
    bound_pod_->spec.node_name = "node-1";
    return ReservedOn(state, *pod, "node-1");
  }

  // The PV controller's part after PreBind wrote pv-a's claimRef: the PV
  // write comes back, then "data" is bound to it.
  void PVControllerBindsData() {
    api::PersistentVolume pv = client_.pvs.at(0);
    pv.status.phase = "Bound";
    listers_.persistent_volumes.Set(std::make_shared<api::PersistentVolume>(pv));
    auto pvc = BoundPVC("data", "pv-a");
    pvc->spec.storage_class_name = "local";
    pvc->metadata.resource_version = "200";
    listers_.persistent_volume_claims.Set(pvc);
  }

  // Runs PreBind on its own thread; once the first write happens, calls
  // `after_write` (the PV controller's part) and steps the clock a second
  // at a time until PreBind returns (at most `max_steps` times).
  Status PreBindDriven(framework::CycleState& state, const api::Pod& pod, const std::string& node,
                       const std::function<void()>& after_write, int max_steps = 700) {
    auto fut = std::async(std::launch::async, [&] { return Plugin().PreBind(state, pod, node); });
    std::future<void> written = client_.written.get_future();
    while (written.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
      if (fut.wait_for(std::chrono::milliseconds(0)) == std::future_status::ready) return fut.get();
    }
    if (after_write) after_write();
    for (int i = 0; i < max_steps; ++i) {
      if (fut.wait_for(std::chrono::milliseconds(5)) == std::future_status::ready) return fut.get();
      clock_.Step(seconds(1));
      ++steps_;
    }
    return fut.get();
  }

  framework::InMemorySharedListers listers_;
  FakeVolumeClient client_;
  util::FakeClock clock_;
  std::unique_ptr<VolumeBinding> plugin_;
  std::map<std::string, framework::NodeInfo> nodes_;
  std::shared_ptr<api::Pod> bound_pod_;
  int steps_ = 0;
};

TEST_F(VolumeBindingTest, PodWithoutClaimsIsSkipped) {
  framework::CycleState state;
  auto pod = Pod("p", {});
  Status pre;
  auto statuses = Run(state, *pod, nullptr, &pre);
  EXPECT_EQ(pre.code(), Code::kSkip);
  for (auto& [n, s] : statuses) EXPECT_TRUE(s.IsSuccess()) << n;
  EXPECT_TRUE(Plugin().Reserve(state, *pod, "node-1").IsSuccess());
  EXPECT_EQ(Plugin().PreBindPreFlight(state, *pod, "node-1").code(), Code::kSkip);
  EXPECT_TRUE(Plugin().PreBind(state, *pod, "node-1").IsSuccess());
  EXPECT_TRUE(client_.pvs.empty());
}

TEST_F(VolumeBindingTest, PreFilterRejectsUnusableClaims) {
  framework::CycleState state;
  auto [r1, missing] = Plugin().PreFilter(state, *Pod("p", {"nope"}), {});
  EXPECT_EQ(missing.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(missing.Message(), "persistentvolumeclaim \"nope\" not found");

  auto deleting = PVC("deleting", "local");
  deleting->metadata.deletion_timestamp = api::Time();
  listers_.persistent_volume_claims.Set(deleting);
  EXPECT_EQ(Plugin().PreFilter(state, *Pod("p", {"deleting"}), {}).second.Message(),
            "persistentvolumeclaim \"deleting\" is being deleted");

  auto lost = PVC("lost", "local");
  lost->status.phase = "Lost";
  lost->spec.volume_name = "gone";
  listers_.persistent_volume_claims.Set(lost);
  EXPECT_EQ(Plugin().PreFilter(state, *Pod("p", {"lost"}), {}).second.Message(),
            "persistentvolumeclaim \"lost\" bound to non-existent persistentvolume \"gone\"");

  auto eph = Pod("p", {});
  api::Volume v;
  v.name = "scratch";
  v.ephemeral = api::EphemeralVolumeSource{};
  eph->spec.volumes.push_back(v);
  auto [r2, waiting] = Plugin().PreFilter(state, *eph, {});
  EXPECT_EQ(waiting.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(waiting.Message(),
            "waiting for ephemeral volume controller to create the persistentvolumeclaim \"p-scratch\"");
  listers_.persistent_volume_claims.Set(PVC("p-scratch", "local"));  // not owned by the pod
  EXPECT_EQ(Plugin().PreFilter(state, *eph, {}).second.Message(),
            "PVC default/p-scratch was not created for pod default/p (pod is not owner)");
}

TEST_F(VolumeBindingTest, UnboundImmediateClaimsAreUnresolvable) {
  listers_.persistent_volume_claims.Set(PVC("imm", "immediate"));
  listers_.persistent_volume_claims.Set(PVC("no-class", std::nullopt));
  auto prebound = PVC("prebound", "local");
  prebound->spec.volume_name = "pv-x";  // waits for the PV controller
  listers_.persistent_volume_claims.Set(prebound);
  for (const char* claim : {"imm", "no-class", "prebound"}) {
    framework::CycleState state;
    auto [r, s] = Plugin().PreFilter(state, *Pod("p", {claim}), {});
    EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable) << claim;
    EXPECT_EQ(s.Message(), std::string(kErrUnboundImmediate)) << claim;
  }
  // A class without volumeBindingMode is an error.
  listers_.storage_classes.Set(SC("unset", std::nullopt));
  listers_.persistent_volume_claims.Set(PVC("unset-claim", "unset"));
  framework::CycleState state;
  auto [r, s] = Plugin().PreFilter(state, *Pod("p", {"unset-claim"}), {});
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "VolumeBindingMode not set for StorageClass \"unset\"");
}

TEST_F(VolumeBindingTest, BoundClaimsFollowTheirVolumesNodeAffinity) {
  auto pv = PV("pv-1", "1Gi", "local", "node-1");
  pv->spec.claim_ref = api::ObjectReference{"PersistentVolumeClaim", "default", "data", "uid-data", "v1", "", ""};
  listers_.persistent_volumes.Set(pv);
  listers_.persistent_volume_claims.Set(BoundPVC("data", "pv-1"));
  framework::CycleState state;
  framework::PreFilterResult result;
  Status pre;
  auto statuses = Run(state, *Pod("p", {"data"}), &result, &pre);
  EXPECT_TRUE(pre.IsSuccess()) << pre.Message();
  // kube v1.34 does not narrow the nodes to a local PV's (no PreFilterResult):
  // the others are rejected by Filter, with the reason in the fitError.
  EXPECT_TRUE(result.AllNodes());
  EXPECT_TRUE(statuses["node-1"].IsSuccess());
  EXPECT_EQ(statuses["node-2"].code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(statuses["node-2"].Message(), "node(s) didn't match PersistentVolume's node affinity");  // v1.34's text
  // Already bound: nothing to write.
  EXPECT_TRUE(Plugin().Reserve(state, *Pod("p", {"data"}), "node-1").IsSuccess());
  EXPECT_EQ(Plugin().PreBindPreFlight(state, *Pod("p", {"data"}), "node-1").code(), Code::kSkip);
  EXPECT_TRUE(Plugin().PreBind(state, *Pod("p", {"data"}), "node-1").IsSuccess());
  EXPECT_TRUE(client_.pvs.empty());

  // A bound claim whose PV is gone.
  listers_.persistent_volume_claims.Set(BoundPVC("orphan", "missing-pv"));
  framework::CycleState state2;
  statuses = Run(state2, *Pod("p", {"orphan"}), &result, &pre);
  EXPECT_TRUE(result.AllNodes());
  EXPECT_EQ(statuses["node-1"].Message(), std::string(kErrReasonPVNotExist));
}

// A bound in-tree EBS PV labelled with its zone: on a node whose CSINode
// names kubernetes.io/aws-ebs as migrated, kube-scheduler checks the
// translated PV, whose zone requirement uses the CSI driver's key; nodes
// without that label do not match. Elsewhere the in-tree PV (no node
// affinity) fits.
TEST_F(VolumeBindingTest, BoundInTreeVolumesAreCheckedAsTranslatedWhereMigrated) {
  auto pv = PV("pv-ebs", "1Gi", "local");
  pv->metadata.labels["topology.kubernetes.io/zone"] = "a";
  pv->spec.aws_elastic_block_store = api::AWSElasticBlockStoreVolumeSource{};
  pv->spec.aws_elastic_block_store->volume_id = "vol-1";
  pv->spec.claim_ref = api::ObjectReference{"PersistentVolumeClaim", "default", "data", "uid-data", "v1", "", ""};
  listers_.persistent_volumes.Set(pv);
  listers_.persistent_volume_claims.Set(BoundPVC("data", "pv-ebs"));
  auto migrated = std::make_shared<api::CSINode>();
  migrated->metadata.name = "node-1";
  migrated->metadata.annotations["storage.alpha.kubernetes.io/migrated-plugins"] = "kubernetes.io/gce-pd,kubernetes.io/aws-ebs";
  listers_.csi_nodes.Set(migrated);
  auto other = std::make_shared<api::CSINode>();
  other->metadata.name = "node-2";
  other->metadata.annotations["storage.alpha.kubernetes.io/migrated-plugins"] = "kubernetes.io/gce-pd";
  listers_.csi_nodes.Set(other);
  // node-3 has the CSI zone label: the translated PV fits there.
  auto n3 = Node("node-3", "b");
  n3->metadata.labels["topology.ebs.csi.aws.com/zone"] = "a";
  nodes_.erase("node-3");
  nodes_.emplace("node-3", framework::NodeInfo(n3));
  auto csi3 = std::make_shared<api::CSINode>(*migrated);
  csi3->metadata.name = "node-3";
  listers_.csi_nodes.Set(csi3);
  framework::CycleState state;
  auto statuses = Run(state, *Pod("p", {"data"}));
  EXPECT_EQ(statuses["node-1"].code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(statuses["node-1"].Message(), "node(s) didn't match PersistentVolume's node affinity");
  EXPECT_TRUE(statuses["node-2"].IsSuccess()) << statuses["node-2"].Message();
  EXPECT_TRUE(statuses["node-3"].IsSuccess()) << statuses["node-3"].Message();

  // A translation error is the Filter's error.
  auto bad = std::make_shared<api::PersistentVolume>(*pv);
  bad->spec.aws_elastic_block_store->volume_id = "aws://%zz/vol-1";
  listers_.persistent_volumes.Set(bad);
  plugin_.reset();
  framework::CycleState state2;
  statuses = Run(state2, *Pod("p", {"data"}));
  EXPECT_EQ(statuses["node-1"].code(), Code::kError);
  EXPECT_TRUE(statuses["node-2"].IsSuccess());
}

TEST_F(VolumeBindingTest, WaitForFirstConsumerClaimsGetTheSmallestFittingVolumeOnTheNode) {
  listers_.persistent_volumes.Set(PV("pv-n1", "5Gi", "local", "node-1"));
  listers_.persistent_volumes.Set(PV("pv-n2-big", "10Gi", "local", "node-2"));
  listers_.persistent_volumes.Set(PV("pv-n2-small", "2Gi", "local", "node-2"));
  listers_.persistent_volumes.Set(PV("pv-other-class", "2Gi", "other", "node-3"));
  listers_.persistent_volume_claims.Set(PVC("data", "local", "1Gi"));
  framework::CycleState state;
  auto pod = Pod("p", {"data"});
  auto statuses = Run(state, *pod);
  EXPECT_TRUE(statuses["node-1"].IsSuccess());
  EXPECT_TRUE(statuses["node-2"].IsSuccess());
  EXPECT_EQ(statuses["node-3"].code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(statuses["node-3"].Message(), std::string(kErrReasonBindConflict));
  auto s = state.Get<StateData>(kStateKey);
  ASSERT_EQ(s->volumes_by_node["node-2"].static_bindings.size(), 1u);
  EXPECT_EQ(s->volumes_by_node["node-2"].static_bindings[0].pv->metadata.name, "pv-n2-small");
}

TEST_F(VolumeBindingTest, ReserveAssumesSoTheNextPodTakesAnotherVolumeAndUnreserveReverts) {
  listers_.persistent_volumes.Set(PV("pv-a", "1Gi", "local", "node-1"));
  listers_.persistent_volumes.Set(PV("pv-b", "2Gi", "local", "node-1"));
  listers_.persistent_volume_claims.Set(PVC("c1", "local"));
  listers_.persistent_volume_claims.Set(PVC("c2", "local"));
  listers_.persistent_volume_claims.Set(PVC("c3", "local"));

  framework::CycleState s1;
  auto p1 = Pod("p1", {"c1"});
  ASSERT_TRUE(ReservedOn(s1, *p1, "node-1"));
  auto assumed = Plugin().PVCache().Get("", "pv-a");
  ASSERT_TRUE(assumed.ok());
  ASSERT_TRUE((*assumed)->spec.claim_ref.has_value());
  EXPECT_EQ((*assumed)->spec.claim_ref->name, "c1");

  framework::CycleState s2;
  auto p2 = Pod("p2", {"c2"});
  ASSERT_TRUE(ReservedOn(s2, *p2, "node-1"));
  EXPECT_EQ((*Plugin().PVCache().Get("", "pv-b"))->spec.claim_ref->name, "c2");

  // Both PVs are taken now.
  framework::CycleState s3;
  auto p3 = Pod("p3", {"c3"});
  EXPECT_EQ(Run(s3, *p3)["node-1"].Message(), std::string(kErrReasonBindConflict));

  Plugin().Unreserve(s2, *p2, "node-1");
  Plugin().Unreserve(s2, *p2, "node-1");  // idempotent
  EXPECT_FALSE(Plugin().PVCache().IsAssumed("", "pv-b"));
  framework::CycleState s4;
  EXPECT_TRUE(Run(s4, *p3)["node-1"].IsSuccess());
  EXPECT_TRUE(Plugin().PVCache().IsAssumed("", "pv-a"));
}

TEST_F(VolumeBindingTest, DynamicProvisioningHonoursTopologyAndCapacity) {
  auto zonal = SC("zonal", kWFFC, "csi.example.com");
  api::TopologySelectorTerm term;
  term.match_label_expressions.push_back({"topology.kubernetes.io/zone", {"a"}});
  zonal->allowed_topologies.push_back(term);
  listers_.storage_classes.Set(zonal);
  listers_.persistent_volume_claims.Set(PVC("dyn", "zonal"));
  framework::CycleState state;
  auto pod = Pod("p", {"dyn"});
  auto statuses = Run(state, *pod);
  EXPECT_TRUE(statuses["node-1"].IsSuccess());
  EXPECT_EQ(statuses["node-3"].Message(), std::string(kErrReasonBindConflict));
  EXPECT_EQ(state.Get<StateData>(kStateKey)->volumes_by_node["node-1"].dynamic_provisions.size(), 1u);

  // Reserve assumes the selected-node annotation; Unreserve drops it.
  ASSERT_TRUE(Plugin().Reserve(state, *pod, "node-1").IsSuccess());
  EXPECT_EQ((*Plugin().PVCCache().Get("default", "dyn"))->metadata.annotations.at(std::string(kAnnSelectedNode)),
            "node-1");
  Plugin().Unreserve(state, *pod, "node-1");
  EXPECT_FALSE(Plugin().PVCCache().IsAssumed("default", "dyn"));

  // A claim whose provisioning started on node-2 only fits node-2.
  auto started = PVC("started", "zonal");
  started->metadata.annotations[std::string(kAnnSelectedNode)] = "node-2";
  listers_.persistent_volume_claims.Set(started);
  framework::CycleState state2;
  statuses = Run(state2, *Pod("p", {"started"}));
  EXPECT_EQ(statuses["node-1"].Message(), std::string(kErrReasonBindConflict));
  EXPECT_TRUE(statuses["node-2"].IsSuccess());

  // A driver tracking capacity without a CSIStorageCapacity of the class
  // has no room anywhere.
  auto driver = std::make_shared<api::CSIDriver>();
  driver->metadata.name = "csi.example.com";
  driver->spec.storage_capacity = true;
  listers_.csi_drivers.Set(driver);
  framework::CycleState state3;
  statuses = Run(state3, *pod);
  EXPECT_EQ(statuses["node-1"].code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(statuses["node-1"].Message(), std::string(kErrReasonNotEnoughSpace));
  // Capacity published for node-1's host segment: the claim (1Gi) fits there.
  auto capacity = std::make_shared<api::CSIStorageCapacity>();
  capacity->metadata.name = "cap-node-1";
  capacity->metadata.namespace_ = "kube-system";
  capacity->storage_class_name = "zonal";
  capacity->node_topology = api::LabelSelector{};
  capacity->node_topology->match_labels[std::string(kLabelHostname)] = "node-1";
  capacity->capacity = api::Quantity::MustParse("512Mi");
  listers_.csi_storage_capacities.Set(capacity);
  framework::CycleState state3b;
  EXPECT_EQ(Run(state3b, *pod)["node-1"].Message(), std::string(kErrReasonNotEnoughSpace));  // too small
  capacity->capacity = api::Quantity::MustParse("10Gi");
  listers_.csi_storage_capacities.Set(capacity);
  framework::CycleState state3c;
  statuses = Run(state3c, *pod);
  EXPECT_TRUE(statuses["node-1"].IsSuccess());
  EXPECT_EQ(statuses["node-2"].Message(), std::string(kErrReasonNotEnoughSpace));
  listers_.csi_storage_capacities.Delete("kube-system", "cap-node-1");

  // A class that cannot provision and has no PV.
  listers_.persistent_volume_claims.Set(PVC("static-only", "local"));
  framework::CycleState state4;
  EXPECT_EQ(Run(state4, *Pod("p", {"static-only"}))["node-1"].Message(), std::string(kErrReasonBindConflict));
}

// StorageCapacityScoring: the default shape (0 % used scores 100, 100 %
// scores 0) over what the pod's volumes would take of each node.
class StorageCapacityScoringTest : public VolumeBindingTest {
 protected:
  ScoringVolumeBinding& Scoring(std::vector<config::UtilizationShapePoint> shape = {{0, 10}, {100, 0}}) {
    if (!plugin_) {
      auto p = std::make_unique<ScoringVolumeBinding>(listers_, &client_, clock_, seconds(600), true, shape);
      scoring_ = p.get();
      plugin_ = std::move(p);
    }
    return *scoring_;
  }
  std::map<std::string, int64_t> Scores(const api::Pod& pod) {
    Scoring();
    framework::CycleState state;
    Run(state, pod);
    std::map<std::string, int64_t> out;
    framework::NodeInfoList list;
    std::vector<int64_t> per_node;
    for (auto& [name, info] : nodes_) {
      auto [score, status] = scoring_->Score(state, pod, info);
      EXPECT_TRUE(status.IsSuccess()) << status.ToString();
      out[name] = score;
      list.push_back(&info);
      per_node.push_back(score);
    }
    // The framework's way: the nodes in one run.
    EXPECT_EQ(plugins::testing::ScoreNodesOf(*scoring_, state, pod, list), per_node);
    return out;
  }
  std::shared_ptr<api::CSIStorageCapacity> Capacity(const std::string& node, const std::string& size) {
    auto c = std::make_shared<api::CSIStorageCapacity>();
    c->metadata.name = "cap-" + node;
    c->metadata.namespace_ = "kube-system";
    c->storage_class_name = "csi";
    c->node_topology = api::LabelSelector{};
    c->node_topology->match_labels[std::string(kLabelHostname)] = node;
    c->capacity = api::Quantity::MustParse(size);
    return c;
  }

  ScoringVolumeBinding* scoring_ = nullptr;
};

TEST_F(StorageCapacityScoringTest, DynamicProvisioningPrefersTheEmptierSegment) {
  listers_.storage_classes.Set(SC("csi", kWFFC, "csi.example.com"));
  auto driver = std::make_shared<api::CSIDriver>();
  driver->metadata.name = "csi.example.com";
  driver->spec.storage_capacity = true;
  listers_.csi_drivers.Set(driver);
  listers_.csi_storage_capacities.Set(Capacity("node-1", "4Gi"));
  listers_.csi_storage_capacities.Set(Capacity("node-2", "10Gi"));
  // Two claims of the class: their requests add up against one capacity.
  listers_.persistent_volume_claims.Set(PVC("a", "csi", "1Gi"));
  listers_.persistent_volume_claims.Set(PVC("b", "csi", "1Gi"));
  std::map<std::string, int64_t> scores = Scores(*Pod("p", {"a", "b"}));
  EXPECT_EQ(scores["node-1"], 50);  // 2 of 4 GiB: 50 % used
  EXPECT_EQ(scores["node-2"], 80);  // 2 of 10 GiB: 20 % used
  EXPECT_EQ(scores["node-3"], 0);   // filtered out: no capacity there
}

TEST_F(StorageCapacityScoringTest, StaticBindingsScoreTheChosenVolumes) {
  listers_.persistent_volumes.Set(PV("pv-1", "4Gi", "local", "node-1"));
  listers_.persistent_volumes.Set(PV("pv-2", "2Gi", "local", "node-2"));
  listers_.persistent_volume_claims.Set(PVC("c", "local", "1Gi"));
  std::map<std::string, int64_t> scores = Scores(*Pod("p", {"c"}));
  EXPECT_EQ(scores["node-1"], 75);  // 1 of 4 GiB
  EXPECT_EQ(scores["node-2"], 50);  // 1 of 2 GiB
}

TEST_F(StorageCapacityScoringTest, ProvisioningWithoutCapacityTrackingAndPodsWithoutVolumesScoreZero) {
  listers_.storage_classes.Set(SC("csi", kWFFC, "csi.example.com"));  // no CSIDriver: not tracked
  listers_.persistent_volume_claims.Set(PVC("a", "csi", "1Gi"));
  EXPECT_EQ(Scores(*Pod("p", {"a"}))["node-1"], 0);
  EXPECT_EQ(Scores(*Pod("q", {}))["node-1"], 0);
}

TEST_F(StorageCapacityScoringTest, ShapeFromArgsAndAFullVolume) {
  Scoring({{0, 0}, {100, 10}});  // MostAllocated-like: fuller is better
  listers_.persistent_volumes.Set(PV("pv-1", "1Gi", "local", "node-1"));
  listers_.persistent_volume_claims.Set(PVC("c", "local", "1Gi"));
  EXPECT_EQ(Scores(*Pod("p", {"c"}))["node-1"], 100);
}

TEST_F(VolumeBindingTest, PreBindWritesTheClaimRefAndWaitsForThePVController) {
  framework::CycleState state;
  ASSERT_TRUE(ReservedWithLocalVolume(state));
  const api::Pod& bound_pod = *bound_pod_;
  // A volume to bind: PreBind has work on the node Filter passed, and no
  // volumes for a node it did not see.
  EXPECT_TRUE(Plugin().PreBindPreFlight(state, bound_pod, "node-1").IsSuccess());
  Status elsewhere = Plugin().PreBindPreFlight(state, bound_pod, "elsewhere");
  EXPECT_EQ(elsewhere.code(), Code::kError);
  EXPECT_EQ(elsewhere.Message(), "no pod volume found for node \"elsewhere\"");

  Status s = PreBindDriven(state, bound_pod, "node-1", [&] { PVControllerBindsData(); });
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_GE(steps_, 1);  // the first check comes one interval after the writes
  ASSERT_EQ(client_.pvs.size(), 1u);
  EXPECT_EQ(client_.pvs[0].metadata.name, "pv-a");
  EXPECT_EQ(client_.pvs[0].spec.claim_ref->name, "data");
  EXPECT_EQ(client_.pvs[0].spec.claim_ref->uid, "uid-data");
  EXPECT_EQ(client_.pvs[0].metadata.annotations.at(std::string(kAnnBoundByController)), "yes");
  EXPECT_TRUE(client_.pvcs.empty());
}

// ksched re-checks when a PV or PVC event comes instead of at the next poll:
// the pod binds without the clock moving. Other events do not wake it.
TEST_F(VolumeBindingTest, PreBindChecksAgainAtAVolumeEvent) {
  framework::CycleState state;
  ASSERT_TRUE(ReservedWithLocalVolume(state));
  const util::TimePoint start = clock_.Now();
  auto fut = std::async(std::launch::async, [&] { return Plugin().PreBind(state, *bound_pod_, "node-1"); });
  client_.written.get_future().wait();
  PVControllerBindsData();
  const framework::ClusterEvent node_update(framework::resource::kNode, framework::ActionType::kUpdate);
  for (int i = 0; i < 20; ++i) Plugin().WakeBindingWaits(node_update);
  EXPECT_NE(fut.wait_for(std::chrono::milliseconds(20)), std::future_status::ready);
  // The claim's event; repeated until PreBind is waiting to hear it.
  const framework::ClusterEvent pvc_update(framework::resource::kPersistentVolumeClaim,
                                           framework::ActionType::kUpdate);
  while (fut.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
    Plugin().WakeBindingWaits(pvc_update);
  }
  Status s = fut.get();
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(clock_.Now(), start);
}

TEST_F(VolumeBindingTest, PreBindProvisionsThroughTheSelectedNodeAnnotation) {
  listers_.storage_classes.Set(SC("dynamic", kWFFC, "csi.example.com"));
  listers_.persistent_volume_claims.Set(PVC("dyn", "dynamic"));
  auto pod = Pod("p", {"dyn"});
  listers_.pods.Set(pod);
  framework::CycleState state;
  ASSERT_TRUE(ReservedOn(state, *pod, "node-2"));
  auto bound_pod = std::make_shared<api::Pod>(*pod);
  bound_pod->spec.node_name = "node-2";
  Status s = PreBindDriven(state, *bound_pod, "node-2", [&] {
    auto pv = PV("pvc-uid-dyn", "1Gi", "dynamic", "node-2");
    listers_.persistent_volumes.Set(pv);
    api::PersistentVolumeClaim pvc = client_.pvcs.at(0);
    pvc.spec.volume_name = "pvc-uid-dyn";
    pvc.metadata.annotations[std::string(kAnnBindCompleted)] = "yes";
    listers_.persistent_volume_claims.Set(std::make_shared<api::PersistentVolumeClaim>(pvc));
  });
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  ASSERT_EQ(client_.pvcs.size(), 1u);
  EXPECT_EQ(client_.pvcs[0].metadata.annotations.at(std::string(kAnnSelectedNode)), "node-2");
}

TEST_F(VolumeBindingTest, PreBindFailsWhenProvisioningIsAbandoned) {
  listers_.storage_classes.Set(SC("dynamic", kWFFC, "csi.example.com"));
  listers_.persistent_volume_claims.Set(PVC("dyn", "dynamic"));
  auto pod = Pod("p", {"dyn"});
  listers_.pods.Set(pod);
  framework::CycleState state;
  ASSERT_TRUE(ReservedOn(state, *pod, "node-2"));
  auto bound_pod = std::make_shared<api::Pod>(*pod);
  bound_pod->spec.node_name = "node-2";
  Status s = PreBindDriven(state, *bound_pod, "node-2", [&] {
    // The provisioner gave up and removed the annotation.
    api::PersistentVolumeClaim pvc = client_.pvcs.at(0);
    pvc.metadata.annotations.erase(std::string(kAnnSelectedNode));
    pvc.metadata.resource_version = "300";
    listers_.persistent_volume_claims.Set(std::make_shared<api::PersistentVolumeClaim>(pvc));
  });
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "binding volumes: provisioning failed for PVC \"dyn\"");
}

TEST_F(VolumeBindingTest, PreBindFailsWhenThePodIsDeletedOrTheClaimRefReset) {
  listers_.persistent_volumes.Set(PV("pv-a", "1Gi", "local", "node-1"));
  listers_.persistent_volume_claims.Set(PVC("data", "local"));
  auto pod = Pod("p", {"data"});
  framework::CycleState state;
  ASSERT_TRUE(ReservedOn(state, *pod, "node-1"));
  // The pod is not in the lister: it was deleted.
  Status s = PreBindDriven(state, *pod, "node-1", nullptr);
  EXPECT_EQ(s.Message(), "binding volumes: pod does not exist any more: pod \"default/p\" not found");

  listers_.pods.Set(pod);
  client_.written = std::promise<void>();
  client_.signalled = false;
  s = PreBindDriven(state, *pod, "node-1", [&] {
    auto pv = PV("pv-a", "1Gi", "local", "node-1");
    pv->metadata.resource_version = "500";  // newer, and without claimRef
    listers_.persistent_volumes.Set(pv);
  });
  EXPECT_EQ(s.Message(), "binding volumes: ClaimRef got reset for pv \"pv-a\"");
}

TEST_F(VolumeBindingTest, PreBindTimesOutAfterBindTimeout) {
  Plugin(seconds(5));
  listers_.persistent_volumes.Set(PV("pv-a", "1Gi", "local", "node-1"));
  listers_.persistent_volume_claims.Set(PVC("data", "local"));
  auto pod = Pod("p", {"data"});
  listers_.pods.Set(pod);
  framework::CycleState state;
  ASSERT_TRUE(ReservedOn(state, *pod, "node-1"));
  Status s = PreBindDriven(state, *pod, "node-1", nullptr, 100);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "binding volumes: context deadline exceeded");
  EXPECT_GE(steps_, 5);
  EXPECT_LE(steps_, 7);
}

TEST_F(VolumeBindingTest, PreBindWriteFailureIsAnErrorAndUnreserveReverts) {
  listers_.persistent_volumes.Set(PV("pv-a", "1Gi", "local", "node-1"));
  listers_.persistent_volume_claims.Set(PVC("data", "local"));
  auto pod = Pod("p", {"data"});
  framework::CycleState state;
  ASSERT_TRUE(ReservedOn(state, *pod, "node-1"));
  client_.fail = util::Status(util::StatusCode::kConflict, "the object has been modified");
  Status s = Plugin().PreBind(state, *pod, "node-1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "the object has been modified");
  Plugin().Unreserve(state, *pod, "node-1");
  EXPECT_FALSE(Plugin().PVCache().IsAssumed("", "pv-a"));

  // Without a client nothing can be written.
  VolumeBinding no_client(listers_, nullptr, clock_, seconds(600), true);
  framework::CycleState state2;
  ASSERT_TRUE(no_client.PreFilter(state2, *pod, {}).second.IsSuccess());
  ASSERT_TRUE(no_client.Filter(state2, *pod, nodes_.at("node-1")).IsSuccess());
  ASSERT_TRUE(no_client.Reserve(state2, *pod, "node-1").IsSuccess());
  EXPECT_EQ(no_client.PreBind(state2, *pod, "node-1").code(), Code::kError);
}

TEST_F(VolumeBindingTest, EventsAndHints) {
  auto events = Plugin().EventsToRegister();
  ASSERT_TRUE(events.ok());
  std::map<std::string, ActionType> by_resource;
  for (const auto& e : *events) by_resource[std::string(e.event.resource)] = e.event.action_type;
  namespace r = framework::resource;
  EXPECT_EQ(by_resource.at(std::string(r::kNode)), ActionType::kAdd | ActionType::kUpdateNodeLabel);
  EXPECT_EQ(by_resource.at(std::string(r::kPersistentVolume)), ActionType::kAdd | ActionType::kUpdate);
  EXPECT_EQ(by_resource.at(std::string(r::kCSIDriver)), ActionType::kUpdate);
  EXPECT_EQ(by_resource.size(), 7u);
  VolumeBinding no_hints(listers_, nullptr, clock_, seconds(1), false);
  auto no_hint_events = no_hints.EventsToRegister();
  ASSERT_TRUE(no_hint_events.ok());
  for (const auto& e : *no_hint_events) {
    if (e.event.resource == r::kNode) {
      EXPECT_EQ(e.event.action_type,
                ActionType::kAdd | ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeTaint);
    }
  }

  auto pod = Pod("p", {"data"});
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterPVCChange(*pod, {}, PVC("data", "local")), QueueingHint::kQueue);
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterPVCChange(*pod, {}, PVC("other", "local")), QueueingHint::kQueueSkip);
  auto elsewhere = PVC("data", "local");
  elsewhere->metadata.namespace_ = "kube-system";
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterPVCChange(*pod, {}, elsewhere), QueueingHint::kQueueSkip);

  auto sc = SC("zonal", kWFFC, "x");
  auto sc2 = std::make_shared<api::StorageClass>(*sc);
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterStorageClassChange(*pod, {}, sc), QueueingHint::kQueue);
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterStorageClassChange(*pod, sc, sc2), QueueingHint::kQueueSkip);
  sc2->allowed_topologies.push_back({{{"zone", {"a"}}}});
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterStorageClassChange(*pod, sc, sc2), QueueingHint::kQueue);

  auto csinode = std::make_shared<api::CSINode>();
  auto csinode2 = std::make_shared<api::CSINode>(*csinode);
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterCSINodeChange(*pod, {}, csinode), QueueingHint::kQueue);
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterCSINodeChange(*pod, csinode, csinode2), QueueingHint::kQueueSkip);
  csinode2->metadata.annotations["storage.alpha.kubernetes.io/migrated-plugins"] = "kubernetes.io/gce-pd";
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterCSINodeChange(*pod, csinode, csinode2), QueueingHint::kQueue);

  auto csi_pod = Pod("p", {});
  api::Volume v;
  v.name = "inline";
  v.csi = api::CSIVolumeSource{"csi.example.com", std::nullopt, {}};
  csi_pod->spec.volumes.push_back(v);
  auto on = std::make_shared<api::CSIDriver>();
  on->metadata.name = "csi.example.com";
  on->spec.storage_capacity = true;
  auto off = std::make_shared<api::CSIDriver>(*on);
  off->spec.storage_capacity = false;
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterCSIDriverChange(*csi_pod, on, off), QueueingHint::kQueue);
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterCSIDriverChange(*csi_pod, off, on), QueueingHint::kQueueSkip);
  EXPECT_EQ(*VolumeBinding::IsSchedulableAfterCSIDriverChange(*pod, on, off), QueueingHint::kQueueSkip);

  // kube's isSchedulableAfterCSIStorageCapacityChange cases.
  auto cap = [](std::optional<std::string> capacity, std::optional<std::string> max) {
    auto c = std::make_shared<api::CSIStorageCapacity>();
    c->metadata.name = "cap";
    c->storage_class_name = "sc";
    if (capacity) c->capacity = api::Quantity::MustParse(*capacity);
    if (max) c->maximum_volume_size = api::Quantity::MustParse(*max);
    return c;
  };
  auto hint = [&](std::shared_ptr<api::CSIStorageCapacity> o, std::shared_ptr<api::CSIStorageCapacity> n) {
    return *VolumeBinding::IsSchedulableAfterCSIStorageCapacityChange(
        *pod, o ? framework::EventObject(o) : framework::EventObject(), framework::EventObject(n));
  };
  EXPECT_EQ(hint(nullptr, cap("1Gi", std::nullopt)), QueueingHint::kQueue);  // added
  EXPECT_EQ(hint(cap("1Gi", std::nullopt), cap("2Gi", std::nullopt)), QueueingHint::kQueue);  // capacity grew
  EXPECT_EQ(hint(cap("2Gi", std::nullopt), cap("1Gi", std::nullopt)), QueueingHint::kQueueSkip);  // shrank
  EXPECT_EQ(hint(cap(std::nullopt, std::nullopt), cap("1Gi", std::nullopt)), QueueingHint::kQueue);  // appeared
  EXPECT_EQ(hint(cap("1Gi", std::nullopt), cap(std::nullopt, std::nullopt)), QueueingHint::kQueueSkip);
  // maximumVolumeSize is the limit when set.
  EXPECT_EQ(hint(cap("1Gi", "1Gi"), cap("5Gi", "1Gi")), QueueingHint::kQueueSkip);
  EXPECT_EQ(hint(cap("5Gi", "1Gi"), cap("5Gi", "2Gi")), QueueingHint::kQueue);
  EXPECT_EQ(hint(cap("1Gi", "1Gi"), cap("1Gi", "1Gi")), QueueingHint::kQueueSkip);
  EXPECT_FALSE(VolumeBinding::IsSchedulableAfterCSIStorageCapacityChange(*pod, {}, {}).ok());
}

TEST_F(VolumeBindingTest, CancelBindingWaitsEndsPreBindAtOnce) {
  listers_.persistent_volumes.Set(PV("pv-a", "1Gi", "local", "node-1"));
  listers_.persistent_volume_claims.Set(PVC("data", "local"));
  auto pod = Pod("p", {"data"});
  listers_.pods.Set(pod);
  framework::CycleState state;
  ASSERT_TRUE(ReservedOn(state, *pod, "node-1"));
  auto fut = std::async(std::launch::async, [&] { return Plugin().PreBind(state, *pod, "node-1"); });
  client_.written.get_future().wait();
  Plugin().CancelBindingWaits();  // no clock step: the wait ends on the signal
  Status s = fut.get();
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "binding volumes: context canceled");
  // The framework tells a cancelled wait by this code, not by its text.
  EXPECT_EQ(s.error().code(), util::StatusCode::kCancelled);
}

// A binding client that carries the fake volume client.
class FakeBindingClient final : public framework::BindingClient {
 public:
  util::Status Bind(const api::Pod&, std::string_view) override { return util::Status(); }
  framework::VolumeClient* Volumes() override { return &volumes; }
  FakeVolumeClient volumes;
};

TEST(VolumeBindingNewTest, TakesBindTimeoutSecondsAndTheHandlesVolumeClient) {
  util::FakeClock clock;
  FakeBindingClient binder;
  helper::testing::FakeHandle h;
  h.SetClock(&clock);
  h.SetClient(&binder);
  VolumeBindingArgs args;
  args.bind_timeout_seconds = 2;
  auto p = New(args, h);
  ASSERT_TRUE(p.ok()) << p.status().ToString();

  auto pod = Pod("p", {"data"});
  h.listers().storage_classes.Set(SC("local", kWFFC));
  h.listers().persistent_volumes.Set(PV("pv-a", "1Gi", "local"));
  h.listers().persistent_volume_claims.Set(PVC("data", "local"));
  h.listers().pods.Set(pod);
  framework::CycleState state;
  framework::NodeInfo node(Node("node-1"));
  ASSERT_TRUE((*p)->PreFilter(state, *pod, {}).second.IsSuccess());
  ASSERT_TRUE((*p)->Filter(state, *pod, node).IsSuccess());
  ASSERT_TRUE((*p)->Reserve(state, *pod, "node-1").IsSuccess());
  auto fut = std::async(std::launch::async, [&] { return (*p)->PreBind(state, *pod, "node-1"); });
  binder.volumes.written.get_future().wait();  // the write went through the handle's client
  int steps = 0;
  while (fut.wait_for(std::chrono::milliseconds(5)) != std::future_status::ready && steps < 100) {
    clock.Step(seconds(1));
    ++steps;
  }
  EXPECT_EQ(fut.get().Message(), "binding volumes: context deadline exceeded");
  EXPECT_GE(steps, 2);
  EXPECT_LE(steps, 4);
  EXPECT_EQ(binder.volumes.pvs.size(), 1u);

  EXPECT_TRUE(New(config::PluginArgs{}, h).ok());  // defaults
  args.bind_timeout_seconds = -1;
  EXPECT_FALSE(New(args, h).ok());
  EXPECT_FALSE(New(helper::OtherArgs{}, h).ok());
}

TEST(VolumeBindingNewTest, ScoresOnlyWithStorageCapacityScoring) {
  helper::testing::FakeHandle off;
  auto plain = New(config::PluginArgs{}, off);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(dynamic_cast<framework::ScorePlugin*>(plain->get()), nullptr);
  helper::testing::FakeHandle on(framework::FeatureGates::ForMinor(37));
  auto scoring = New(config::PluginArgs{}, on);
  ASSERT_TRUE(scoring.ok());
  EXPECT_NE(dynamic_cast<framework::ScorePlugin*>(scoring->get()), nullptr);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::volumebinding
