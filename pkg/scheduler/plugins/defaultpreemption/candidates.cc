// How many candidate nodes the dry run looks for, and where it starts.
#include <algorithm>

#include "pkg/scheduler/plugins/defaultpreemption/default_preemption.h"

namespace ksched::scheduler::plugins::defaultpreemption {

int DefaultPreemption::NumCandidates(int num_nodes) const {
  // In 64 bits: percentage * nodes may not fit in 32.
  int64_t n = static_cast<int64_t>(num_nodes) * min_candidate_nodes_percentage_ / 100;
  n = std::max<int64_t>(n, min_candidate_nodes_absolute_);
  return static_cast<int>(std::min<int64_t>(n, num_nodes));
}

std::pair<int, int> DefaultPreemption::GetOffsetAndNumCandidates(int num_nodes) {
  int offset = 0;
  if (num_nodes > 0) {
    if (offset_) {
      offset = offset_(num_nodes);
    } else {
      std::lock_guard<std::mutex> l(rng_mu_);
      offset = std::uniform_int_distribution<int>(0, num_nodes - 1)(rng_);
    }
  }
  return {offset, NumCandidates(num_nodes)};
}

}  // namespace ksched::scheduler::plugins::defaultpreemption
