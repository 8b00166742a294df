#include "pkg/scheduler/plugins/nodevolumelimits/csi.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/plugins/nodevolumelimits/csi_translation.h"

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
             bool* skipped = nullptr, bool volume_limit_scaling = false) {
    CSILimits pl(listers_, "prefix", false, volume_limit_scaling);
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

TEST_F(CSILimitsTest, VolumeLimitScalingRefusesNodesWithoutARequiredDriver) {
  auto pod = MakePod("p", {Claim("csi-gce-0")});
  auto driver = std::make_shared<api::CSIDriver>();
  driver->metadata.name = "gce.csi";
  listers_.csi_drivers.Set(driver);
  // Not opted in, or the gate off: the node is fine.
  EXPECT_EQ(Run(*pod, {}, nullptr, true), Status());
  driver->spec.prevent_pod_scheduling_if_missing = true;
  listers_.csi_drivers.Set(driver);
  EXPECT_EQ(Run(*pod, {}), Status());
  const Status missing(Code::kUnschedulable, "gce.csi CSI driver is not installed on the node");
  Status got = Run(*pod, {}, nullptr, true);
  EXPECT_EQ(got.code(), missing.code());
  EXPECT_EQ(got.reasons(), missing.reasons());
  listers_.csi_nodes.Delete("", "node");  // no CSINode: not installed either
  EXPECT_EQ(Run(*pod, {}, nullptr, true).reasons(), missing.reasons());
  SetCSINode("gce.csi", std::nullopt);  // listed: installed, and no limit
  EXPECT_EQ(Run(*pod, {}, nullptr, true), Status());
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

QueueingHint Must(util::StatusOr<QueueingHint> h) {
  EXPECT_TRUE(h.ok());
  return h.ok() ? *h : QueueingHint::kQueue;
}

// In-tree volumes migrated to CSI and VolumeAttachments, after kube's
// csi_test.go cases ("should count in-tree volumes if migration is
// enabled", "should count VolumeAttachments towards volume limit", ...).
class CSILimitsMigrationTest : public CSILimitsTest {
 protected:
  static constexpr char kEBS[] = "ebs.csi.aws.com";

  void SetUp() override {
    // In-tree EBS PVs "aws://z/vol-N" bound to claims intree-N.
    for (int i = 0; i < 3; ++i) {
      auto pv = std::make_shared<api::PersistentVolume>();
      pv->metadata.name = "pv-intree-" + std::to_string(i);
      pv->spec.aws_elastic_block_store =
          api::AWSElasticBlockStoreVolumeSource{"aws://us-east-1a/vol-" + std::to_string(i), "", 0, false};
      listers_.persistent_volumes.Set(pv);
      AddPVC("intree-" + std::to_string(i), pv->metadata.name, std::nullopt);
    }
    // CSI PVs of the migrated driver: csi-ebs-0 has the handle in-tree
    // volume 0 translates to.
    AddBound("csi-ebs-0", kEBS, "vol-0");
    AddBound("csi-ebs-9", kEBS, "vol-9");
    auto sc = std::make_shared<api::StorageClass>();
    sc->metadata.name = "intree-sc";
    sc->provisioner = "kubernetes.io/aws-ebs";
    listers_.storage_classes.Set(sc);
    AddPVC("intree-pending", "", "intree-sc");
    auto host = std::make_shared<api::PersistentVolume>();
    host->metadata.name = "pv-host";
    host->spec.other_source = "hostPath";
    listers_.persistent_volumes.Set(host);
    AddPVC("host", "pv-host", std::nullopt);
    SetCSINode(kEBS, 2);
  }

  static api::Volume InlineEBS(const std::string& id) {
    api::Volume v;
    v.name = "inline-" + id;
    v.aws_elastic_block_store = api::AWSElasticBlockStoreVolumeSource{id, "", 0, false};
    return v;
  }

  void AddAttachment(const std::string& name, const std::string& node, const std::string& attacher,
                     std::optional<std::string> pv) {
    auto va = std::make_shared<api::VolumeAttachment>();
    va->metadata.name = name;
    va->spec.attacher = attacher;
    va->spec.node_name = node;
    va->spec.source.persistent_volume_name = std::move(pv);
    listers_.volume_attachments.Set(va);
  }

  static std::shared_ptr<const api::Pod> OnNode(const std::string& name, std::vector<api::Volume> v) {
    return MakePod(name, std::move(v), "node");
  }
};

TEST_F(CSILimitsMigrationTest, InTreeVolumesCount) {
  const Status exceeded(Code::kUnschedulable, std::string(kErrReasonMaxVolumeCountExceeded));
  // Two in-tree volumes on the node plus a third one: over the limit of 2.
  auto two = OnNode("two", {Claim("intree-0"), Claim("intree-1")});
  EXPECT_EQ(Run(*MakePod("p", {Claim("intree-2")}), {two}), exceeded);
  // An unbound claim of the in-tree provisioner counts as the CSI driver's.
  EXPECT_EQ(Run(*MakePod("p", {Claim("intree-pending")}), {two}), exceeded);
  // Inline in-tree volumes too.
  EXPECT_EQ(Run(*MakePod("p", {InlineEBS("vol-5")}), {two}), exceeded);
  // A source without a CSI driver (hostPath) never counts.
  EXPECT_EQ(Run(*MakePod("p", {Claim("host")}), {two}), Status());
  // In-tree and CSI volumes of the driver add up, whichever is scheduled.
  auto csi_two = OnNode("csi-two", {Claim("csi-ebs-0"), Claim("csi-ebs-9")});
  EXPECT_EQ(Run(*MakePod("p", {Claim("intree-1")}), {csi_two}), exceeded);
  EXPECT_EQ(Run(*MakePod("p", {Claim("csi-ebs-9")}), {OnNode("a", {Claim("intree-1"), Claim("intree-2")})}),
            exceeded);
  // The same disk in-tree and as CSI is one volume: "aws://us-east-1a/vol-0"
  // translates to csi-ebs-0's handle.
  SetCSINode(kEBS, 3);
  auto mixed = OnNode("mixed", {Claim("csi-ebs-9"), Claim("intree-1")});
  EXPECT_EQ(Run(*MakePod("p", {InlineEBS("aws://us-east-1a/vol-0"), Claim("csi-ebs-0")}), {mixed}), Status());
  EXPECT_EQ(Run(*MakePod("p", {InlineEBS("vol-5"), Claim("csi-ebs-0")}), {mixed}), exceeded);
}

TEST_F(CSILimitsMigrationTest, NoCSINodeNoMigration) {
  listers_.csi_nodes.Delete("", "node");
  auto two = OnNode("two", {Claim("intree-0"), Claim("intree-1")});
  EXPECT_EQ(Run(*MakePod("p", {InlineEBS("vol-5"), Claim("intree-2")}), {two}), Status());
}

TEST_F(CSILimitsMigrationTest, PreFilterKeepsPodsWithMigratableInlineVolumes) {
  bool skipped = true;
  // Only whether PreFilter skips matters here, not Filter's verdict.
  (void)Run(*MakePod("p", {InlineEBS("vol-1")}), {}, &skipped);
  EXPECT_FALSE(skipped);
  api::Volume vsphere;
  vsphere.name = "vs";
  vsphere.other_source = "vsphereVolume";
  (void)Run(*MakePod("p", {vsphere}), {}, &skipped);
  EXPECT_FALSE(skipped);
}

TEST_F(CSILimitsMigrationTest, UntranslatableInlineVolumeIsAnError) {
  Status s = Run(*MakePod("p", {InlineEBS("aws://us-east-1a/bogus")}), {});
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "converting volume(inline-aws://us-east-1a/bogus) from inline to csi: failed to translate Kubernetes ID "
            "to EBS Volume ID Invalid format for AWS volume (aws://us-east-1a/bogus)");
}

TEST_F(CSILimitsMigrationTest, PortworxNeedsTheMigratedPluginsAnnotation) {
  SetCSINode("pxd.portworx.com", 1);
  api::Volume px;
  px.name = "px";
  px.portworx_volume = api::PortworxVolumeSource{"px-1", "", false};
  api::Volume px2 = px;
  px2.portworx_volume->volume_id = "px-2";
  auto on_node = OnNode("a", {px});
  EXPECT_EQ(Run(*MakePod("p", {px2}), {on_node}), Status());
  auto n = std::make_shared<api::CSINode>(*listers_.csi_nodes.Get("", "node"));
  n->metadata.annotations[std::string(kAnnMigratedPlugins)] = "kubernetes.io/aws-ebs,kubernetes.io/portworx-volume";
  listers_.csi_nodes.Set(n);
  EXPECT_EQ(Run(*MakePod("p", {px2}), {on_node}).code(), Code::kUnschedulable);
}

TEST_F(CSILimitsMigrationTest, VolumeAttachmentsHoldSlots) {
  const Status exceeded(Code::kUnschedulable, std::string(kErrReasonMaxVolumeCountExceeded));
  auto pod = MakePod("p", {Claim("csi-ebs-9")});
  // Two attachments of CSI volumes to the node and no pods: full.
  AddBound("csi-ebs-1", kEBS, "vol-1");
  AddBound("csi-ebs-2", kEBS, "vol-2");
  AddAttachment("va-1", "node", kEBS, "pv-csi-ebs-1");
  EXPECT_EQ(Run(*pod, {}), Status());
  AddAttachment("va-2", "node", kEBS, "pv-csi-ebs-2");
  EXPECT_EQ(Run(*pod, {}), exceeded);
  // An attachment of a volume a pod on the node uses is counted once.
  EXPECT_EQ(Run(*pod, {OnNode("a", {Claim("csi-ebs-1")})}), exceeded);
  listers_.volume_attachments.Delete("", "va-2");
  EXPECT_EQ(Run(*pod, {OnNode("a", {Claim("csi-ebs-1")})}), Status());
  // Attachments that do not count: another node, no attacher, no PV name, a
  // missing PV, an in-tree PV.
  AddAttachment("elsewhere", "node-2", kEBS, "pv-csi-ebs-2");
  AddAttachment("no-attacher", "node", "", "pv-csi-ebs-2");
  AddAttachment("inline", "node", kEBS, std::nullopt);
  AddAttachment("gone", "node", kEBS, "pv-gone");
  AddAttachment("intree", "node", kEBS, "pv-intree-2");
  EXPECT_EQ(Run(*pod, {}), Status());
}

TEST_F(CSILimitsMigrationTest, Hints) {
  auto csinode = [](std::optional<int32_t> ebs, std::optional<int32_t> gce) {
    auto n = std::make_shared<api::CSINode>();
    n->metadata.name = "node";
    api::CSINodeDriver d;
    d.name = kEBS;
    if (ebs) d.allocatable = api::VolumeNodeResources{ebs};
    n->spec.drivers.push_back(d);
    if (gce) {
      api::CSINodeDriver g;
      g.name = "pd.csi.storage.gke.io";
      g.allocatable = api::VolumeNodeResources{gce};
      n->spec.drivers.push_back(g);
    }
    return n;
  };
  auto pod = MakePod("p", {Claim("c")});
  auto updated = [&](auto o, auto n) { return Must(CSILimits::IsSchedulableAfterCSINodeUpdated(*pod, o, n)); };
  EXPECT_EQ(updated(csinode(1, std::nullopt), csinode(2, std::nullopt)), QueueingHint::kQueue);
  EXPECT_EQ(updated(csinode(2, std::nullopt), csinode(1, std::nullopt)), QueueingHint::kQueueSkip);
  EXPECT_EQ(updated(csinode(2, std::nullopt), csinode(2, std::nullopt)), QueueingHint::kQueueSkip);
  EXPECT_EQ(updated(csinode(std::nullopt, std::nullopt), csinode(1, std::nullopt)), QueueingHint::kQueue);
  EXPECT_EQ(updated(csinode(1, std::nullopt), csinode(1, 3)), QueueingHint::kQueue);  // a new driver with a limit
  EXPECT_EQ(updated(csinode(1, 3), csinode(1, std::nullopt)), QueueingHint::kQueueSkip);
  EXPECT_FALSE(CSILimits::IsSchedulableAfterCSINodeUpdated(*pod, {}, csinode(1, 1)).ok());

  auto va = [](const std::string& attacher) {
    auto a = std::make_shared<api::VolumeAttachment>();
    a->metadata.name = "va";
    a->spec.attacher = attacher;
    return a;
  };
  auto va_deleted = [&](const api::Pod& p, const std::string& attacher) {
    return Must(CSILimits::IsSchedulableAfterVolumeAttachmentDeleted(p, va(attacher), {}));
  };
  // kube's cases: a PVC always; an inline volume when its driver matches.
  EXPECT_EQ(va_deleted(*pod, kEBS), QueueingHint::kQueue);
  EXPECT_EQ(va_deleted(*MakePod("p", {InlineEBS("vol-1")}), kEBS), QueueingHint::kQueue);
  api::Volume gce;
  gce.name = "gce";
  gce.gce_persistent_disk = api::GCEPersistentDiskVolumeSource{"pd", "", 0, false};
  EXPECT_EQ(va_deleted(*MakePod("p", {gce}), kEBS), QueueingHint::kQueueSkip);
  EXPECT_EQ(va_deleted(*MakePod("p", {gce, InlineEBS("vol-1")}), kEBS), QueueingHint::kQueue);
  EXPECT_EQ(va_deleted(*MakePod("p", {EmptyDir()}), kEBS), QueueingHint::kQueueSkip);
  EXPECT_EQ(va_deleted(*MakePod("p", {}), kEBS), QueueingHint::kQueueSkip);
  EXPECT_FALSE(CSILimits::IsSchedulableAfterVolumeAttachmentDeleted(*MakePod("p", {InlineEBS("aws://z/bad")}),
                                                                    va(kEBS), {})
                   .ok());
  EXPECT_FALSE(CSILimits::IsSchedulableAfterVolumeAttachmentDeleted(*pod, {}, {}).ok());

  // A deleted pod with an inline migratable volume, or only nominated.
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPodDeleted(*pod, EventObject(OnNode("d", {InlineEBS("vol-1")})), {})),
            QueueingHint::kQueue);
  auto nominated = MakePod("d", {Claim("x")});
  nominated->status.nominated_node_name = "node";
  EXPECT_EQ(Must(CSILimits::IsSchedulableAfterPodDeleted(*pod, EventObject(nominated), {})), QueueingHint::kQueue);
}

TEST_F(CSILimitsTest, Events) {
  auto events = CSILimits(listers_, "x").EventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 5u);
  EXPECT_EQ((*events)[0].event, ClusterEvent(framework::resource::kCSINode, ActionType::kAdd));
  EXPECT_FALSE((*events)[0].queueing_hint_fn);
  EXPECT_EQ((*events)[1].event, ClusterEvent(framework::resource::kCSINode, ActionType::kUpdate));
  EXPECT_TRUE((*events)[1].queueing_hint_fn);
  EXPECT_EQ((*events)[2].event, ClusterEvent(framework::resource::kPod, ActionType::kDelete));
  EXPECT_TRUE((*events)[2].queueing_hint_fn);
  EXPECT_EQ((*events)[3].event, ClusterEvent(framework::resource::kPersistentVolumeClaim, ActionType::kAdd));
  EXPECT_TRUE((*events)[3].queueing_hint_fn);
  EXPECT_EQ((*events)[4].event, ClusterEvent(framework::resource::kVolumeAttachment, ActionType::kDelete));
  EXPECT_TRUE((*events)[4].queueing_hint_fn);
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
