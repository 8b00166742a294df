// NodeInfo: one node as the scheduler sees it (kube's framework.NodeInfo):
// the Node object, the pods assigned or assumed to it, and aggregates kept
// up to date as pods come and go:
//   - requested: the sum of the pods' requests (PodInfo::requests());
//   - non_zero_requested: the same, but cpu/memory of pods that request
//     none count kube's defaults (100m, 200Mi) -- used by scoring;
//   - allocatable: node.status.allocatable;
//   - pods_with_affinity / pods_with_required_anti_affinity: the subset of
//     pods with pod (anti-)affinity, for InterPodAffinity;
//   - used_ports: host ports in use (HostPortInfo, 0.0.0.0 wildcard rules);
//   - pvc_ref_counts: "namespace/claim" -> number of pods using the claim;
//   - image_states: images present on the node, with their size and how many
//     nodes have them (filled by the cache, for ImageLocality);
//   - generation: a value from a process-wide counter, bumped by every
//     mutation, so the cache can tell which NodeInfos changed since a
//     snapshot;
//   - the node's name, and whether it has taints or is unschedulable:
//     copies kept beside the fields every Filter and Score plugin reads,
//     so the per-node loops need not read the Node for them;
//   - memo: per-node plugin results for this state of the node (see
//     node_memo.h), cleared by every mutation, in the first cache line with
//     the name and flags: a node whose memo answers costs the cycle that
//     line alone. NodeInfos are aligned to cache lines for it.
//
// A NodeInfo without a node (node() == nullptr) is a "ghost": the node was
// deleted but some of its pods' deletions have not arrived yet; the cache
// keeps it only to account for those pods, and snapshots skip it.
//
// Copying (the copy constructor or Clone()) is cheap: pods are shared
// pointers to immutable PodInfos; image states, host ports and claims are
// shared (ports and claims copied when a copy changes them). Pods are matched
// by UID on removal (O(pods)); removal swaps with the last element, so pod
// order is not stable across removals (as in kube).
//
// Thread-safety: none. The cache mutates its NodeInfos under its lock;
// snapshot NodeInfos are only read during a scheduling cycle (their memo
// excepted, which is atomic, see node_memo.h); plugins that
// need a modified NodeInfo (preemption, nominated pods) work on a Clone().
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/node_memo.h"
#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/framework/resource.h"
#include "pkg/util/prefetch.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

using PodInfoPtr = std::shared_ptr<const PodInfo>;

// Returns a new, strictly increasing generation number (thread-safe).
int64_t NextGeneration();

// Whether the pod declares pod affinity or anti-affinity (any kind).
bool PodHasAffinity(const api::Pod& pod);
// Whether the pod declares required pod anti-affinity terms.
bool PodHasRequiredAntiAffinity(const api::Pod& pod);

// "namespace/name" (kube's GetNamespacedName), the key of pvc_ref_counts.
std::string NamespacedName(std::string_view namespace_, std::string_view name);

struct ProtocolPort {
  std::string protocol;
  int32_t port = 0;
  auto operator<=>(const ProtocolPort&) const = default;
};

// Host ports in use on a node: host IP -> {protocol, port}. An empty IP means
// 0.0.0.0 and an empty protocol means TCP. A port on 0.0.0.0 conflicts with
// the same protocol/port on every IP, and vice versa; ports <= 0 are ignored.
class HostPortInfo {
 public:
  void Add(std::string_view ip, std::string_view protocol, int32_t port);
  void Remove(std::string_view ip, std::string_view protocol, int32_t port);
  // Number of (ip, protocol, port) entries.
  size_t Len() const;
  bool CheckConflict(std::string_view ip, std::string_view protocol, int32_t port) const;
  const std::map<std::string, std::set<ProtocolPort>, std::less<>>& entries() const { return ports_; }

  bool operator==(const HostPortInfo&) const = default;

 private:
  std::map<std::string, std::set<ProtocolPort>, std::less<>> ports_;
};

// An image present on a node (kube's ImageStateSummary as the snapshot
// exposes it).
struct ImageStateSummary {
  int64_t size = 0;
  // How many nodes have this image (counted when the snapshot was taken).
  int num_nodes = 0;
  bool operator==(const ImageStateSummary&) const = default;
};

