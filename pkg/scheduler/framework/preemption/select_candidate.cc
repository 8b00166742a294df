#include "pkg/scheduler/framework/preemption/select_candidate.h"

#include <cstdint>
#include <functional>
#include <limits>

#include "pkg/scheduler/framework/preemption/pod_order.h"
#include "pkg/scheduler/framework/queued_pod_info.h"

namespace ksched::scheduler::framework::preemption {

int PickOneNodeForPreemption(const std::vector<Candidate>& candidates, api::Time now) {
  if (candidates.empty()) return -1;
  // Higher scores win.
  const std::vector<std::function<int64_t(const Candidate&)>> rules = {
      [](const Candidate& c) -> int64_t { return -static_cast<int64_t>(c.num_pdb_violations); },
      [](const Candidate& c) -> int64_t {
        if (c.victims.empty()) return std::numeric_limits<int64_t>::min();
        return -static_cast<int64_t>(PodPriority(*c.victims[0]));
      },
      [](const Candidate& c) -> int64_t {
        int64_t sum = 0;
        for (const auto& v : c.victims) {
          sum += static_cast<int64_t>(PodPriority(*v)) + static_cast<int64_t>(std::numeric_limits<int32_t>::max()) + 1;
        }
        return -sum;
      },
      [](const Candidate& c) -> int64_t { return -static_cast<int64_t>(c.victims.size()); },
      [now](const Candidate& c) -> int64_t {
        std::optional<api::Time> t = EarliestStartTimeOfHighestPriority(c.victims, now);
        if (!t) return std::numeric_limits<int64_t>::min();
        return std::chrono::duration_cast<std::chrono::nanoseconds>(t->time_since_epoch()).count();
      },
  };
  std::vector<int> left(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) left[i] = static_cast<int>(i);
  for (const auto& rule : rules) {
    std::vector<int> best;
    int64_t max_score = std::numeric_limits<int64_t>::min();
    for (int i : left) {
      const int64_t score = rule(candidates[static_cast<size_t>(i)]);
      if (score > max_score) {
        max_score = score;
        best.clear();
      }
      if (score == max_score) best.push_back(i);
    }
    if (best.size() == 1) return best[0];
    left = std::move(best);
  }
  return left[0];
}

}  // namespace ksched::scheduler::framework::preemption
