#include "pkg/scheduler/plugins/volumezone/volume_zone.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/in_memory_listers.h"

namespace ksched::scheduler::plugins::volumezone {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;

using Labels = std::map<std::string, std::string>;

std::shared_ptr<api::Pod> MakePod(std::vector<std::string> claims, const std::string& ns = "default") {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = "p";
  p->metadata.namespace_ = ns;
  for (const std::string& c : claims) {
    api::Volume v;
    v.name = c;
    v.persistent_volume_claim = api::PersistentVolumeClaimVolumeSource{c, false};
    p->spec.volumes.push_back(v);
  }
  return p;
}

std::shared_ptr<api::PersistentVolume> MakePV(const std::string& name, const Labels& labels) {
  auto pv = std::make_shared<api::PersistentVolume>();
  pv->metadata.name = name;
  for (const auto& [k, v] : labels) pv->metadata.labels[k] = v;
  return pv;
}

std::shared_ptr<api::PersistentVolumeClaim> MakePVC(const std::string& name, const std::string& volume,
                                                    std::optional<std::string> sc = std::nullopt,
                                                    const std::string& ns = "default") {
  auto c = std::make_shared<api::PersistentVolumeClaim>();
  c->metadata.name = name;
  c->metadata.namespace_ = ns;
  c->spec.volume_name = volume;
  c->spec.storage_class_name = std::move(sc);
  return c;
}

std::shared_ptr<api::StorageClass> MakeSC(const std::string& name, std::optional<std::string> mode) {
  auto sc = std::make_shared<api::StorageClass>();
  sc->metadata.name = name;
  sc->volume_binding_mode = std::move(mode);
  return sc;
}

framework::NodeInfo MakeNode(const Labels& labels) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = "n";
  for (const auto& [k, v] : labels) n->metadata.labels[k] = v;
  return framework::NodeInfo(n);
}

class VolumeZoneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    listers_.persistent_volumes.Set(MakePV("Vol_1", {{"failure-domain.beta.kubernetes.io/zone", "us-west1-a"}}));
    listers_.persistent_volumes.Set(MakePV("Vol_2", {{"failure-domain.beta.kubernetes.io/region", "us-west1"},
                                                     {"uselessLabel", "none"}}));
    listers_.persistent_volumes.Set(MakePV("Vol_3", {{"failure-domain.beta.kubernetes.io/region", "us-west1"}}));
    listers_.persistent_volumes.Set(
        MakePV("Vol_Stable_1", {{"topology.kubernetes.io/zone", "us-west1-a"}}));
    listers_.persistent_volumes.Set(
        MakePV("Vol_Multi", {{"topology.kubernetes.io/zone", "us-west1-a__us-west1-b"}}));
    listers_.persistent_volumes.Set(MakePV("Vol_NoLabel", {}));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_1", "Vol_1"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_2", "Vol_2"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_3", "Vol_3"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_Stable_1", "Vol_Stable_1"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_Multi", "Vol_Multi"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_NoLabel", "Vol_NoLabel"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_MissingPV", "Vol_Missing"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_WFFC", "", "Class_WFFC"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_Immediate", "", "Class_Immediate"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_NoMode", "", "Class_NoMode"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_MissingClass", "", "Class_Missing"));
    listers_.persistent_volume_claims.Set(MakePVC("PVC_NoClass", ""));
    listers_.storage_classes.Set(MakeSC("Class_WFFC", "WaitForFirstConsumer"));
    listers_.storage_classes.Set(MakeSC("Class_Immediate", "Immediate"));
    listers_.storage_classes.Set(MakeSC("Class_NoMode", std::nullopt));
  }

  Status Run(const api::Pod& pod, const framework::NodeInfo& ni, bool* skipped = nullptr) {
    VolumeZone pl(listers_, true);
    framework::CycleState state;
    auto [res, st] = pl.PreFilter(state, pod, {&ni});
    if (skipped) *skipped = st.IsSkip();
    if (st.IsSkip()) return Status();
    if (!st.IsSuccess()) return st;
    return pl.Filter(state, pod, ni);
  }

  framework::InMemorySharedListers listers_;
};

