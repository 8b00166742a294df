// DefaultNormalizeScore: the score normalization most in-tree plugins share
// (kube-scheduler's framework/plugins/helper): scales every node's score to
// [0, max_priority] relative to the highest one, and with `reverse` turns
// the scale around (a higher raw score is worse, e.g. untolerated
// PreferNoSchedule taints). When every raw score is 0 the scores stay 0,
// or all become max_priority when reversed.
//
// Thread-safety: pure function. Complexity: O(nodes).
#pragma once

#include <algorithm>
#include <cstdint>

#include "pkg/scheduler/framework/cycle_plugins.h"

namespace ksched::scheduler::plugins::helper {

inline void DefaultNormalizeScore(int64_t max_priority, bool reverse, framework::NodeScoreList& scores) {
  int64_t max_count = 0;
  for (const framework::NodeScore& s : scores) max_count = std::max(max_count, s.score);
  if (max_count == 0) {
    if (reverse) {
      for (framework::NodeScore& s : scores) s.score = max_priority;
    }
    return;
  }
  for (framework::NodeScore& s : scores) {
    int64_t score = max_priority * s.score / max_count;
    s.score = reverse ? max_priority - score : score;
  }
}

}  // namespace ksched::scheduler::plugins::helper
