#include "pkg/scheduler/framework/cluster_event.h"

#include <gtest/gtest.h>

#include <set>

namespace ksched::scheduler::framework {
namespace {

// kube-scheduler's values, with 1.35's UpdateNodeDeclaredFeature after
// 1.34's (ksched numbers its facets for itself; the strings are kube's).
TEST(ActionTypeTest, Values) {
  EXPECT_EQ(static_cast<int64_t>(ActionType::kAdd), 1);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kDelete), 2);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kUpdateNodeAllocatable), 4);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kUpdateNodeAnnotation), 64);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kUpdatePodLabel), 128);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kUpdatePodScaleDown), 256);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kUpdatePodToleration), 512);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kUpdatePodSchedulingGatesEliminated), 1024);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kUpdatePodGeneratedResourceClaim), 2048);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kUpdateNodeDeclaredFeature), 4096);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kAll), 8191);
  EXPECT_EQ(static_cast<int64_t>(ActionType::kUpdate), 8188);
  EXPECT_EQ(ActionTypeString(ActionType::kUpdateNodeDeclaredFeature), "UpdateNodeDeclaredFeature");
}

TEST(ActionTypeTest, Strings) {
  EXPECT_EQ(ActionTypeString(ActionType::kAdd), "Add");
  EXPECT_EQ(ActionTypeString(ActionType::kUpdateNodeTaint), "UpdateNodeTaint");
  EXPECT_EQ(ActionTypeString(ActionType::kUpdatePodToleration), "UpdatePodToleration");
  EXPECT_EQ(ActionTypeString(ActionType::kAll), "All");
  EXPECT_EQ(ActionTypeString(ActionType::kUpdate), "Update");
  EXPECT_EQ(ActionTypeString(ActionType::kAdd | ActionType::kDelete), "");
  EXPECT_EQ(ActionTypeString(ActionType::kNone), "");
}

TEST(ClusterEventTest, Labels) {
  EXPECT_EQ(ClusterEvent(resource::kNode, ActionType::kAdd).Label(), "NodeAdd");
  EXPECT_EQ(ClusterEvent(resource::kNode, ActionType::kUpdateNodeTaint).Label(), "NodeUpdateNodeTaint");
  EXPECT_EQ(kEventAssignedPodAdd.Label(), "AssignedPodAdd");
  EXPECT_EQ(kEventAssignedPodUpdate.Label(), "AssignedPodUpdate");
  EXPECT_EQ(kEventAssignedPodDelete.Label(), "AssignedPodDelete");
  EXPECT_EQ(kEventUnscheduledPodAdd.Label(), "UnschedulablePodAdd");
  EXPECT_EQ(kEventUnscheduledPodUpdate.Label(), "UnschedulablePodUpdate");
  EXPECT_EQ(kEventUnscheduledPodDelete.Label(), "UnschedulablePodDelete");
  EXPECT_EQ(kEventUnschedulableTimeout.Label(), "UnschedulableTimeout");
  EXPECT_EQ(kEventForceActivate.Label(), "ForceActivate");
  EXPECT_EQ(ClusterEvent(resource::kStorageClass, ActionType::kAdd).Label(), "storage.k8s.io/StorageClassAdd");
  EXPECT_EQ(ClusterEvent(resource::kPersistentVolumeClaim, ActionType::kAdd).Label(), "PersistentVolumeClaimAdd");
}

TEST(ClusterEventTest, WildCard) {
  EXPECT_TRUE(kEventUnschedulableTimeout.IsWildCard());
  EXPECT_TRUE(kEventForceActivate.IsWildCard());
  EXPECT_TRUE(kEventWildCard.IsWildCard());
  EXPECT_FALSE(ClusterEvent(resource::kWildCard, ActionType::kAdd).IsWildCard());
  EXPECT_FALSE(ClusterEvent(resource::kNode, ActionType::kAll).IsWildCard());
}

struct MatchCase {
  const char* name;
  ClusterEvent registered;
  ClusterEvent incoming;
  bool want;
};