// Image name (every name of node.status.images[].names) -> summary.
using ImageStates = std::map<std::string, ImageStateSummary, std::less<>>;
// "namespace/claim" -> number of pods on the node using it.
using PVCRefCounts = std::map<std::string, int, std::less<>>;

class alignas(64) NodeInfo {
 public:
  NodeInfo() = default;
  // A NodeInfo for `node` (may be null), with `pods` added.
  explicit NodeInfo(std::shared_ptr<const api::Node> node, const std::vector<std::shared_ptr<const api::Pod>>& pods = {});

  // nullptr for a ghost (see the header comment).
  const api::Node* node() const { return node_; }
  const std::shared_ptr<const api::Node>& node_ptr() const { return node_owner_; }
  // node()->metadata.name, or "" for a ghost.
  const std::string& node_name() const { return node_ ? node_->metadata.name : EmptyName(); }
  // The same, read from this object's hot fields: the per-node loops take
  // it without reading the Node.
  std::string_view node_name_view() const { return {name_data_, name_size_}; }

  const std::vector<PodInfoPtr>& pods() const { return pods_; }
  const std::vector<PodInfoPtr>& pods_with_affinity() const { return pods_with_affinity_; }
  const std::vector<PodInfoPtr>& pods_with_required_anti_affinity() const {
    return pods_with_required_anti_affinity_;
  }
  const HostPortInfo& used_ports() const { return ports_and_claims_ ? ports_and_claims_->used_ports : NoPorts(); }
  const Resource& requested() const { return requested_; }
  const Resource& non_zero_requested() const { return non_zero_requested_; }
  const Resource& allocatable() const { return allocatable_; }
  const ImageStates& image_states() const { return image_states_ != nullptr ? *image_states_ : EmptyImageStates(); }
  const PVCRefCounts& pvc_ref_counts() const {
    return ports_and_claims_ ? ports_and_claims_->pvc_ref_counts : NoClaims();
  }
  int64_t generation() const { return generation_; }
  // Whether node() has taints / is marked unschedulable (false for a
  // ghost). Kept beside the other hot fields, so that the per-node Filter
  // and Score plugins tell the common node (no taints, schedulable) without
  // reading its Node.
  bool node_has_taints() const { return node_has_taints_; }
  bool node_unschedulable() const { return node_unschedulable_; }
  // Results per-node plugins keep for this state of the node.
  const NodeMemo& memo() const { return memo_; }

  // Adds a pod (building its PodInfo) / an existing PodInfo. Bumps the
  // generation.
  void AddPod(std::shared_ptr<const api::Pod> pod);
  void AddPodInfo(PodInfoPtr pod_info);
  // Removes the pod with pod.metadata.uid; NotFound if it is not here (then
  // nothing changes). Bumps the generation on success.
  util::Status RemovePod(const api::Pod& pod);
  // Sets the node and allocatable from it. Bumps the generation.
  void SetNode(std::shared_ptr<const api::Node> node);
  // Drops the node (the NodeInfo becomes a ghost). Bumps the generation.
  void RemoveNode();
  // Replaces the image states. Does NOT bump the generation: the cache sets
  // them on snapshot copies, which must keep the source's generation.
  void SetImageStates(std::shared_ptr<const ImageStates> states) {
    image_states_owner_ = std::move(states);
    image_states_ = image_states_owner_.get();
  }

  // A copy (same generation).
  NodeInfo Clone() const { return *this; }