TEST_F(VolumeZoneTest, Filter) {
  const Status conflict(Code::kUnschedulableAndUnresolvable, std::string(kErrReasonConflict));
  struct Case {
    std::string name;
    std::vector<std::string> claims;
    Labels node;
    Status want;
  };
  std::vector<Case> cases = {
      {"node without zone labels fits", {"PVC_1"}, {{"uselessLabel", "none"}}, Status()},
      {"beta zone label matched", {"PVC_1"}, {{"failure-domain.beta.kubernetes.io/zone", "us-west1-a"}}, Status()},
      {"beta region label matched", {"PVC_2"}, {{"failure-domain.beta.kubernetes.io/region", "us-west1"}}, Status()},
      {"beta zone mismatch", {"PVC_1"}, {{"failure-domain.beta.kubernetes.io/zone", "us-west1-b"}}, conflict},
      {"beta region mismatch", {"PVC_2"}, {{"failure-domain.beta.kubernetes.io/region", "us-east1"}}, conflict},
      {"pv label missing on labelled node", {"PVC_1"}, {{"failure-domain.beta.kubernetes.io/region", "us-west1"}},
       conflict},
      {"beta pv label matches ga node label", {"PVC_1"}, {{"topology.kubernetes.io/zone", "us-west1-a"}}, Status()},
      {"ga pv label does not match beta node label", {"PVC_Stable_1"},
       {{"failure-domain.beta.kubernetes.io/zone", "us-west1-a"}}, conflict},
      {"ga zone matched", {"PVC_Stable_1"}, {{"topology.kubernetes.io/zone", "us-west1-a"}}, Status()},
      {"multi-zone value, second zone", {"PVC_Multi"}, {{"topology.kubernetes.io/zone", "us-west1-b"}}, Status()},
      {"multi-zone value, other zone", {"PVC_Multi"}, {{"topology.kubernetes.io/zone", "us-west1-c"}}, conflict},
      {"all of several claims must match", {"PVC_1", "PVC_3"},
       {{"failure-domain.beta.kubernetes.io/zone", "us-west1-a"}, {"failure-domain.beta.kubernetes.io/region", "us-east1"}},
       conflict},
      {"wffc unbound claim ignored", {"PVC_WFFC", "PVC_1"},
       {{"failure-domain.beta.kubernetes.io/zone", "us-west1-a"}}, Status()},
      {"missing pv", {"PVC_MissingPV"}, {}, Status(Code::kUnschedulableAndUnresolvable,
                                                   "persistentvolume \"Vol_Missing\" not found")},
      {"missing pvc", {"PVC_X"}, {}, Status(Code::kUnschedulableAndUnresolvable,
                                            "persistentvolumeclaim \"PVC_X\" not found")},
      {"missing class", {"PVC_MissingClass"}, {},
       Status(Code::kUnschedulableAndUnresolvable, "storageclass.storage.k8s.io \"Class_Missing\" not found")},
      {"no class", {"PVC_NoClass"}, {},
       Status(Code::kUnschedulableAndUnresolvable, "PersistentVolumeClaim had no pv name and storageClass name")},
      {"no binding mode", {"PVC_NoMode"}, {},
       Status(Code::kUnschedulableAndUnresolvable, "VolumeBindingMode not set for StorageClass \"Class_NoMode\"")},
      {"immediate unbound", {"PVC_Immediate"}, {},
       Status(Code::kUnschedulableAndUnresolvable, "PersistentVolume had no name")},
      {"empty claim name", {""}, {}, Status(Code::kUnschedulableAndUnresolvable, "PersistentVolumeClaim had no name")},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Run(*MakePod(c.claims), MakeNode(c.node)), c.want) << c.name;
  }
}

TEST_F(VolumeZoneTest, SkipsWithoutTopology) {
  bool skipped = false;
  EXPECT_EQ(Run(*MakePod({}), MakeNode({}), &skipped), Status());
  EXPECT_TRUE(skipped);
  EXPECT_EQ(Run(*MakePod({"PVC_NoLabel", "PVC_WFFC"}), MakeNode({{"topology.kubernetes.io/zone", "x"}}), &skipped),
            Status());
  EXPECT_TRUE(skipped);
  EXPECT_EQ(Run(*MakePod({"PVC_1"}), MakeNode({}), &skipped), Status());
  EXPECT_FALSE(skipped);
}

