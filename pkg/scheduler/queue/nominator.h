// Nominator: which pending pods are nominated to which nodes (kube's
// nominator). Preemption nominates a node for a pod before the victims are
// gone; filters must then account for the nominated pods of a node, and the
// next scheduling cycles must not give that room away.
//
// Entries are keyed by pod UID and hold only name/namespace/UID; the
// freshest PodInfo is looked up in the queue when asked (see
// PriorityQueue::NominatedPodsForNode).
//
// Complexity: add/delete O(pods nominated to the node); lookups O(1) + copy.
// Thread-safety: none; PriorityQueue calls it under its mutex.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/nominating_info.h"
#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/queue/heap.h"

namespace ksched::scheduler::queue {

// Returns the current pod from the informer cache, nullptr if it does not
// exist. Called under the queue lock: must be a non-blocking cache read.
using PodLister =
    std::function<std::shared_ptr<const api::Pod>(std::string_view namespace_, std::string_view name)>;

struct PodRef {
  std::string name;
  std::string namespace_;
  std::string uid;
  bool operator==(const PodRef&) const = default;
};

class Nominator {
 public:
  // `lister` may be empty: then every nomination is accepted.
  explicit Nominator(PodLister lister) : lister_(std::move(lister)) {}

  // Records the nomination of `pi`: the node comes from `ni` (kOverride) or
  // from the pod's status.nominatedNodeName (kNoop or null). Any previous
  // nomination of the pod is dropped first. Pods the lister says are gone
  // or already bound are not recorded.
  void AddNominatedPod(const framework::PodInfo& pi, const framework::NominatingInfo* ni);
  // Re-records the pod after an update. If neither version names a node but
  // an in-memory nomination exists (set by preemption, not yet written to
  // the API), that nomination is kept.
  void UpdateNominatedPod(const api::Pod& old_pod, const framework::PodInfo& new_info);
  void DeleteNominatedPodIfExists(const api::Pod& pod);

  std::vector<PodRef> NominatedPodsForNode(std::string_view node) const;
  // The node `uid` is nominated to, if any.
  std::optional<std::string> NominatedNodeFor(std::string_view uid) const;
  size_t size() const { return pod_to_node_.size(); }

 private:
  void Delete(std::string_view uid);

  PodLister lister_;
  std::unordered_map<std::string, std::vector<PodRef>, StringHash, std::equal_to<>> nominated_pods_;
  std::unordered_map<std::string, std::string, StringHash, std::equal_to<>> pod_to_node_;
};

}  // namespace ksched::scheduler::queue
