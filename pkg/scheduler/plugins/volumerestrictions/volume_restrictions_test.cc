#include "pkg/scheduler/plugins/volumerestrictions/volume_restrictions.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/in_memory_listers.h"

namespace ksched::scheduler::plugins::volumerestrictions {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;

// A snapshot whose only content is the set of PVCs in use.
class FakeSnapshot final : public framework::SharedLister, public framework::StorageInfoLister,
                           public framework::NodeInfoLister {
 public:
  const framework::NodeInfoLister& NodeInfos() const override { return *this; }
  const framework::StorageInfoLister& StorageInfos() const override { return *this; }
  bool IsPVCUsedByPods(std::string_view key) const override { return used.count(std::string(key)) > 0; }
  const framework::NodeInfoList& List() const override { return empty_; }
  const framework::NodeInfoList& HavePodsWithAffinityList() const override { return empty_; }
  const framework::NodeInfoList& HavePodsWithRequiredAntiAffinityList() const override { return empty_; }
  util::StatusOr<const framework::NodeInfo*> Get(std::string_view) const override {
    return util::NotFound("nodeinfo not found");
  }
  std::set<std::string> used;

 private:
  framework::NodeInfoList empty_;
};

api::Volume GCE(const std::string& name, bool ro) {
  api::Volume v;
  v.name = "v";
  v.gce_persistent_disk = api::GCEPersistentDiskVolumeSource{name, "", 0, ro};
  return v;
}
api::Volume EBS(const std::string& id) {
  api::Volume v;
  v.aws_elastic_block_store = api::AWSElasticBlockStoreVolumeSource{id, "", 0, false};
  return v;
}
api::Volume ISCSI(const std::string& iqn, bool ro) {
  api::Volume v;
  v.iscsi = api::ISCSIVolumeSource{"127.0.0.1:3260", iqn, 0, {}, ro};
  return v;
}
api::Volume RBD(std::vector<std::string> mons, const std::string& pool, const std::string& image, bool ro) {
  api::Volume v;
  v.rbd = api::RBDVolumeSource{std::move(mons), image, pool, ro};
  return v;
}
api::Volume Claim(const std::string& name) {
  api::Volume v;
  v.persistent_volume_claim = api::PersistentVolumeClaimVolumeSource{name, false};
  return v;
}

std::shared_ptr<api::Pod> MakePod(const std::string& name, std::vector<api::Volume> volumes,
                                  const std::string& ns = "default") {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = name;
  p->metadata.namespace_ = ns;
  p->metadata.uid = ns + "/" + name;
  p->spec.volumes = std::move(volumes);
  return p;
}

std::shared_ptr<api::PersistentVolumeClaim> MakePVC(const std::string& name, std::vector<std::string> modes,
                                                    const std::string& ns = "default") {
  auto c = std::make_shared<api::PersistentVolumeClaim>();
  c->metadata.name = name;
  c->metadata.namespace_ = ns;
  c->spec.access_modes = std::move(modes);
  return c;
}

class VolumeRestrictionsTest : public ::testing::Test {
 protected:
  VolumeRestrictions Plugin(bool qhint = true) {
    return VolumeRestrictions(listers_, [this]() -> const framework::SharedLister& { return snapshot_; }, qhint);
  }

  // Runs PreFilter then (unless it skipped or failed) Filter on a node with
  // `existing` pods.
  Status Run(const api::Pod& pod, const std::vector<std::shared_ptr<const api::Pod>>& existing,
             bool* skipped = nullptr) {
    VolumeRestrictions pl = Plugin();
    framework::CycleState state;
    auto node = std::make_shared<api::Node>();
    node->metadata.name = "n";
    framework::NodeInfo ni(node, existing);
    auto [res, st] = pl.PreFilter(state, pod, {&ni});
    if (skipped) *skipped = st.IsSkip();
    if (st.IsSkip()) return Status();
    if (!st.IsSuccess()) return st;
    return pl.Filter(state, pod, ni);
  }