  // Hints to the CPU to start loading what the per-node Filter and Score
  // plugins read; they change nothing. The scheduling cycle visits nodes in
  // list order, but each NodeInfo and Node lives elsewhere on the heap, so a
  // cycle over hundreds of nodes is bound by memory latency. The loads come
  // in two stages because what to load depends on the first line:
  //   PrefetchSelf()        this object's first line (no load of its own);
  //   PrefetchReferenced()  the lines holding the resource sums, unless
  //                         `resource_memo` (where the plugin that reads
  //                         them keeps its answers for this pod) answers;
  //                         the Node's first line and labels when asked,
  //                         its spec only when the node has taints or is
  //                         unschedulable, and the image states. It reads
  //                         the first line, so it should run once
  //                         PrefetchSelf's line came.
  // Lines nobody reads are not asked for: they would crowd the cache and the
  // memory bus. The Filter loop, which takes nodes in runs, calls the first
  // for every node of a run, then the second, before any plugin reads a
  // node; Score reads the nodes Filter just loaded.
  void PrefetchSelf() const { util::Prefetch(this); }
  void PrefetchReferenced(bool labels, NodeMemoRef resource_memo) const {
    if (!resource_memo.Answers(memo_)) {
      const char* self = reinterpret_cast<const char*>(this);
      for (size_t offset = kCacheLine; offset < kHotBytes; offset += kCacheLine) util::Prefetch(self + offset);
    }
    if (const api::Node* n = node_) {
      if (labels) {
        // With the labels, the Node's first line: NodeAffinity measured
        // slower in process without it.
        util::Prefetch(n);
        util::Prefetch(&n->metadata.labels);
      }
      if (node_has_taints_ || node_unschedulable_) util::Prefetch(&n->spec);
    }
    if (const ImageStates* images = image_states_) util::Prefetch(images);
  }

  // "&NodeInfo{Pods:[a b], RequestedResource:..., NonZeroRequest:...,
  // UsedPort:..., AllocatableResource:...}" for logs and test failures.
  std::string String() const;

 private:
  static constexpr size_t kCacheLine = 64;
  static const std::string& EmptyName();
  static const ImageStates& EmptyImageStates();
  static const HostPortInfo& NoPorts();
  static const PVCRefCounts& NoClaims();

  // Host ports and claims in use: most nodes have neither, so they live out
  // of line (a NodeInfo is in the cache and again in the snapshot for every
  // node), shared by copies until one of them changes.
  struct PortsAndClaims {
    HostPortInfo used_ports;
    PVCRefCounts pvc_ref_counts;
  };
  // ports_and_claims_ for writing: created, or copied when another NodeInfo
  // shares it.
  PortsAndClaims& MutablePortsAndClaims();

  // Adds (sign = +1) or removes (sign = -1) the pod's resources, ports and
  // PVC references.
  void Update(const PodInfo& pi, int sign);

  // Clears the memo and takes a new generation: every change ends with it.
  void Changed();

  // What Filter and Score read for every node comes first, in kHotBytes:
  // the first line holds what a node whose memo answers needs, the next two
  // the resource sums the memo'd plugins read on a miss. What only some
  // plugins read (for pods with affinity, host ports or volumes) follows.
  // The Node and image states node_owner_ and image_states_owner_ hold:
  // raw pointers here, so that the first line has room for the memo.
  const api::Node* node_ = nullptr;
  const ImageStates* image_states_ = nullptr;
  // node_name() as characters and length (the characters live in the Node
  // that node_ points to).
  const char* name_data_ = "";
  uint32_t name_size_ = 0;
  bool node_has_taints_ = false;
  bool node_unschedulable_ = false;
  NodeMemo memo_;

  // The resource sums start the second line.
  alignas(kCacheLine) std::vector<PodInfoPtr> pods_;
  Resource allocatable_;
  Resource requested_;
  Resource non_zero_requested_;

  std::shared_ptr<const api::Node> node_owner_;
  std::shared_ptr<const ImageStates> image_states_owner_;
  int64_t generation_ = 0;
  std::vector<PodInfoPtr> pods_with_affinity_;
  std::vector<PodInfoPtr> pods_with_required_anti_affinity_;
  std::shared_ptr<PortsAndClaims> ports_and_claims_;  // null: none; written only through MutablePortsAndClaims

  static constexpr size_t kFirstLineBytes = sizeof(node_) + sizeof(image_states_) + sizeof(name_data_) +
                                            sizeof(name_size_) + sizeof(node_has_taints_) +
                                            sizeof(node_unschedulable_) + 2 /* padding */ + sizeof(memo_);
  static_assert(kFirstLineBytes <= kCacheLine && alignof(NodeMemo) == 8);
  // Up to the non-zero requests' cpu, memory and ephemeral storage.
  static constexpr size_t kHotBytes = kCacheLine + sizeof(pods_) + 2 * sizeof(Resource) + 3 * sizeof(int64_t);
  static_assert(kHotBytes <= 3 * kCacheLine);
};

}  // namespace ksched::scheduler::framework