TEST_F(VolumeZoneTest, FilterWithoutPreFilterComputesTopologies) {
  VolumeZone pl(listers_, true);
  framework::CycleState state;
  EXPECT_EQ(pl.Filter(state, *MakePod({"PVC_1"}), MakeNode({{"topology.kubernetes.io/zone", "us-west1-b"}})).code(),
            Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(pl.Filter(state, *MakePod({"PVC_X"}), MakeNode({})).reasons(),
            std::vector<std::string>{"persistentvolumeclaim \"PVC_X\" not found"});
}

TEST_F(VolumeZoneTest, PVTopologies) {
  auto pv = MakePV("v", {{"topology.kubernetes.io/zone", " a __b"},
                         {"topology.kubernetes.io/region", "r__"},
                         {"failure-domain.beta.kubernetes.io/zone", "z"}});
  std::vector<PVTopology> want = {{"v", "failure-domain.beta.kubernetes.io/zone", {"z"}},
                                  {"v", "topology.kubernetes.io/zone", {"a", "b"}}};
  EXPECT_EQ(GetPVTopologies(*pv), want);
}

TEST_F(VolumeZoneTest, Events) {
  auto on = VolumeZone(listers_, true).EventsToRegister();
  ASSERT_TRUE(on.ok());
  ASSERT_EQ(on->size(), 4u);
  EXPECT_EQ((*on)[0].event, ClusterEvent(framework::resource::kStorageClass, ActionType::kAdd));
  EXPECT_TRUE((*on)[0].queueing_hint_fn);
  EXPECT_EQ((*on)[1].event, ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeLabel));
  EXPECT_FALSE((*on)[1].queueing_hint_fn);
  EXPECT_EQ((*on)[2].event,
            ClusterEvent(framework::resource::kPersistentVolumeClaim, ActionType::kAdd | ActionType::kUpdate));
  EXPECT_TRUE((*on)[2].queueing_hint_fn);
  EXPECT_EQ((*on)[3].event, ClusterEvent(framework::resource::kPersistentVolume, ActionType::kAdd | ActionType::kUpdate));
  EXPECT_TRUE((*on)[3].queueing_hint_fn);
  auto off = VolumeZone(listers_, false).EventsToRegister();
  ASSERT_TRUE(off.ok());
  EXPECT_EQ((*off)[1].event, ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeLabel |
                                                                          ActionType::kUpdateNodeTaint));
}

QueueingHint Must(util::StatusOr<QueueingHint> h) {
  EXPECT_TRUE(h.ok());
  return h.ok() ? *h : QueueingHint::kQueue;
}

TEST_F(VolumeZoneTest, Hints) {
  auto pod = MakePod({"PVC_1"});
  // StorageClass add.
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterStorageClassAdded(*pod, {}, EventObject(MakeSC("s", "WaitForFirstConsumer")))),
            QueueingHint::kQueue);
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterStorageClassAdded(*pod, {}, EventObject(MakeSC("s", "Immediate")))),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterStorageClassAdded(*pod, {}, EventObject(MakeSC("s", std::nullopt)))),
            QueueingHint::kQueueSkip);
  EXPECT_FALSE(VolumeZone::IsSchedulableAfterStorageClassAdded(*pod, {}, {}).ok());
  // PVC add/update.
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterPVCChange(*pod, {}, EventObject(MakePVC("PVC_1", "")))),
            QueueingHint::kQueue);
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterPVCChange(*pod, EventObject(MakePVC("PVC_1", "")),
                                                         EventObject(MakePVC("PVC_1", "Vol_1")))),
            QueueingHint::kQueue);
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterPVCChange(*pod, {}, EventObject(MakePVC("PVC_2", "")))),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterPVCChange(*pod, {}, EventObject(MakePVC("PVC_1", "", {}, "other")))),
            QueueingHint::kQueueSkip);
  EXPECT_FALSE(VolumeZone::IsSchedulableAfterPVCChange(*pod, {}, {}).ok());
  // PV add/update.
  auto zone_a = MakePV("v", {{"topology.kubernetes.io/zone", "a"}, {"other", "1"}});
  auto zone_a2 = MakePV("v", {{"topology.kubernetes.io/zone", "a"}, {"other", "2"}});
  auto zone_b = MakePV("v", {{"topology.kubernetes.io/zone", "b"}});
  auto region = MakePV("v", {{"topology.kubernetes.io/zone", "a"}, {"topology.kubernetes.io/region", "r"}});
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterPVChange(*pod, {}, EventObject(zone_a))), QueueingHint::kQueue);
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterPVChange(*pod, EventObject(zone_a), EventObject(zone_a2))),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterPVChange(*pod, EventObject(zone_a), EventObject(zone_b))),
            QueueingHint::kQueue);
  EXPECT_EQ(Must(VolumeZone::IsSchedulableAfterPVChange(*pod, EventObject(zone_a), EventObject(region))),
            QueueingHint::kQueue);
  EXPECT_FALSE(VolumeZone::IsSchedulableAfterPVChange(*pod, {}, {}).ok());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::volumezone
