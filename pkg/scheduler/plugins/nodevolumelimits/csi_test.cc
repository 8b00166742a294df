#include "pkg/scheduler/plugins/nodevolumelimits/csi.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/in_memory_listers.h"

namespace ksched::scheduler::plugins::nodevolumelimits {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;

api::Volume Claim(const std::string& name) {
  api::Volume v;
  v.name = "vol-" + name;
  v.persistent_volume_claim = api::PersistentVolumeClaimVolumeSource{name, false};
  return v;
}
api::Volume Ephemeral(const std::string& name) {
  api::Volume v;
  v.name = name;
  v.ephemeral = api::EphemeralVolumeSource{};
  return v;
}
api::Volume EmptyDir() {
  api::Volume v;
  v.name = "scratch";
  v.other_source = "emptyDir";
  return v;
}

std::shared_ptr<api::Pod> MakePod(const std::string& name, std::vector<api::Volume> volumes,
                                  const std::string& node = "") {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = name;
  p->metadata.namespace_ = "default";
  p->metadata.uid = name + "-uid";
  p->spec.node_name = node;
  p->spec.volumes = std::move(volumes);
  return p;
}

class CSILimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Bound claims of driver "ebs.csi" (volumes vol-0..vol-3) and "gce.csi".
    for (int i = 0; i < 4; ++i) AddBound("csi-ebs-" + std::to_string(i), "ebs.csi", "vol-" + std::to_string(i));
    AddBound("csi-gce-0", "gce.csi", "g-0");
    // A claim bound to a non-CSI PV.
    auto pv = std::make_shared<api::PersistentVolume>();
    pv->metadata.name = "pv-intree";
    pv->spec.other_source = "hostPath";
    listers_.persistent_volumes.Set(pv);
    AddPVC("intree", "pv-intree", std::nullopt);
    // Unbound claims counted through their class.
    auto sc = std::make_shared<api::StorageClass>();
    sc->metadata.name = "ebs-sc";
    sc->provisioner = "ebs.csi";
    listers_.storage_classes.Set(sc);
    AddPVC("unbound-1", "", "ebs-sc");
    AddPVC("unbound-2", "", "ebs-sc");
    AddPVC("missing-pv", "pv-gone", "ebs-sc");
    AddPVC("no-class", "", std::nullopt);
    AddPVC("unknown-class", "", "nope");
    // Ephemeral claims: one owned by pod "eph", one foreign.
    auto owned = AddPVC("eph-scratch", "pv-csi-ebs-0", std::nullopt);
    (void)owned;
    SetCSINode("ebs.csi", 2);
  }

  void AddBound(const std::string& claim, const std::string& driver, const std::string& handle) {
    auto pv = std::make_shared<api::PersistentVolume>();
    pv->metadata.name = "pv-" + claim;
    pv->spec.csi = api::CSIPersistentVolumeSource{driver, handle, "", false, {}};
    listers_.persistent_volumes.Set(pv);
    AddPVC(claim, pv->metadata.name, std::nullopt);
  }

  std::shared_ptr<api::PersistentVolumeClaim> AddPVC(const std::string& name, const std::string& volume,
                                                     std::optional<std::string> sc,
                                                     const std::string& owner_uid = "eph-uid") {
    auto c = std::make_shared<api::PersistentVolumeClaim>();
    c->metadata.name = name;
    c->metadata.namespace_ = "default";
    c->spec.volume_name = volume;
    c->spec.storage_class_name = std::move(sc);
    api::OwnerReference o;
    o.kind = "Pod";
    o.uid = owner_uid;
    o.controller = true;
    c->metadata.owner_references.push_back(o);
    listers_.persistent_volume_claims.Set(c);
    return c;
  }

  void SetCSINode(const std::string& driver, std::optional<int32_t> limit) {
    auto n = std::make_shared<api::CSINode>();
    n->metadata.name = "node";
    api::CSINodeDriver d;
    d.name = driver;
    if (limit) d.allocatable = api::VolumeNodeResources{limit};
    n->spec.drivers.push_back(d);
    listers_.csi_nodes.Set(n);
  }

  Status Run(const api::Pod& pod, const std::vector<std::shared_ptr<const api::Pod>>& existing,
             bool* skipped = nullptr) {
    CSILimits pl(listers_, "prefix");
    framework::CycleState state;
    auto node = std::make_shared<api::Node>();
    node->metadata.name = "node";
    framework::NodeInfo ni(node, existing);
    auto [res, st] = pl.PreFilter(state, pod, {&ni});
    if (skipped) *skipped = st.IsSkip();
    if (st.IsSkip()) return Status();
    if (!st.IsSuccess()) return st;
    return pl.Filter(state, pod, ni);
  }

  framework::InMemorySharedListers listers_;
};

