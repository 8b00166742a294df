#include "pkg/scheduler/plugins/dynamicresources/pool_cache.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::dra {
namespace {

SlicePtr ZoneSlice(std::string name, std::string zone, std::vector<std::string> devices) {
  auto s = std::make_shared<api::ResourceSlice>();
  s->metadata.name = name;
  s->spec.driver = "gpu.example.com";
  s->spec.pool = api::ResourcePool{std::move(name), 1, 1};
  api::NodeSelectorRequirement zone_is{"zone", "In", {std::move(zone)}};
  s->spec.node_selector = api::NodeSelector{{api::NodeSelectorTerm{{zone_is}, {}}}};
  for (auto& d : devices) s->spec.devices.push_back(api::Device{std::move(d), {}, {}});
  return s;
}

api::Node Node(std::string name, std::string zone) {
  api::Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels["zone"] = std::move(zone);
  return n;
}

std::vector<std::string> PoolNames(const Pools& pools) {
  std::vector<std::string> out;
  for (const Pool& p : *pools) out.push_back(p.name);
  return out;
}

TEST(PoolCacheTest, TheSameSlicesKeepTheirPoolsPerNode) {
  PoolCache cache;
  const std::vector<SlicePtr> slices = {ZoneSlice("a", "z1", {"gpu-0"}), ZoneSlice("b", "z2", {"gpu-1"})};
  std::shared_ptr<const SlicePools> first = cache.Get(slices);
  EXPECT_EQ(cache.Get(slices), first);

  const api::Node node = Node("node-1", "z1");
  auto pools = first->For(node, {});
  ASSERT_TRUE(pools.ok());
  EXPECT_EQ(PoolNames(*pools), std::vector<std::string>{"a"});
  auto again = first->For(node, {});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *pools) << "gathered again for the same node and slices";

  // Other labels, other options: gathered afresh.
  auto moved = first->For(Node("node-1", "z2"), {});
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(PoolNames(*moved), std::vector<std::string>{"b"});
  PoolOptions whole;
  whole.gather.whole_pool_counts = true;
  auto other_options = first->For(Node("node-1", "z2"), whole);
  ASSERT_TRUE(other_options.ok());
  EXPECT_NE(*other_options, *moved);
  EXPECT_EQ(PoolNames(*other_options), std::vector<std::string>{"b"});
}

TEST(PoolCacheTest, ANewSliceObjectMakesNewPools) {
  PoolCache cache;
  std::vector<SlicePtr> slices = {ZoneSlice("a", "z1", {"gpu-0"})};
  std::shared_ptr<const SlicePools> first = cache.Get(slices);
  const api::Node node = Node("node-1", "z1");
  auto before = first->For(node, {});
  ASSERT_TRUE(before.ok());

  slices[0] = ZoneSlice("a", "z1", {"gpu-0", "gpu-1"});  // the informer's next version
  std::shared_ptr<const SlicePools> second = cache.Get(slices);
  EXPECT_NE(second, first);
  auto after = second->For(node, {});
  ASSERT_TRUE(after.ok());
  ASSERT_EQ((*after)->size(), 1u);
  EXPECT_EQ((*after)->front().slices.front()->spec.devices.size(), 2u);
  // The old list's pools stay whole for a cycle still holding them.
  EXPECT_EQ((*before)->front().slices.front()->spec.devices.size(), 1u);
}

TEST(PoolCacheTest, BindingConditionsLastPutsSuchPoolsAfterTheOthers) {
  std::vector<SlicePtr> slices = {ZoneSlice("a", "z1", {"gpu-0"}), ZoneSlice("b", "z1", {"gpu-1"})};
  auto waiting = std::make_shared<api::ResourceSlice>(*slices[0]);
  waiting->spec.devices[0].binding_conditions = {"attached"};
  slices[0] = waiting;
  SlicePools pools(slices);
  PoolOptions last;
  last.binding_conditions_last = true;
  auto ordered = pools.For(Node("node-1", "z1"), last);
  ASSERT_TRUE(ordered.ok());
  EXPECT_EQ(PoolNames(*ordered), (std::vector<std::string>{"b", "a"}));
  auto by_name = pools.For(Node("node-1", "z1"), {});
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(PoolNames(*by_name), (std::vector<std::string>{"a", "b"}));
}

TEST(PoolCacheTest, AMalformedSelectorIsAnErrorEachTime) {
  auto bad = ZoneSlice("a", "z1", {"gpu-0"});
  auto broken = std::make_shared<api::ResourceSlice>(*bad);
  broken->spec.node_selector->node_selector_terms[0].match_expressions[0].operator_ = "Sideways";
  SlicePools pools({broken});
  EXPECT_FALSE(pools.For(Node("node-1", "z1"), {}).ok());
  EXPECT_FALSE(pools.For(Node("node-1", "z1"), {}).ok());
}

}  // namespace
}  // namespace ksched::scheduler::dra
