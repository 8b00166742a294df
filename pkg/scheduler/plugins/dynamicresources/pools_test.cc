#include "pkg/scheduler/plugins/dynamicresources/pools.h"

#include <gtest/gtest.h>

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
}

}  // namespace
}  // namespace ksched::scheduler::dra