TEST(ClusterEventTest, MatchTable) {
  const ClusterEvent node_add(resource::kNode, ActionType::kAdd);
  const ClusterEvent node_update(resource::kNode, ActionType::kUpdate);
  const ClusterEvent node_label(resource::kNode, ActionType::kUpdateNodeLabel);
  const ClusterEvent node_taint(resource::kNode, ActionType::kUpdateNodeTaint);
  const ClusterEvent node_all(resource::kNode, ActionType::kAll);
  const ClusterEvent pod_label(resource::kPod, ActionType::kUpdatePodLabel);
  const ClusterEvent pod_update(resource::kPod, ActionType::kUpdate);
  const ClusterEvent pod_all(resource::kPod, ActionType::kAll);
  const MatchCase cases[] = {
      {"wildcard registration matches anything", kEventWildCard, node_add, true},
      {"wildcard registration matches wildcard", kEventWildCard, kEventUnschedulableTimeout, true},
      {"incoming wildcard does not match a specific registration", node_all, kEventUnschedulableTimeout, false},
      {"exact", node_add, node_add, true},
      {"different resource", node_add, ClusterEvent(resource::kPersistentVolume, ActionType::kAdd), false},
      {"different action", node_add, node_label, false},
      {"specific incoming matches generic registration", node_update, node_label, true},
      {"generic incoming does not match specific registration", node_label, node_update, false},
      {"generic incoming matches generic registration", node_update, node_update, true},
      {"generic incoming matches All", node_all, node_update, true},
      {"multi-bit registration", ClusterEvent(resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint),
       node_taint, true},
      {"Pod covers AssignedPod", pod_label, ClusterEvent(resource::kAssignedPod, ActionType::kUpdatePodLabel), true},
      {"Pod covers UnschedulablePod", pod_all, kEventUnscheduledPodAdd, true},
      {"AssignedPod generic update reaches Pod/Update", pod_update, kEventAssignedPodUpdate, true},
      {"AssignedPod generic update misses Pod/UpdatePodLabel", pod_label, kEventAssignedPodUpdate, false},
      {"resource wildcard with action", ClusterEvent(resource::kWildCard, ActionType::kAdd), node_add, true},
      {"resource wildcard with other action", ClusterEvent(resource::kWildCard, ActionType::kAdd),
       ClusterEvent(resource::kNode, ActionType::kDelete), false},
      {"AssignedPod registration does not cover Pod", ClusterEvent(resource::kAssignedPod, ActionType::kAll),
       ClusterEvent(resource::kPod, ActionType::kAdd), false},
  };
  for (const MatchCase& c : cases) {
    EXPECT_EQ(Match(c.registered, c.incoming), c.want) << c.name;
  }
}

TEST(ClusterEventTest, MatchAny) {
  std::vector<ClusterEvent> registered{ClusterEvent(resource::kPod, ActionType::kUpdatePodSchedulingGatesEliminated)};
  EXPECT_TRUE(MatchAny(ClusterEvent(resource::kUnschedulablePod, ActionType::kUpdatePodSchedulingGatesEliminated),
                       registered));
  EXPECT_FALSE(MatchAny(kEventUnschedulableTimeout, registered));
  EXPECT_FALSE(MatchAny(kEventUnscheduledPodAdd, {}));
}

TEST(ClusterEventTest, UnrollAndLabels) {
  std::vector<ClusterEvent> unrolled = UnrollWildCardResource();
  EXPECT_EQ(unrolled.size(), 10u);
  for (const ClusterEvent& e : unrolled) EXPECT_EQ(e.action_type, ActionType::kAll);
  std::vector<std::string> labels = AllClusterEventLabels();
  std::set<std::string> unique(labels.begin(), labels.end());
  EXPECT_EQ(unique.size(), labels.size());
  EXPECT_TRUE(unique.count("NodeUpdateNodeTaint"));
  EXPECT_TRUE(unique.count("AssignedPodUpdate"));
  EXPECT_TRUE(unique.count("UnschedulableTimeout"));
}

TEST(ClusterEventTest, HashAndEquality) {
  ClusterEventHash h;
  ClusterEvent a(resource::kNode, ActionType::kAdd);
  ClusterEvent b(resource::kNode, ActionType::kAdd);
  EXPECT_EQ(a, b);
  EXPECT_EQ(h(a), h(b));
  EXPECT_FALSE(a == ClusterEvent(resource::kNode, ActionType::kAdd, "x"));
}

}  // namespace
}  // namespace ksched::scheduler::framework
