// Cache: the scheduler's view of nodes and of the pods placed on them
// (kube's backend/cache cacheImpl), fed by the informers and by the
// scheduling loop's assumptions.
//
// Pods from the informers (AddPod/UpdatePod/RemovePod) are assigned pods of
// any scheduler: they take node resources whoever placed them. A pod this
// scheduler decided to place is *assumed* (AssumePod) before its binding is
// sent, so the next cycles already see it on the node; then either
//   - the informer reports it (AddPod): it is confirmed, replaced by the
//     informer's copy (on whichever node the informer says);
//   - binding failed: ForgetPod removes it;
//   - FinishBinding was called but no informer Add arrives: with a non-zero
//     assumed_pod_ttl it expires that long after FinishBinding (cleanup runs
//     every cleanup_period on the Clock, or CleanupExpiredAssumedPods()).
//     The default TTL 0 never expires, as kube-scheduler 1.34 does.
// Pods are keyed by UID.
//
// A removed node whose pods have not all been deleted stays as a ghost
// NodeInfo (node() == nullptr) until its last pod goes; ghosts take no part
// in snapshots or the node tree.
//
// UpdateSnapshot copies only the NodeInfos whose generation is newer than
// the snapshot's: the cache keeps its NodeInfos in a list ordered by last
// change (most recent first) and stops at the first one the snapshot
// already has. Node lists follow the NodeTree's zone-interleaved order.
//
// Errors follow kube's messages ("pod X is in the cache, so can't be
// assumed", "pod X wasn't assumed so cannot be forgotten", ...). Where kube
// would exit on a corrupted cache (an update or delete that names another
// node), the cache logs an error and follows the informer.
//
// Thread-safety: every method is safe to call concurrently; one mutex
// guards all state and no callback runs under it. Run() starts one
// background thread (the expiry loop) which Stop() or the destructor joins.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/cache/node_tree.h"
#include "pkg/scheduler/cache/snapshot.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/util/clock.h"
#include "pkg/util/spin_then_block_mutex.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::cache {

struct CacheOptions {
  const util::Clock* clock = &util::RealClock::Get();
  // How long an assumed pod whose binding finished may wait for its informer
  // Add before it is dropped; 0 = never.
  util::Duration assumed_pod_ttl{0};
  // How often Run()'s loop looks for expired assumed pods.
  util::Duration cleanup_period = std::chrono::seconds(1);
};

// Debugging view (Dump).
struct CacheDump {
  // Node name -> copy of its NodeInfo (ghosts included, keyed by the name
  // their pods name).
  std::map<std::string, framework::NodeInfo> nodes;
  // UIDs of assumed pods.
  std::set<std::string> assumed_pods;
};

class Cache {
 public:
  explicit Cache(CacheOptions options = {});
  ~Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // ---- Nodes (informer)
  void AddNode(std::shared_ptr<const api::Node> node);
  // `old_node` may be null: the cached version is taken as the old state.
  void UpdateNode(const std::shared_ptr<const api::Node>& old_node, std::shared_ptr<const api::Node> new_node);
  // NotFound "node X is not found" when unknown.
  util::Status RemoveNode(const api::Node& node);

  // ---- Assigned pods (informer)
  // Confirms an assumed pod, or adds a new one. AlreadyExists when the pod
  // was already added.
  util::Status AddPod(std::shared_ptr<const api::Pod> pod);
  // NotFound when unknown; error for an assumed pod.
  util::Status UpdatePod(const std::shared_ptr<const api::Pod>& old_pod, std::shared_ptr<const api::Pod> new_pod);
  // NotFound when unknown.
  util::Status RemovePod(const api::Pod& pod);

  // ---- Scheduling decisions
  // `pod` has spec.nodeName set. AlreadyExists when the pod is cached.
  util::Status AssumePod(std::shared_ptr<const api::Pod> pod);
  // The same for a pod whose PodInfo is at hand (the scheduling cycle's), so
  // that its derived data is not computed again.
  util::Status AssumePod(framework::PodInfoPtr pod_info);
  // Starts the assumed pod's expiry clock (no-op for other pods).
  util::Status FinishBinding(const api::Pod& pod);
  // Undoes AssumePod. Error if the pod is not assumed or was assumed on
  // another node.
  util::Status ForgetPod(const api::Pod& pod);
  bool IsAssumedPod(const api::Pod& pod) const;
  // The cached copy of the pod (matched by UID), nullptr if not cached. It
  // may be on a node that was deleted.
  std::shared_ptr<const api::Pod> GetPod(const api::Pod& pod) const;

