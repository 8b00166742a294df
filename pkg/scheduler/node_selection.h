// The two numeric rules of a scheduling cycle, as kube-scheduler has them:
//
// NumFeasibleNodesToFind: how many feasible nodes Filter looks for before it
// stops (scoring every node of a large cluster buys little placement
// quality for a lot of time):
//   - fewer than 100 nodes: all of them;
//   - else percentage = the profile's percentageOfNodesToScore if set, else
//     the global one; 0 means adaptive: 50 - nodes/125, at least 5;
//   - result nodes * percentage / 100, at least 100.
//
// SelectHost: the index of a node with the highest total score; ties are
// broken uniformly at random (one draw among the tied nodes), so equally
// good nodes share the load. O(nodes).
//
// SelectHostByScoreHeap: kube 1.35's rule (FeatureGates::
// score_heap_host_selection): the root of a max-heap by total score built
// with Go's container/heap over the nodes in scoring order, every node's
// randomizer 0 (kube sets it only for extenders' nodes, which ksched has
// none of). Deterministic for a given order. O(nodes), one allocation.
//
// SelectHostLowestName: the node with the lowest name (byte order) among
// those with the highest total: a deterministic rule that another
// implementation can apply too (`ksched simulate --tie-break lowest-name`).
//
// GoHeapDown: Go's container/heap sift-down, shared by SelectHostByScoreHeap
// and the batch's ranking (opportunistic_batch.h) so both order ties alike.
//
// Thread-safety: pure functions; the random engine belongs to the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "pkg/scheduler/framework/listers.h"

namespace ksched::scheduler {

inline constexpr int32_t kMinFeasibleNodesToFind = 100;
inline constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;

int32_t NumFeasibleNodesToFind(std::optional<int32_t> profile_percentage, int32_t global_percentage,
                               int32_t num_all_nodes);

// `totals` must not be empty.
size_t SelectHost(const std::vector<int64_t>& totals, std::mt19937_64& rng);

// Sifts element `i` of a heap of `n` elements down, as Go's heap.down:
// `less(a, b)` is whether element a belongs above b, `swap(a, b)` exchanges
// them. Elements that compare equal never swap. O(log n).
template <typename Less, typename Swap>
void GoHeapDown(size_t i, size_t n, Less less, Swap swap) {
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && less(child + 1, child)) ++child;
    if (!less(child, i)) break;
    swap(i, child);
    i = child;
  }
}

// `totals` must not be empty.
size_t SelectHostByScoreHeap(const std::vector<int64_t>& totals);

// `totals` parallel to `nodes`, not empty.
size_t SelectHostLowestName(const std::vector<int64_t>& totals, const framework::NodeInfoList& nodes);

// How a scheduling cycle breaks ties among the best-scored nodes.
enum class HostTieBreak {
  kRandom,      // kube-scheduler's: SelectHost (uniform among the tied) or,
                // from kube 1.35, SelectHostByScoreHeap
  kLowestName,  // SelectHostLowestName
};

}  // namespace ksched::scheduler
