#include "pkg/scheduler/plugins/volumebinding/volume_util.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::plugins::volumebinding {
namespace {

api::NodeSelectorTerm HostTerm(std::vector<std::string> hosts) {
  api::NodeSelectorTerm t;
  t.match_expressions.push_back({std::string(kLabelHostname), "In", std::move(hosts)});
  return t;
}

std::shared_ptr<api::PersistentVolume> PV(const std::string& name, const std::string& size,
                                          const std::string& sc = "local") {
  auto pv = std::make_shared<api::PersistentVolume>();
  pv->metadata.name = name;
  pv->spec.capacity["storage"] = api::Quantity::MustParse(size);
  pv->spec.storage_class_name = sc;
  pv->spec.access_modes = {"ReadWriteOnce"};
  pv->status.phase = "Available";
  return pv;
}

api::PersistentVolumeClaim PVC(const std::string& name, const std::string& size, const std::string& sc = "local") {
  api::PersistentVolumeClaim c;
  c.metadata.name = name;
  c.metadata.namespace_ = "default";
  c.metadata.uid = "uid-" + name;
  c.spec.storage_class_name = sc;
  c.spec.access_modes = {"ReadWriteOnce"};
  c.spec.resources.requests["storage"] = api::Quantity::MustParse(size);
  return c;
}

const api::StringMap kNode1 = {{std::string(kLabelHostname), "node-1"}};

TEST(FindMatchingVolumeTest, PicksTheSmallestFittingVolume) {
  std::vector<PVPtr> pvs = {PV("big", "10Gi"), PV("small", "1Gi"), PV("fits", "2Gi"), PV("exact", "1536Mi")};
  auto got = FindMatchingVolume(PVC("c", "1.5Gi"), pvs, kNode1, {});
  ASSERT_TRUE(got.ok());
  ASSERT_NE(*got, nullptr);
  EXPECT_EQ((*got)->metadata.name, "exact");
  // Excluded volumes (chosen for an earlier claim) are skipped.
  got = FindMatchingVolume(PVC("c", "1.5Gi"), pvs, kNode1, {"exact"});
  EXPECT_EQ((*got)->metadata.name, "fits");
  got = FindMatchingVolume(PVC("c", "20Gi"), pvs, kNode1, {});
  EXPECT_EQ(*got, nullptr);
}

TEST(FindMatchingVolumeTest, FiltersByClassModesPhaseSelectorAffinityAndClaimRef) {
  auto wrong_class = PV("wrong-class", "1Gi", "other");
  auto rwx_only = PV("rwx", "1Gi");
  rwx_only->spec.access_modes = {"ReadWriteMany"};
  auto block = PV("block", "1Gi");
  block->spec.volume_mode = "Block";
  auto pending = PV("pending", "1Gi");
  pending->status.phase = "Pending";
  auto unlabelled = PV("unlabelled", "1Gi");
  auto elsewhere = PV("elsewhere", "1Gi");
  elsewhere->spec.node_affinity = api::VolumeNodeAffinity{api::NodeSelector{{HostTerm({"node-2"})}}};
  auto taken = PV("taken", "1Gi");
  taken->spec.claim_ref = api::ObjectReference{"PersistentVolumeClaim", "default", "other", "", "", "", ""};
  auto deleting = PV("deleting", "1Gi");
  deleting->metadata.deletion_timestamp = api::Time();
  auto good = PV("good", "5Gi");
  good->metadata.labels["tier"] = "fast";
  good->spec.node_affinity = api::VolumeNodeAffinity{api::NodeSelector{{HostTerm({"node-1"})}}};
  std::vector<PVPtr> pvs = {wrong_class, rwx_only, block, pending, unlabelled, elsewhere, taken, deleting, good};

  api::PersistentVolumeClaim claim = PVC("c", "1Gi");
  claim.spec.selector = api::LabelSelector{{{"tier", "fast"}}, {}};
  auto got = FindMatchingVolume(claim, pvs, kNode1, {});
  ASSERT_TRUE(got.ok());
  ASSERT_NE(*got, nullptr);
  EXPECT_EQ((*got)->metadata.name, "good");
  // On node-2 the only selector match is out of reach.
  got = FindMatchingVolume(claim, pvs, {{std::string(kLabelHostname), "node-2"}}, {});
  EXPECT_EQ(*got, nullptr);

  claim.spec.selector = api::LabelSelector{{}, {{"tier", "Bogus", {}}}};
  EXPECT_FALSE(FindMatchingVolume(claim, pvs, kNode1, {}).ok());
}

TEST(FindMatchingVolumeTest, AVolumePreBoundToTheClaimWinsOrFailsTheNode) {
  auto small = PV("small", "1Gi");
  auto mine = PV("mine", "8Gi");
  mine->status.phase = "Pending";  // phase does not matter for a pre-bound PV
  mine->spec.claim_ref = api::ObjectReference{"PersistentVolumeClaim", "default", "c", "", "", "", ""};
  mine->spec.node_affinity = api::VolumeNodeAffinity{api::NodeSelector{{HostTerm({"node-1"})}}};
  std::vector<PVPtr> pvs = {small, mine};
  auto got = FindMatchingVolume(PVC("c", "1Gi"), pvs, kNode1, {});
  ASSERT_NE(*got, nullptr);
  EXPECT_EQ((*got)->metadata.name, "mine");
  got = FindMatchingVolume(PVC("c", "1Gi"), pvs, {{std::string(kLabelHostname), "node-2"}}, {});
  EXPECT_EQ(*got, nullptr);
}

TEST(VolumeUtilTest, BindVolumeToClaimSetsTheClaimRef) {
  auto pv = PV("pv", "1Gi");
  api::PersistentVolumeClaim claim = PVC("c", "1Gi");
  claim.metadata.resource_version = "12";
  auto [bound, dirty] = BindVolumeToClaim(*pv, claim);
  EXPECT_TRUE(dirty);
  ASSERT_TRUE(bound.spec.claim_ref.has_value());
  EXPECT_EQ(bound.spec.claim_ref->name, "c");
  EXPECT_EQ(bound.spec.claim_ref->uid, "uid-c");
  EXPECT_EQ(bound.spec.claim_ref->kind, "PersistentVolumeClaim");
  EXPECT_EQ(bound.metadata.annotations.at(std::string(kAnnBoundByController)), "yes");
  auto [again, dirty_again] = BindVolumeToClaim(bound, claim);
  EXPECT_FALSE(dirty_again);
  // A user pre-binding by name only gets the uid filled in, not the
  // controller annotation.
  auto prebound = PV("pre", "1Gi");
  prebound->spec.claim_ref = api::ObjectReference{"", "default", "c", "", "", "", ""};
  auto [filled, dirty_filled] = BindVolumeToClaim(*prebound, claim);
  EXPECT_TRUE(dirty_filled);
  EXPECT_EQ(filled.spec.claim_ref->uid, "uid-c");
  EXPECT_EQ(filled.metadata.annotations.count(std::string(kAnnBoundByController)), 0u);
}

TEST(VolumeUtilTest, ClassesBindingStateAndVersions) {
  api::PersistentVolumeClaim claim = PVC("c", "1Gi", "spec-class");
  EXPECT_EQ(ClaimClass(claim), "spec-class");
  claim.metadata.annotations[std::string(kAnnBetaStorageClass)] = "beta-class";
  EXPECT_EQ(ClaimClass(claim), "beta-class");
  EXPECT_FALSE(IsClaimFullyBound(claim));
  claim.spec.volume_name = "pv";
  EXPECT_FALSE(IsClaimFullyBound(claim));
  claim.metadata.annotations[std::string(kAnnBindCompleted)] = "yes";
  EXPECT_TRUE(IsClaimFullyBound(claim));
  api::ObjectMeta meta;
  EXPECT_EQ(*ObjectVersion(meta), 0u);
  meta.resource_version = "42";
  EXPECT_EQ(*ObjectVersion(meta), 42u);
  meta.resource_version = "4x";
  EXPECT_FALSE(ObjectVersion(meta).ok());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::volumebinding