TEST_F(CSILimitsTest, Filter) {
  const Status exceeded(Code::kUnschedulable, std::string(kErrReasonMaxVolumeCountExceeded));
  auto on_node = [](const std::string& name, std::vector<api::Volume> v) -> std::shared_ptr<const api::Pod> {
    return MakePod(name, std::move(v), "node");
  };
  struct Case {
    std::string name;
    std::shared_ptr<api::Pod> pod;
    std::vector<std::shared_ptr<const api::Pod>> existing;
    Status want;
  };
  std::vector<Case> cases = {
      {"fits under limit", MakePod("p", {Claim("csi-ebs-0"), Claim("csi-ebs-1")}), {}, Status()},
      {"exceeds limit", MakePod("p", {Claim("csi-ebs-0"), Claim("csi-ebs-1"), Claim("csi-ebs-2")}), {}, exceeded},
      {"existing volumes count", MakePod("p", {Claim("csi-ebs-2")}),
       {on_node("a", {Claim("csi-ebs-0")}), on_node("b", {Claim("csi-ebs-1")})}, exceeded},
      {"shared volume counted once", MakePod("p", {Claim("csi-ebs-0"), Claim("csi-ebs-1")}),
       {on_node("a", {Claim("csi-ebs-0")}), on_node("b", {Claim("csi-ebs-0")})}, Status()},
      {"same volume twice in the pod", MakePod("p", {Claim("csi-ebs-0"), Claim("csi-ebs-0"), Claim("csi-ebs-1")}),
       {}, Status()},
      {"other driver without limit", MakePod("p", {Claim("csi-gce-0")}),
       {on_node("a", {Claim("csi-ebs-0"), Claim("csi-ebs-1")})}, Status()},
      {"non-csi pv not counted", MakePod("p", {Claim("intree"), Claim("csi-ebs-0"), Claim("csi-ebs-1")}), {},
       Status()},
      {"unbound claims counted by class", MakePod("p", {Claim("unbound-1"), Claim("unbound-2"), Claim("csi-ebs-0")}),
       {}, exceeded},
      {"unbound claims within limit", MakePod("p", {Claim("unbound-1"), Claim("unbound-2")}), {}, Status()},
      {"claim with missing pv counted by class", MakePod("p", {Claim("missing-pv"), Claim("csi-ebs-0")}),
       {on_node("a", {Claim("csi-ebs-1")})}, exceeded},
      {"claim without class not counted",
       MakePod("p", {Claim("no-class"), Claim("unknown-class"), Claim("csi-ebs-0"), Claim("csi-ebs-1")}), {},
       Status()},
      {"existing pod's missing claim ignored", MakePod("p", {Claim("csi-ebs-0")}),
       {on_node("a", {Claim("gone")})}, Status()},
      {"missing claim of the pod", MakePod("p", {Claim("gone")}), {},
       Status(Code::kUnschedulableAndUnresolvable,
              "looking up PVC default/gone: persistentvolumeclaim \"gone\" not found")},
      {"ephemeral claim owned by the pod", MakePod("eph", {Ephemeral("scratch"), Claim("csi-ebs-1")}),
       {on_node("a", {Claim("csi-ebs-2")})}, exceeded},
      {"ephemeral claim of another pod", MakePod("eph", {Ephemeral("scratch")}), {}, Status()},
  };
  // The last case: a pod named "eph" but with another UID does not own it.
  cases.back().pod->metadata.uid = "someone-else";
  cases.back().want = Status(Code::kError,
                             "PVC default/eph-scratch was not created for pod default/eph (pod is not owner)");
  for (const Case& c : cases) {
    Status got = Run(*c.pod, c.existing);
    EXPECT_EQ(got.code(), c.want.code()) << c.name << ": " << got.ToString();
    EXPECT_EQ(got.reasons(), c.want.reasons()) << c.name;
  }
}

