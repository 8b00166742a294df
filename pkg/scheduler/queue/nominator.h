// Nominator: which pending pods are nominated to which nodes (kube's
// nominator). Preemption nominates a node for a pod before the victims are
// gone; filters must then account for the nominated pods of a node (the
// two-pass filter), and the next scheduling cycles must not give that room
// away.
//
// Each entry keeps the pod's whole PodInfo (requests, affinity terms), so a
// nominated pod counts on its node with its requests wherever it is: queued,
// in flight, or between the end of its flight and the informer event of
// its binding. The queue refreshes the entry on every update of the pod
// (UpdateNominatedPod) and the failure handler on every return.
//
// A nomination ends when the pod is assumed (bound), deleted, nominated
// elsewhere, updated to name no node while it had named one, or re-added
// without a nomination (Noop) while its status names no node.
//
// Complexity: add/delete O(pods nominated to the node); NominatedPodsForNode
// O(1) without taking the lock when nothing is nominated (one atomic load:
// it is called for every node in every Filter pass), else O(pods nominated
// to the node) to copy the shared pointers.
// Thread-safety: thread-safe (own mutex). Lock order: the queue's mutex,
// then this one. The pod lister runs under this mutex: it must be a
// non-blocking cache read.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/framework/nominating_info.h"
#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/queue/heap.h"

namespace ksched::scheduler::queue {

// Returns the current pod from the informer cache, nullptr if it does not
// exist. Called under the queue lock: must be a non-blocking cache read.
using PodLister =
    std::function<std::shared_ptr<const api::Pod>(std::string_view namespace_, std::string_view name)>;

class Nominator {
 public:
  // `lister` may be empty: then every nomination is accepted.
  explicit Nominator(PodLister lister) : lister_(std::move(lister)) {}
  Nominator(const Nominator&) = delete;
  Nominator& operator=(const Nominator&) = delete;

  // Records the nomination of `pi`: the node comes from `ni` (kOverride) or
  // from the pod's status.nominatedNodeName (kNoop or null). Any previous
  // nomination of the pod is dropped first, so a Noop for a pod whose
  // status names no node ends an in-memory nomination (as kube's does).
  // Pods the lister says are gone or already bound are not recorded.
  void AddNominatedPod(const framework::PodInfo& pi, const framework::NominatingInfo* ni);
  // Re-records the pod after an update (with the new PodInfo). If neither
  // version names a node but an in-memory nomination exists (set by
  // preemption, not yet written to the API), that nomination is kept.
  void UpdateNominatedPod(const api::Pod& old_pod, const framework::PodInfo& new_info);
  void DeleteNominatedPodIfExists(const api::Pod& pod);

  // The pods nominated to `node`, in nomination order. Lock-free and
  // allocation-free when nothing is nominated anywhere.
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view node) const;
  // The node `uid` is nominated to, if any.
  std::optional<std::string> NominatedNodeFor(std::string_view uid) const;
  size_t size() const { return count_.load(std::memory_order_acquire); }

 private:
  void DeleteLocked(std::string_view uid);
  void AddLocked(const framework::PodInfo& pi, const framework::NominatingInfo* ni);
  void PublishCountLocked() { count_.store(pod_to_node_.size(), std::memory_order_release); }

  const PodLister lister_;
  mutable std::mutex mu_;
  // Mirrors pod_to_node_.size(), written under mu_, read without it.
  std::atomic<size_t> count_{0};
  std::unordered_map<std::string, std::vector<framework::PodInfoPtr>, StringHash, std::equal_to<>> nominated_pods_;
  std::unordered_map<std::string, std::string, StringHash, std::equal_to<>> pod_to_node_;
};

}  // namespace ksched::scheduler::queue
