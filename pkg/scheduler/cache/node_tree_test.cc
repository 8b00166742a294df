#include "pkg/scheduler/cache/node_tree.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/test_objects.h"
#include "pkg/util/heap_in_use.h"

namespace ksched::scheduler::cache {
namespace {

using framework::testing::MakeNode;
using Strings = std::vector<std::string>;

TEST(NodeTreeTest, ZoneKey) {
  EXPECT_EQ(GetZoneKey(*MakeNode("n").Obj()), "");
  EXPECT_EQ(GetZoneKey(*MakeNode("n").Zone("z1").Obj()), std::string(":\0:z1", 5));
  EXPECT_EQ(GetZoneKey(*MakeNode("n").Region("r").Zone("z1").Obj()), std::string("r:\0:z1", 6));
  // The beta labels win.
  auto beta = MakeNode("n").Zone("new").Label("failure-domain.beta.kubernetes.io/zone", "old").Obj();
  EXPECT_EQ(GetZoneKey(*beta), std::string(":\0:old", 6));
}

TEST(NodeTreeTest, ListInterleavesZones) {
  NodeTree t;
  for (auto [name, zone] : std::vector<std::pair<const char*, const char*>>{
           {"a1", "z1"}, {"a2", "z1"}, {"a3", "z1"}, {"b1", "z2"}, {"c1", "z3"}, {"c2", "z3"}}) {
    t.AddNode(*MakeNode(name).Zone(zone).Obj());
  }
  const int64_t v = t.version();
  t.AddNode(*MakeNode("a1").Zone("z1").Obj());  // duplicate ignored
  EXPECT_EQ(t.NumNodes(), 6u);
  EXPECT_EQ(t.version(), v);
  EXPECT_EQ(t.List(), (Strings{"a1", "b1", "c1", "a2", "c2", "a3"}));

  ASSERT_TRUE(t.RemoveNode(*MakeNode("b1").Zone("z2").Obj()).ok());  // zone z2 disappears
  EXPECT_EQ(t.List(), (Strings{"a1", "c1", "a2", "c2", "a3"}));
  util::Status s = t.RemoveNode(*MakeNode("b1").Zone("z2").Obj());
  EXPECT_EQ(s.code(), util::StatusCode::kNotFound);

  // A zone change moves the node to the end of its new zone.
  t.UpdateNode(*MakeNode("a1").Zone("z1").Obj(), *MakeNode("a1").Zone("z3").Obj());
  EXPECT_EQ(t.List(), (Strings{"a2", "c1", "a3", "c2", "a1"}));
  const int64_t v2 = t.version();
  t.UpdateNode(*MakeNode("a2").Zone("z1").Obj(), *MakeNode("a2").Zone("z1").Label("x", "y").Obj());
  EXPECT_EQ(t.List(), (Strings{"a2", "c1", "a3", "c2", "a1"}));
  EXPECT_EQ(t.version(), v2);  // same zone: nothing moved
  EXPECT_EQ(t.NumNodes(), 5u);
}

TEST(NodeTreeTest, NodeAddedUnderAnotherZoneMovesAndRemovalChecksTheZone) {
  NodeTree t;
  t.AddNode(*MakeNode("a").Zone("z1").Obj());
  t.AddNode(*MakeNode("b").Zone("z1").Obj());
  // Added again under z2 without an update: listed once, in z2.
  t.AddNode(*MakeNode("a").Zone("z2").Obj());
  EXPECT_EQ(t.NumNodes(), 2u);
  EXPECT_EQ(t.List(), (Strings{"b", "a"}));
  // Removing it from the zone it left finds nothing.
  EXPECT_EQ(t.RemoveNode(*MakeNode("a").Zone("z1").Obj()).code(), util::StatusCode::kNotFound);
  ASSERT_TRUE(t.RemoveNode(*MakeNode("a").Zone("z2").Obj()).ok());
  EXPECT_EQ(t.List(), (Strings{"b"}));
  // Gone means gone: it can come back.
  t.AddNode(*MakeNode("a").Zone("z1").Obj());
  EXPECT_EQ(t.List(), (Strings{"b", "a"}));
}

TEST(NodeTreeTest, ManyNodesInOneZone) {
  // Adding is O(1): 20000 nodes in one zone, then every one added again.
  NodeTree t;
  for (int i = 0; i < 20000; ++i) t.AddNode(*MakeNode("n" + std::to_string(i)).Obj());
  for (int i = 0; i < 20000; ++i) t.AddNode(*MakeNode("n" + std::to_string(i)).Obj());
  EXPECT_EQ(t.NumNodes(), 20000u);
  EXPECT_EQ(t.List().back(), "n19999");
}

// A node's name is stored once (the zones' lists point at it): at 5,000
// nodes the tree is part of every scheduler's steady memory.
TEST(NodeTreeTest, ANodeCostsOneCopyOfItsName) {
  if (!util::kHeapBytesCounted) GTEST_SKIP() << "the sanitizer's allocator owns the heap";
  constexpr int kNodes = 10000;
  std::vector<std::shared_ptr<const api::Node>> nodes;
  for (int i = 0; i < kNodes; ++i) {
    nodes.push_back(MakeNode("scheduler-perf-node-" + std::to_string(i)).Zone("zone-" + std::to_string(i % 3)).Obj());
  }
  const size_t before = util::HeapBytesInUse();
  NodeTree t;
  for (const auto& n : nodes) t.AddNode(*n);
  const size_t per_node = (util::HeapBytesInUse() - before) / kNodes;
  EXPECT_LE(per_node, 144u);  // 236 with a copy in the zone list and the index each
  std::printf("bytes per node in the tree: %zu\n", per_node);
  EXPECT_EQ(t.List().size(), size_t{kNodes});
}

}  // namespace
}  // namespace ksched::scheduler::cache
