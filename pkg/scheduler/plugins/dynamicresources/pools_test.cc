#include "pkg/scheduler/plugins/dynamicresources/pools.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/plugins/dynamicresources/pool_cache.h"

namespace ksched::scheduler::dra {
namespace {

std::shared_ptr<const api::ResourceSlice> Slice(std::string name, std::string driver, std::string pool,
                                                int64_t generation, int64_t count, std::vector<std::string> devices) {
  auto s = std::make_shared<api::ResourceSlice>();
  s->metadata.name = std::move(name);
  s->spec.driver = std::move(driver);
  s->spec.pool = api::ResourcePool{std::move(pool), generation, count};
  s->spec.node_name = "node-1";
  for (auto& d : devices) s->spec.devices.push_back(api::Device{std::move(d), {}, {}});
  return s;
}

api::Node Node(std::string name, std::string zone) {
  api::Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels["zone"] = std::move(zone);
  return n;
}

TEST(GatherPoolsTest, NewestGenerationAndCompleteness) {
  auto pools = GatherPools({Slice("a", "d", "p", 1, 1, {"old"}), Slice("b", "d", "p", 2, 2, {"x"}),
                            Slice("c", "d", "p", 2, 2, {"y"}), Slice("e", "d", "q", 1, 3, {"z"}),
                            Slice("f", "c", "p", 1, 1, {"w"})},
                           Node("node-1", "z1"));
  ASSERT_TRUE(pools.ok());
  ASSERT_EQ(pools->size(), 3u);
  // Sorted by driver, then pool.
  EXPECT_EQ((*pools)[0].Id(), "c/p");
  EXPECT_EQ((*pools)[1].Id(), "d/p");
  ASSERT_EQ((*pools)[1].slices.size(), 2u);
  EXPECT_EQ((*pools)[1].slices[0]->metadata.name, "b");
  EXPECT_FALSE((*pools)[1].incomplete);
  EXPECT_EQ((*pools)[2].Id(), "d/q");
  EXPECT_TRUE((*pools)[2].incomplete);
  // An older generation arriving after a newer one is ignored too.
  pools = GatherPools({Slice("b", "d", "p", 2, 1, {"x"}), Slice("a", "d", "p", 1, 1, {"old"})}, Node("node-1", "z1"));
  ASSERT_TRUE(pools.ok());
  ASSERT_EQ((*pools)[0].slices.size(), 1u);
  EXPECT_EQ((*pools)[0].slices[0]->metadata.name, "b");
}

TEST(GatherPoolsTest, NodeSelection) {
  auto local = Slice("local", "d", "local", 1, 1, {"a"});
  auto other = std::make_shared<api::ResourceSlice>(*Slice("other", "d", "other", 1, 1, {"b"}));
  other->spec.node_name = "node-2";
  auto all = std::make_shared<api::ResourceSlice>(*Slice("all", "d", "all", 1, 1, {"c"}));
  all->spec.node_name.reset();
  all->spec.all_nodes = true;
  auto zoned = std::make_shared<api::ResourceSlice>(*Slice("zoned", "d", "zoned", 1, 1, {"e"}));
  zoned->spec.node_name.reset();
  zoned->spec.node_selector = api::NodeSelector{{api::NodeSelectorTerm{{{"zone", "In", {"z1"}}}, {}}}};
  auto nothing = std::make_shared<api::ResourceSlice>(*Slice("nothing", "d", "nothing", 1, 1, {"f"}));
  nothing->spec.node_name.reset();  // no node selection at all: skipped
  auto pools = GatherPools({local, other, all, zoned, nothing}, Node("node-1", "z1"));
  ASSERT_TRUE(pools.ok());
  std::vector<std::string> ids;
  for (const Pool& p : *pools) ids.push_back(p.name);
  EXPECT_EQ(ids, (std::vector<std::string>{"all", "local", "zoned"}));
  pools = GatherPools({local, other, all, zoned}, Node("node-2", "z2"));
  ASSERT_TRUE(pools.ok());
  ids.clear();
  for (const Pool& p : *pools) ids.push_back(p.name);
  EXPECT_EQ(ids, (std::vector<std::string>{"all", "other"}));
  // A malformed selector is an error naming the slice.
  auto bad = std::make_shared<api::ResourceSlice>(*zoned);
  bad->spec.node_selector = api::NodeSelector{{api::NodeSelectorTerm{{{"zone", "Sometimes", {"z1"}}}, {}}}};
  pools = GatherPools({bad}, Node("node-1", "z1"));
  ASSERT_FALSE(pools.ok());
  EXPECT_EQ(pools.status().message().rfind("failed to perform node selection for slice zoned: ", 0), 0u)
      << pools.status().message();
}

TEST(GatherPoolsTest, DuplicateDeviceNamesMakeThePoolInvalid) {
  auto pools = GatherPools({Slice("a", "d", "p", 1, 2, {"x"}), Slice("b", "d", "p", 1, 2, {"x"})}, Node("node-1", "z1"));
  ASSERT_TRUE(pools.ok());
  EXPECT_TRUE((*pools)[0].invalid);
  EXPECT_EQ((*pools)[0].invalid_reason, "duplicate device name x");
  // The first device whose name came before names the pool's fault, in
  // slice and device order, not the name that sorts first.
  pools = GatherPools({Slice("a", "d", "p", 1, 2, {"c", "b", "a"}), Slice("b", "d", "p", 1, 2, {"d", "b", "a"})},
                      Node("node-1", "z1"));
  ASSERT_TRUE(pools.ok());
  EXPECT_EQ((*pools)[0].invalid_reason, "duplicate device name b");
  pools = GatherPools({Slice("a", "d", "p", 1, 1, {"c", "b", "a"})}, Node("node-1", "z1"));
  ASSERT_TRUE(pools.ok());
  EXPECT_FALSE((*pools)[0].invalid);
}

TEST(GatherPoolsTest, SlicesInNameOrder) {
  auto pools = GatherPools({Slice("z", "d", "p", 1, 2, {"x"}), Slice("a", "d", "p", 1, 2, {"y"})}, Node("node-1", "z1"));
  ASSERT_TRUE(pools.ok());
  ASSERT_EQ((*pools)[0].slices.size(), 2u);
  EXPECT_EQ((*pools)[0].slices[0]->metadata.name, "a");
}

TEST(GatherPoolsTest, DevicesWithCapacityHaveTheirValuesParsed) {
  auto slice = std::make_shared<api::ResourceSlice>(*Slice("a", "d", "p", 1, 1, {"plain", "sized"}));
  slice->spec.devices[1].capacity["memory"] = api::DeviceCapacity{"40Gi", std::nullopt};
  auto pools = GatherPools({slice}, Node("node-1", "z1"));
  ASSERT_TRUE(pools.ok());
  const Pool& pool = (*pools)[0];
  const api::Device& plain = pool.slices[0]->spec.devices[0];
  const api::Device& sized = pool.slices[0]->spec.devices[1];
  EXPECT_EQ(pool.CapacityValuesOf(plain), nullptr);
  ASSERT_NE(pool.CapacityValuesOf(sized), nullptr);
  ASSERT_EQ(pool.CapacityValuesOf(sized)->size(), 1u);
  EXPECT_EQ(pool.CapacityValuesOf(sized)->front().ToString(), "40Gi");
  EXPECT_TRUE(pool.whole_capacity_fits);

  slice->spec.devices[0].capacity["memory"] = api::DeviceCapacity{"40Gi", api::CapacityRequestPolicy{}};
  auto with_policy = GatherPools({slice}, Node("node-1", "z1"));
  ASSERT_TRUE(with_policy.ok());
  EXPECT_FALSE((*with_policy)[0].whole_capacity_fits);
}

TEST(GatherPoolsTest, PartitionableSlices) {
  const GatherOptions on{.whole_pool_counts = true, .partitionable_devices = true};
  // Counters published on node-2, devices chosen per device.
  auto counters = std::make_shared<api::ResourceSlice>(*Slice("counters", "d", "p", 1, 3, {}));
  counters->spec.node_name = "node-2";
  counters->spec.shared_counters.push_back(api::CounterSet{"gpu", {{"memory", {api::Quantity::MustParse("1Gi")}}}});
  auto per_device = std::make_shared<api::ResourceSlice>(*Slice("per-device", "d", "p", 1, 3, {"here", "there"}));
  per_device->spec.node_name.reset();
  per_device->spec.per_device_node_selection = true;
  per_device->spec.devices[0].node_name = "node-1";
  per_device->spec.devices[1].node_name = "node-2";
  auto elsewhere = std::make_shared<api::ResourceSlice>(*Slice("elsewhere", "d", "p", 1, 3, {"far"}));
  elsewhere->spec.node_name = "node-3";

  auto pools = GatherPools({counters, per_device, elsewhere}, Node("node-1", "z1"), on);
  ASSERT_TRUE(pools.ok()) << pools.status().ToString();
  ASSERT_EQ(pools->size(), 1u);
  const Pool& pool = (*pools)[0];
  EXPECT_FALSE(pool.incomplete);
  EXPECT_FALSE(pool.invalid) << pool.invalid_reason;
  ASSERT_EQ(pool.slices.size(), 1u);
  EXPECT_EQ(pool.slices[0]->metadata.name, "per-device");
  ASSERT_EQ(pool.slices_elsewhere.size(), 1u);
  EXPECT_EQ(pool.slices_elsewhere[0]->metadata.name, "elsewhere");
  ASSERT_EQ(pool.counter_sets.count("gpu"), 1u);
  // A per-device slice none of whose devices reaches the node is not the node's.
  pools = GatherPools({counters, per_device, elsewhere}, Node("node-4", "z1"), on);
  ASSERT_TRUE(pools.ok());
  EXPECT_TRUE(pools->empty());
  // Kube 1.35 and 1.36: the counter slice reaches every node, so node-4
  // gathers the pool, with no devices of its own.
  GatherOptions v136 = on;
  v136.counter_slices_reach_every_node = true;
  pools = GatherPools({counters, per_device, elsewhere}, Node("node-4", "z1"), v136);
  ASSERT_TRUE(pools.ok());
  ASSERT_EQ(pools->size(), 1u);
  EXPECT_TRUE((*pools)[0].slices.empty());
  EXPECT_EQ((*pools)[0].slices_elsewhere.size(), 2u);
  EXPECT_FALSE((*pools)[0].invalid);
  // Without the feature, per-device and counter slices are not read.
  pools = GatherPools({counters, per_device, elsewhere}, Node("node-1", "z1"), {.whole_pool_counts = true});
  ASSERT_TRUE(pools.ok());
  EXPECT_TRUE(pools->empty());
  // A device's malformed selector is an error naming device and slice.
  per_device->spec.devices[0].node_name.reset();
  per_device->spec.devices[0].node_selector = api::NodeSelector{{api::NodeSelectorTerm{{{"zone", "Sometimes", {"z1"}}}, {}}}};
  pools = GatherPools({per_device}, Node("node-1", "z1"), on);
  ASSERT_FALSE(pools.ok());
  EXPECT_EQ(pools.status().message().rfind("failed to perform node selection for device here in slice per-device: ", 0),
            0u)
      << pools.status().message();
}

// A slice of its own pool for the nodes of `zone` (a node selector).
SlicePtr ZoneSlice(std::string name, std::string zone, std::vector<std::string> devices) {
  auto s = std::make_shared<api::ResourceSlice>(*Slice(name, "gpu.example.com", name, 1, 1, std::move(devices)));
  s->spec.node_name.reset();
  api::NodeSelectorRequirement zone_is{"zone", "In", {std::move(zone)}};
  s->spec.node_selector = api::NodeSelector{{api::NodeSelectorTerm{{zone_is}, {}}}};
  return s;
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

TEST(PoolCacheTest, UnchangedRevisionsSkipTheList) {
  PoolCache cache;
  std::vector<SlicePtr> slices = {ZoneSlice("a", "z1", {"gpu-0"})};
  int lists = 0;
  auto list = [&] {
    ++lists;
    return slices;
  };
  std::shared_ptr<const SlicePools> first = cache.Get(PoolCache::Revisions{{1, 0}}, list);
  EXPECT_EQ(cache.Get(PoolCache::Revisions{{1, 0}}, list), first);
  EXPECT_EQ(lists, 1) << "listed again with nothing changed";

  slices[0] = ZoneSlice("a", "z1", {"gpu-0", "gpu-1"});
  std::shared_ptr<const SlicePools> second = cache.Get(PoolCache::Revisions{{2, 0}}, list);
  EXPECT_EQ(lists, 2);
  EXPECT_NE(second, first);
  EXPECT_EQ(second->slices(), slices);
  // A rule's change lists again; the same objects keep their pools.
  EXPECT_EQ(cache.Get(PoolCache::Revisions{{2, 1}}, list), second);
  EXPECT_EQ(lists, 3);
  // Without revisions every call lists.
  cache.Get(std::nullopt, list);
  cache.Get(std::nullopt, list);
  EXPECT_EQ(lists, 5);
  // A plain Get forgets the revisions it cannot vouch for.
  cache.Get(PoolCache::Revisions{{3, 1}}, list);
  cache.Get(slices);
  cache.Get(PoolCache::Revisions{{3, 1}}, list);
  EXPECT_EQ(lists, 7);
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
