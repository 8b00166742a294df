// ScoreNodesOf (test-only): a score plugin's scores of `nodes` as the
// framework asks for them, in one ScorePlugin::ScoreNodes call, for tests
// that check them against Score's node by node.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/cycle_state.h"

namespace ksched::scheduler::plugins::testing {

inline std::vector<int64_t> ScoreNodesOf(framework::ScorePlugin& pl, framework::CycleState& state,
                                         const api::Pod& pod, const framework::NodeInfoList& nodes) {
  // -1 is no plugin's score: an entry ScoreNodes leaves unset shows.
  std::vector<framework::NodeScore> out(nodes.size(), framework::NodeScore{"", -1});
  const framework::Status s = pl.ScoreNodes(state, pod, nodes, out.data());
  EXPECT_TRUE(s.IsSuccess()) << s.ToString();
  std::vector<int64_t> scores;
  for (const framework::NodeScore& ns : out) scores.push_back(ns.score);
  return scores;
}

}  // namespace ksched::scheduler::plugins::testing