TEST_F(CSILimitsTest, NoLimits) {
  auto pod = MakePod("p", {Claim("csi-ebs-0"), Claim("csi-ebs-1"), Claim("csi-ebs-2")});
  SetCSINode("ebs.csi", std::nullopt);
  EXPECT_EQ(Run(*pod, {}), Status());
  listers_.csi_nodes.Delete("", "node");
  EXPECT_EQ(Run(*pod, {}), Status());
  SetCSINode("ebs.csi", 3);
  EXPECT_EQ(Run(*pod, {}), Status());
}

TEST_F(CSILimitsTest, PreFilterSkips) {
  bool skipped = false;
  EXPECT_EQ(Run(*MakePod("p", {EmptyDir()}), {}, &skipped), Status());
  EXPECT_TRUE(skipped);
  EXPECT_EQ(Run(*MakePod("p", {}), {}, &skipped), Status());
  EXPECT_TRUE(skipped);
  EXPECT_EQ(Run(*MakePod("p", {Claim("csi-ebs-0")}), {}, &skipped), Status());
  EXPECT_FALSE(skipped);
}

TEST_F(CSILimitsTest, Events) {
  auto events = CSILimits(listers_, "x").EventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].event, ClusterEvent(framework::resource::kCSINode, ActionType::kAdd));
  EXPECT_FALSE((*events)[0].queueing_hint_fn);
  EXPECT_EQ((*events)[1].event, ClusterEvent(framework::resource::kPod, ActionType::kDelete));
  EXPECT_TRUE((*events)[1].queueing_hint_fn);
  EXPECT_EQ((*events)[2].event, ClusterEvent(framework::resource::kPersistentVolumeClaim, ActionType::kAdd));
  EXPECT_TRUE((*events)[2].queueing_hint_fn);
}

QueueingHint Must(util::StatusOr<QueueingHint> h) {
  EXPECT_TRUE(h.ok());
  return h.ok() ? *h : QueueingHint::kQueue;
}

TEST_F(CSILimitsTest, Hints) {
  auto pod = MakePod("p", {Claim("c"), Ephemeral("e")});
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPodDeleted(*pod, EventObject(MakePod("d", {Claim("x")}, "node")), {})),
            QueueingHint::kQueue);
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPodDeleted(*pod, EventObject(MakePod("d", {Ephemeral("x")}, "node")), {})),
            QueueingHint::kQueue);
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPodDeleted(*pod, EventObject(MakePod("d", {Claim("x")})), {})),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPodDeleted(*pod, EventObject(MakePod("d", {EmptyDir()}, "node")), {})),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPodDeleted(*pod, EventObject(MakePod("d", {}, "node")), {})),
            QueueingHint::kQueueSkip);
  EXPECT_FALSE(CSILimits::IsSchedulableAfterPodDeleted(*pod, {}, {}).ok());

  auto pvc = [](const std::string& name, const std::string& ns) {
    auto c = std::make_shared<api::PersistentVolumeClaim>();
    c->metadata.name = name;
    c->metadata.namespace_ = ns;
    return c;
  };
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPVCAdded(*pod, {}, EventObject(pvc("c", "default")))),
            QueueingHint::kQueue);
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPVCAdded(*pod, {}, EventObject(pvc("p-e", "default")))),
            QueueingHint::kQueue);
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPVCAdded(*pod, {}, EventObject(pvc("c", "other")))),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPVCAdded(*pod, {}, EventObject(pvc("x", "default")))),
            QueueingHint::kQueueSkip);
  EXPECT_FALSE(CSILimits::IsSchedulableAfterPVCAdded(*pod, {}, {}).ok());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodevolumelimits
