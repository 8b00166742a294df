#include "pkg/scheduler/node_selection.h"

#include <utility>

#include "pkg/scheduler/framework/node_info.h"

namespace ksched::scheduler {

int32_t NumFeasibleNodesToFind(std::optional<int32_t> profile_percentage, int32_t global_percentage,
                               int32_t num_all_nodes) {
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  int32_t percentage = profile_percentage.value_or(global_percentage);
  if (percentage == 0) {
    percentage = 50 - num_all_nodes / 125;
    if (percentage < kMinFeasibleNodesPercentageToFind) percentage = kMinFeasibleNodesPercentageToFind;
  }
  // 64-bit product: nodes * 100 stays far from overflow, but be exact.
  int64_t num = static_cast<int64_t>(num_all_nodes) * percentage / 100;
  if (num < kMinFeasibleNodesToFind) return kMinFeasibleNodesToFind;
  return static_cast<int32_t>(num);
}

size_t SelectHost(const std::vector<int64_t>& totals, std::mt19937_64& rng) {
  // Two passes and one random draw, where kube draws once per tie while it
  // scans (reservoir sampling): in a cluster of alike nodes hundreds tie,
  // and the draws cost more than the scans. Same distribution: uniform
  // over the tied nodes.
  int64_t best = totals[0];
  uint64_t ties = 0;
  for (int64_t t : totals) {
    if (t > best) {
      best = t;
      ties = 1;
    } else if (t == best) {
      ++ties;
    }
  }
  uint64_t pick = ties == 1 ? 0 : std::uniform_int_distribution<uint64_t>(0, ties - 1)(rng);
  for (size_t i = 0;; ++i) {
    if (totals[i] == best && pick-- == 0) return i;
  }
}

size_t SelectHostByScoreHeap(const std::vector<int64_t>& totals) {
  // Go's heap.Init over indexes: sift down every parent, last first, where
  // "less" is a higher total. The root is the tied node that Init's
  // sift-downs left on top.
  const size_t n = totals.size();
  // Reused by each thread: an allocation of a KB or more per cycle made
  // malloc consolidate its fast bins.
  thread_local std::vector<size_t> heap;
  heap.resize(n);
  for (size_t i = 0; i < n; ++i) heap[i] = i;
  auto higher = [&](size_t a, size_t b) { return totals[heap[a]] > totals[heap[b]]; };
  auto swap = [&](size_t a, size_t b) { std::swap(heap[a], heap[b]); };
  for (size_t parent = n / 2; parent-- > 0;) GoHeapDown(parent, n, higher, swap);
  return heap[0];
}

size_t SelectHostLowestName(const std::vector<int64_t>& totals, const framework::NodeInfoList& nodes) {
  size_t best = 0;
  for (size_t i = 1; i < totals.size(); ++i) {
    if (totals[i] > totals[best] || (totals[i] == totals[best] && nodes[i]->node_name() < nodes[best]->node_name())) {
      best = i;
    }
  }
  return best;
}

}  // namespace ksched::scheduler
