// FilterBothWays (test-only): a Filter plugin's answer for one node, after
// checking with gtest that the plugin's FilterNodes gives the same answer
// for that node inside a run. A plugin that filters runs its own way keeps
// Filter's behaviour only if its tests hold both to the same cases.
#pragma once

#include <array>
#include <cstdint>

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/cycle_state.h"

namespace ksched::scheduler::plugins::testing {

inline framework::Status FilterBothWays(framework::FilterPlugin& pl, framework::CycleState& state, const api::Pod& pod,
                                        const framework::NodeInfo& node) {
  framework::Status want = pl.Filter(state, pod, node);
  // The node last in a run whose other nodes are not alive: FilterNodes must
  // neither read them (null) nor touch their statuses.
  const std::array<const framework::NodeInfo*, 3> run = {nullptr, nullptr, &node};
  const framework::Status untouched(framework::Code::kUnschedulable, "untouched");
  std::array<framework::Status, 3> out = {untouched, untouched, untouched};
  uint64_t alive = 0b100;
  pl.FilterNodes(state, pod, run, &alive, out.data());
  EXPECT_EQ(alive, want.IsSuccess() ? 0b100u : 0u) << "FilterNodes disagrees with Filter: " << want.ToString();
  EXPECT_EQ(out[0], untouched);
  EXPECT_EQ(out[1], untouched);
  if (want.IsSuccess()) {
    EXPECT_EQ(out[2], untouched) << "a passing node's status is left alone";
  } else {
    EXPECT_EQ(out[2], want) << out[2].ToString() << " against Filter's " << want.ToString();
  }
  return want;
}

}  // namespace ksched::scheduler::plugins::helper
