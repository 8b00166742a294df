#include "pkg/scheduler/cache/snapshot.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/test_objects.h"

namespace ksched::scheduler::cache {
namespace {

using framework::testing::MakeNode;
using framework::testing::MakePod;

TEST(SnapshotTest, FromObjects) {
  auto s = Snapshot::FromObjects(
      {MakePod("a").Node("n1").Req({{"cpu", "1"}}).Obj(),
       MakePod("b").Node("n2").RequiredPodAffinity("zone", {{"x", "y"}}, /*anti=*/true).PVC("c").Obj(),
       MakePod("stray").Node("gone").Obj()},
      {MakeNode("n1").Image({"nginx:1", "nginx"}, 100).Obj(), MakeNode("n2").Image({"nginx:1"}, 100).Obj()});
  ASSERT_EQ(s->NumNodes(), 2u);
  EXPECT_EQ(s->List()[0]->node_name(), "n1");
  EXPECT_EQ(s->List()[1]->node_name(), "n2");
  EXPECT_EQ(s->NodeInfos().List().size(), 2u);
  util::StatusOr<const framework::NodeInfo*> n1 = s->Get("n1");
  ASSERT_TRUE(n1.ok());
  EXPECT_EQ((*n1)->requested().milli_cpu, 1000);
  EXPECT_EQ((*n1)->image_states().at("nginx:1").num_nodes, 2);
  EXPECT_EQ((*n1)->image_states().at("nginx").num_nodes, 1);
  EXPECT_EQ(s->HavePodsWithAffinityList().size(), 1u);
  EXPECT_EQ(s->HavePodsWithRequiredAntiAffinityList().size(), 1u);
  EXPECT_TRUE(s->StorageInfos().IsPVCUsedByPods("default/c"));
  EXPECT_FALSE(s->IsPVCUsedByPods("default/d"));
  util::StatusOr<const framework::NodeInfo*> missing = s->Get("gone");
  EXPECT_EQ(missing.status().message(), "nodeinfo not found for node name \"gone\"");
  EXPECT_GE(s->generation(), (*n1)->generation());
}

}  // namespace
}  // namespace ksched::scheduler::cache
