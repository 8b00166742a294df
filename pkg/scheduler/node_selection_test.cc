#include "pkg/scheduler/node_selection.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/framework/test_objects.h"

namespace ksched::scheduler {
namespace {

TEST(NumFeasibleNodesToFindTest, Table) {
  struct Case {
    std::optional<int32_t> profile;
    int32_t global;
    int32_t nodes;
    int32_t want;
  };
  const Case cases[] = {
      {std::nullopt, 0, 0, 0},
      {std::nullopt, 0, 10, 10},          // fewer than 100: all
      {std::nullopt, 40, 99, 99},         // still all, whatever the percentage
      {std::nullopt, 0, 100, 100},        // adaptive 50% of 100 = 50 -> min 100
      {std::nullopt, 0, 1000, 420},       // 50 - 1000/125 = 42%
      {std::nullopt, 0, 5000, 500},       // 50 - 40 = 10%
      {std::nullopt, 0, 6000, 300},       // 50 - 48 = 2% -> at least 5%
      {std::nullopt, 0, 10000, 500},      // 5%
      {std::nullopt, 40, 1000, 400},      // global percentage
      {std::nullopt, 100, 1000, 1000},
      {10, 40, 1000, 100},                // profile wins over global
      {5, 40, 1000, 100},                 // 50 -> at least 100
      {std::optional<int32_t>(0), 40, 1000, 420},  // profile 0 means adaptive
      {std::nullopt, 1, 20000, 200},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(NumFeasibleNodesToFind(c.profile, c.global, c.nodes), c.want)
        << "profile=" << c.profile.value_or(-1) << " global=" << c.global << " nodes=" << c.nodes;
  }
}

TEST(SelectHostTest, PicksTheHighestScore) {
  std::mt19937_64 rng(1);
  EXPECT_EQ(SelectHost({3, 9, 1, 8}, rng), 1u);
  EXPECT_EQ(SelectHost({7}, rng), 0u);
}

TEST(SelectHostTest, TiesAreUniform) {
  std::mt19937_64 rng(7);
  const std::vector<int64_t> totals = {5, 10, 2, 10, 10, 9, 10};
  std::map<size_t, int> counts;
  const int kDraws = 40000;
  for (int i = 0; i < kDraws; ++i) ++counts[SelectHost(totals, rng)];
  ASSERT_EQ(counts.size(), 4u);
  for (size_t idx : {1u, 3u, 4u, 6u}) {
    // Expected 10000 each; 5 sigma is about 430.
    EXPECT_NEAR(counts[idx], kDraws / 4, 500) << "index " << idx;
  }
}

// Worked through Go's heap.Init by hand: which tied node ends on top
// depends on where the sift-downs leave it, not on its position alone.
TEST(SelectHostByScoreHeapTest, RootOfGoHeapInit) {
  EXPECT_EQ(SelectHostByScoreHeap({7}), 0u);
  EXPECT_EQ(SelectHostByScoreHeap({3, 9, 1, 8}), 1u);
  // Parent 1 (2) swaps with its only child 3 (3); the root (1) then takes
  // child 1, now node 3, since node 2's equal 3 does not beat it.
  EXPECT_EQ(SelectHostByScoreHeap({1, 2, 3, 3}), 3u);
  // Node 6 rises to index 2, but the root takes its first child, node 1.
  EXPECT_EQ(SelectHostByScoreHeap({5, 10, 2, 10, 10, 9, 10}), 1u);
  EXPECT_EQ(SelectHostByScoreHeap({4, 4, 4}), 0u);
}

TEST(SelectHostLowestNameTest, LowestNameAmongTheBestTotals) {
  std::vector<std::unique_ptr<framework::NodeInfo>> infos;
  framework::NodeInfoList nodes;
  for (const char* name : {"node-c", "node-a", "node-d", "node-b"}) {
    infos.push_back(std::make_unique<framework::NodeInfo>());
    infos.back()->SetNode(framework::testing::MakeNode(name).Obj());
    nodes.push_back(infos.back().get());
  }
  // node-a has a lower total; node-b is the lowest name among the best.
  EXPECT_EQ(SelectHostLowestName({10, 5, 10, 10}, nodes), 3u);
  EXPECT_EQ(SelectHostLowestName({10, 11, 10, 10}, nodes), 1u);
  EXPECT_EQ(SelectHostLowestName({7, 1, 2, 3}, nodes), 0u);
}

}  // namespace
}  // namespace ksched::scheduler
