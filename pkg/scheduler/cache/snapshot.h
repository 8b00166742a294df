// Snapshot: the NodeInfos one scheduling cycle works on (kube's cache
// Snapshot), and the framework::SharedLister plugins read them through.
//
// The scheduling loop owns one Snapshot and calls Cache::UpdateSnapshot at
// the start of each cycle; only NodeInfos whose generation changed since the
// previous update are copied from the cache, in place, so a NodeInfo's
// address is stable while its node exists and List() is rebuilt only when
// nodes were added, removed or moved to another zone. Ghost nodes (deleted nodes
// whose pods are still cached) are not part of a snapshot.
//
// FromObjects builds a standalone snapshot from pods and nodes, for tests
// and benchmarks of plugins.
//
// Thread-safety: read-only use (the lister methods) is safe concurrently;
// UpdateSnapshot must not run while anyone reads (the scheduling loop does
// both, in sequence). Pointers returned stay valid until the next
// UpdateSnapshot that removes the node.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::cache {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

class Snapshot final : public framework::SharedLister,
                       public framework::NodeInfoLister,
                       public framework::StorageInfoLister {
 public:
  Snapshot() = default;
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // A snapshot of `nodes` (in this order) with `pods` placed on them by
  // spec.nodeName (pods of other nodes are ignored) and image states
  // counted over `nodes`.
  static std::unique_ptr<Snapshot> FromObjects(const std::vector<std::shared_ptr<const api::Pod>>& pods,
                                               const std::vector<std::shared_ptr<const api::Node>>& nodes);

  // framework::SharedLister
  const framework::NodeInfoLister& NodeInfos() const override { return *this; }
  const framework::StorageInfoLister& StorageInfos() const override { return *this; }

  // framework::NodeInfoLister
  const framework::NodeInfoList& List() const override { return node_info_list_; }
  const framework::NodeInfoList& HavePodsWithAffinityList() const override { return have_pods_with_affinity_; }
  const framework::NodeInfoList& HavePodsWithRequiredAntiAffinityList() const override {
    return have_pods_with_required_anti_affinity_;
  }
  util::StatusOr<const framework::NodeInfo*> Get(std::string_view node_name) const override;

  // framework::StorageInfoLister
  bool IsPVCUsedByPods(std::string_view key) const override;

  size_t NumNodes() const { return node_info_list_.size(); }
  // The highest NodeInfo generation copied so far.
  int64_t generation() const { return generation_; }
  // How many NodeInfos the last Cache::UpdateSnapshot copied (tests, debug).
  size_t copied_in_last_update() const { return copied_in_last_update_; }

 private:
  friend class Cache;

  // Rebuilds the node list and the PVC counts from node_info_map_ in the
  // order of `ordered_names`, then the affinity lists.
  void RebuildLists(const std::vector<std::string>& ordered_names);
  // Rebuilds the affinity lists from the node list, in its order: O(nodes).
  void RebuildAffinityLists();
  void AddPVCRefs(const framework::NodeInfo& ni, int sign);

  // Keyed by a view of the NodeInfo's own node name (its Node object lives
  // as long as the NodeInfo holds it): 56 bytes less per node than a key of
  // its own. Whoever points a NodeInfo at another Node object re-keys it
  // (KeyByOwnName).
  std::unordered_map<std::string_view, std::unique_ptr<framework::NodeInfo>, StringHash, std::equal_to<>>
      node_info_map_;
  using NodeInfoMap = decltype(node_info_map_);
  // Points `it`'s key at its NodeInfo's node name, if it does not already.
  void KeyByOwnName(NodeInfoMap::iterator it);
  framework::NodeInfoList node_info_list_;
  framework::NodeInfoList have_pods_with_affinity_;
  framework::NodeInfoList have_pods_with_required_anti_affinity_;
  // "namespace/claim" -> pods using it across the snapshot.
  std::unordered_map<std::string, int, StringHash, std::equal_to<>> used_pvc_ref_counts_;
  int64_t generation_ = 0;
  size_t copied_in_last_update_ = 0;
  // NodeTree::version() the node list was last built from (-1: never).
  int64_t tree_version_ = -1;
};

}  // namespace ksched::scheduler::cache
