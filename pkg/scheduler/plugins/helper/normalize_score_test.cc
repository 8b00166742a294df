#include "pkg/scheduler/plugins/helper/normalize_score.h"

#include <gtest/gtest.h>

#include <vector>

namespace ksched::scheduler::plugins::helper {
namespace {

std::vector<int64_t> Normalized(std::vector<int64_t> raw, bool reverse) {
  framework::NodeScoreList scores;
  for (int64_t score : raw) scores.push_back({"node", score});
  DefaultNormalizeScore(framework::kMaxNodeScore, reverse, scores);
  std::vector<int64_t> out;
  for (const auto& s : scores) out.push_back(s.score);
  return out;
}

// The cases of kube-scheduler's helper/normalize_score_test.go.
TEST(DefaultNormalizeScoreTest, ScalesToTheHighestScore) {
  EXPECT_EQ(Normalized({10, 20, 30, 40}, false), (std::vector<int64_t>{25, 50, 75, 100}));
  EXPECT_EQ(Normalized({1, 2, 3}, false), (std::vector<int64_t>{33, 66, 100}));
  EXPECT_EQ(Normalized({0, 7}, false), (std::vector<int64_t>{0, 100}));
}

TEST(DefaultNormalizeScoreTest, ReverseTurnsTheScaleAround) {
  EXPECT_EQ(Normalized({10, 20, 30, 40}, true), (std::vector<int64_t>{75, 50, 25, 0}));
  EXPECT_EQ(Normalized({1, 2, 3}, true), (std::vector<int64_t>{67, 34, 0}));
}

TEST(DefaultNormalizeScoreTest, AllZeroStaysZeroOrBecomesMaxWhenReversed) {
  EXPECT_EQ(Normalized({0, 0, 0}, false), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(Normalized({0, 0, 0}, true), (std::vector<int64_t>{100, 100, 100}));
  EXPECT_TRUE(Normalized({}, true).empty());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::helper