  framework::InMemorySharedListers listers_;
  FakeSnapshot snapshot_;
};

TEST_F(VolumeRestrictionsTest, DiskConflicts) {
  const Status conflict(Code::kUnschedulable, std::string(kErrReasonDiskConflict));
  struct Case {
    std::string name;
    api::Volume incoming;
    api::Volume existing;
    bool fits;
  };
  std::vector<Case> cases = {
      {"gce same disk rw", GCE("foo", false), GCE("foo", false), false},
      {"gce same disk one ro", GCE("foo", true), GCE("foo", false), false},
      {"gce same disk both ro", GCE("foo", true), GCE("foo", true), true},
      {"gce other disk", GCE("foo", false), GCE("bar", false), true},
      {"ebs same id", EBS("foo"), EBS("foo"), false},
      {"ebs other id", EBS("foo"), EBS("bar"), true},
      {"iscsi same iqn", ISCSI("iqn.a", false), ISCSI("iqn.a", false), false},
      {"iscsi same iqn both ro", ISCSI("iqn.a", true), ISCSI("iqn.a", true), true},
      {"iscsi other iqn", ISCSI("iqn.a", false), ISCSI("iqn.b", false), true},
      {"rbd same image shared monitor", RBD({"a", "b"}, "p", "img", false), RBD({"b", "c"}, "p", "img", false),
       false},
      {"rbd disjoint monitors", RBD({"a"}, "p", "img", false), RBD({"c"}, "p", "img", false), true},
      {"rbd other pool", RBD({"a"}, "p", "img", false), RBD({"a"}, "q", "img", false), true},
      {"rbd other image", RBD({"a"}, "p", "img", false), RBD({"a"}, "p", "img2", false), true},
      {"rbd both ro", RBD({"a"}, "p", "img", true), RBD({"a"}, "p", "img", true), true},
      {"different kinds", GCE("foo", false), EBS("foo"), true},
  };
  for (const Case& c : cases) {
    auto pod = MakePod("p", {c.incoming});
    auto existing = MakePod("e", {c.existing});
    EXPECT_EQ(Run(*pod, {existing}), c.fits ? Status() : conflict) << c.name;
    EXPECT_EQ(Run(*pod, {}), Status()) << c.name << " (empty node)";
  }
}

TEST_F(VolumeRestrictionsTest, SkipsPodsWithoutRestrictedVolumes) {
  bool skipped = false;
  EXPECT_EQ(Run(*MakePod("p", {}), {}, &skipped), Status());
  EXPECT_TRUE(skipped);
  listers_.persistent_volume_claims.Set(MakePVC("c", {"ReadWriteOnce"}));
  snapshot_.used.insert("default/c");
  EXPECT_EQ(Run(*MakePod("p", {Claim("c")}), {}, &skipped), Status());
  EXPECT_TRUE(skipped);
  EXPECT_EQ(Run(*MakePod("p", {GCE("x", false)}), {}, &skipped), Status());
  EXPECT_FALSE(skipped);
}

TEST_F(VolumeRestrictionsTest, MissingClaim) {
  EXPECT_EQ(Run(*MakePod("p", {Claim("missing")}), {}),
            Status(Code::kUnschedulableAndUnresolvable, "persistentvolumeclaim \"missing\" not found"));
}

TEST_F(VolumeRestrictionsTest, ReadWriteOncePod) {
  listers_.persistent_volume_claims.Set(MakePVC("rwop", {"ReadWriteOncePod"}));
  bool skipped = false;
  // Not used anywhere: nothing to check.
  EXPECT_EQ(Run(*MakePod("p", {Claim("rwop")}), {}, &skipped), Status());
  EXPECT_TRUE(skipped);
  snapshot_.used.insert("default/rwop");
  EXPECT_EQ(Run(*MakePod("p", {Claim("rwop")}), {}, &skipped),
            Status(Code::kUnschedulable, "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod "
                                         "access mode already in-use by another pod"));  // v1.34's text
  EXPECT_FALSE(skipped);
}

TEST_F(VolumeRestrictionsTest, PreFilterExtensionsTrackTheClaim) {
  listers_.persistent_volume_claims.Set(MakePVC("rwop", {"ReadWriteOncePod"}));
  snapshot_.used.insert("default/rwop");
  VolumeRestrictions pl = Plugin();
  auto pod = MakePod("p", {Claim("rwop")});
  auto holder = std::make_shared<const framework::PodInfo>(MakePod("h", {Claim("rwop")}));
  auto other_ns = std::make_shared<const framework::PodInfo>(MakePod("h", {Claim("rwop")}, "other"));
  auto node = std::make_shared<api::Node>();
  framework::NodeInfo ni(node);
  framework::CycleState state;
  ASSERT_TRUE(pl.PreFilter(state, *pod, {&ni}).second.IsSuccess());
  EXPECT_EQ(pl.Filter(state, *pod, ni).code(), Code::kUnschedulable);
  auto cloned = state.Clone();
  ASSERT_TRUE(pl.RemovePod(*cloned, *pod, other_ns, ni).IsSuccess());
  EXPECT_EQ(pl.Filter(*cloned, *pod, ni).code(), Code::kUnschedulable);
  ASSERT_TRUE(pl.RemovePod(*cloned, *pod, holder, ni).IsSuccess());
  EXPECT_EQ(pl.Filter(*cloned, *pod, ni), Status());
  // The original state is untouched by the clone.
  EXPECT_EQ(pl.Filter(state, *pod, ni).code(), Code::kUnschedulable);
  ASSERT_TRUE(pl.AddPod(*cloned, *pod, holder, ni).IsSuccess());
  EXPECT_EQ(pl.Filter(*cloned, *pod, ni).code(), Code::kUnschedulable);
}

TEST_F(VolumeRestrictionsTest, FilterWithoutPreFilterIsAnError) {
  VolumeRestrictions pl = Plugin();
  framework::CycleState state;
  framework::NodeInfo ni(std::make_shared<api::Node>());
  EXPECT_EQ(pl.Filter(state, *MakePod("p", {GCE("a", false)}), ni).code(), Code::kError);
}

TEST_F(VolumeRestrictionsTest, Events) {
  auto on = Plugin(true).EventsToRegister();
  ASSERT_TRUE(on.ok());
  ASSERT_EQ(on->size(), 3u);
  EXPECT_EQ((*on)[0].event, ClusterEvent(framework::resource::kPod, ActionType::kDelete));
  EXPECT_TRUE((*on)[0].queueing_hint_fn);
  EXPECT_EQ((*on)[1].event, ClusterEvent(framework::resource::kNode, ActionType::kAdd));
  EXPECT_FALSE((*on)[1].queueing_hint_fn);
  EXPECT_EQ((*on)[2].event, ClusterEvent(framework::resource::kPersistentVolumeClaim, ActionType::kAdd));
  EXPECT_TRUE((*on)[2].queueing_hint_fn);
  auto off = Plugin(false).EventsToRegister();
  ASSERT_TRUE(off.ok());
  EXPECT_EQ((*off)[1].event, ClusterEvent(framework::resource::kNode, ActionType::kAdd |
                                                                          ActionType::kUpdateNodeTaint |
                                                                          ActionType::kUpdateNodeLabel));
}

TEST_F(VolumeRestrictionsTest, PodDeletedHint) {
  auto pod = MakePod("p", {GCE("disk", false), Claim("c")});
  struct Case {
    std::string name;
    std::shared_ptr<api::Pod> deleted;
    QueueingHint want;
  };
  std::vector<Case> cases = {
      {"conflicting disk", MakePod("d", {GCE("disk", false)}), QueueingHint::kQueue},
      {"other namespace", MakePod("d", {GCE("disk", false)}, "other"), QueueingHint::kQueueSkip},
      {"shared claim", MakePod("d", {Claim("c")}), QueueingHint::kQueue},
      {"unrelated volumes", MakePod("d", {GCE("other", false), Claim("x")}), QueueingHint::kQueueSkip},
      {"no volumes", MakePod("d", {}), QueueingHint::kQueueSkip},
  };
  for (const Case& c : cases) {
    auto got = VolumeRestrictions::IsSchedulableAfterPodDeleted(*pod, EventObject(c.deleted), EventObject());
    ASSERT_TRUE(got.ok()) << c.name;
    EXPECT_EQ(*got, c.want) << c.name;
  }
  EXPECT_FALSE(VolumeRestrictions::IsSchedulableAfterPodDeleted(*pod, EventObject(), EventObject()).ok());
}

TEST_F(VolumeRestrictionsTest, PVCAddedHint) {
  auto pod = MakePod("p", {Claim("c")});
  auto hint = [&](std::shared_ptr<api::PersistentVolumeClaim> pvc) {
    auto got = VolumeRestrictions::IsSchedulableAfterPVCAdded(*pod, EventObject(), EventObject(pvc));
    EXPECT_TRUE(got.ok());
    return got.ok() ? *got : QueueingHint::kQueue;
  };
  EXPECT_EQ(hint(MakePVC("c", {})), QueueingHint::kQueue);
  EXPECT_EQ(hint(MakePVC("other", {})), QueueingHint::kQueueSkip);
  EXPECT_EQ(hint(MakePVC("c", {}, "other")), QueueingHint::kQueueSkip);
  EXPECT_FALSE(VolumeRestrictions::IsSchedulableAfterPVCAdded(*pod, EventObject(), EventObject()).ok());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::volumerestrictions