  // ---- Snapshots
  // Brings `snapshot` up to date (see the header comment). An inconsistency
  // between the node tree and the snapshot is repaired by a full rebuild
  // and reported as an Internal error ("snapshot state is not consistent").
  util::Status UpdateSnapshot(Snapshot& snapshot);

  // ---- Expiry
  // Drops assumed pods whose binding finished more than the TTL ago.
  void CleanupExpiredAssumedPods();
  // Starts the expiry loop (idempotent); only useful with a non-zero TTL.
  void Run();
  // Stops the loop (idempotent).
  void Stop();

  // ---- Introspection
  // NodeInfos held, ghosts included.
  size_t NodeCount() const;
  // Pods held (assumed included): kube's scheduler_cache_size{type="pods"},
  // the number of pod states; O(1), as the metrics loop asks every second.
  size_t PodCount() const;
  size_t AssumedPodCount() const;
  CacheDump Dump() const;
  // A copy of the NodeInfo of `name`, NotFound when absent.
  util::StatusOr<framework::NodeInfo> GetNodeInfo(std::string_view name) const;

 private:
  struct NodeItem {
    // First: a NodeInfo is aligned to a cache line, and the fields after it
    // fill its last line rather than a line of padding before it.
    framework::NodeInfo info;
    std::string name;
    // image states built for this node at image_generation (see
    // SnapshotImageStates).
    std::shared_ptr<const framework::ImageStates> image_states;
    int64_t image_generation = -1;
  };
  using NodeList = std::list<NodeItem>;  // most recently changed first

  struct PodState {
    std::shared_ptr<const api::Pod> pod;
    bool binding_finished = false;
    std::optional<util::TimePoint> deadline;
  };

  struct ImageState {
    int64_t size = 0;
    std::set<std::string, std::less<>> nodes;
  };

  // All *Locked methods require mu_.
  NodeList::iterator GetOrCreateNodeLocked(const std::string& name);
  void MoveToHeadLocked(NodeList::iterator it);
  void RemoveNodeItemLocked(NodeList::iterator it);
  void AddPodLocked(std::shared_ptr<const api::Pod> pod, bool assumed);
  void AddPodInfoLocked(framework::PodInfoPtr pod_info, bool assumed);
  util::Status RemovePodLocked(const api::Pod& pod);
  util::Status UpdatePodLocked(const api::Pod& old_pod, std::shared_ptr<const api::Pod> new_pod);
  void AddNodeImageStatesLocked(const api::Node& node);
  void RemoveNodeImageStatesLocked(const api::Node* node);
  // The image states of the node as a snapshot exposes them, rebuilt only
  // when the cache's image states changed since the item's last build.
  std::shared_ptr<const framework::ImageStates> SnapshotImageStatesLocked(NodeItem& item);
  void CleanupLoop();

  const CacheOptions options_;

  mutable util::SpinThenBlockMutex mu_;
  NodeList nodes_;                                                                   // guarded by mu_
  // Keyed by a view of the item's name (list nodes do not move).
  std::unordered_map<std::string_view, NodeList::iterator, StringHash, std::equal_to<>> node_index_;  // guarded by mu_
  NodeTree node_tree_;                                                               // guarded by mu_
  std::unordered_map<std::string, PodState, StringHash, std::equal_to<>> pod_states_;  // by UID; guarded by mu_
  std::set<std::string, std::less<>> assumed_pods_;                                 // UIDs; guarded by mu_
  std::unordered_map<std::string, ImageState, StringHash, std::equal_to<>> image_states_;  // guarded by mu_
  int64_t image_generation_ = 0;                                                    // guarded by mu_

  std::condition_variable stop_cv_;
  bool running_ = false;  // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::thread cleanup_thread_;
};

}  // namespace ksched::scheduler::cache
