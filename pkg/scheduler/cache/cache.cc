#include "pkg/scheduler/cache/cache.h"

#include <utility>

#include "pkg/log/log.h"
#include "spdlog/fmt/fmt.h"
#include "spdlog/spdlog.h"
#include "pkg/util/thread_name.h"

namespace ksched::scheduler::cache {

namespace {

// kube's "<uid>(<namespace>/<name>)" naming of a pod in cache errors.
std::string PodRef(const api::Pod& pod) {
  return fmt::format("{}({})", pod.metadata.uid, api::KeyOf(pod.metadata));
}

}  // namespace

Cache::Cache(CacheOptions options) : options_(options) {}

Cache::~Cache() { Stop(); }

// ---------------------------------------------------------------- list helpers

Cache::NodeList::iterator Cache::GetOrCreateNodeLocked(const std::string& name) {
  auto found = node_index_.find(name);
  if (found != node_index_.end()) return found->second;
  nodes_.push_front(NodeItem{framework::NodeInfo(), name, nullptr, -1});
  node_index_.emplace(nodes_.front().name, nodes_.begin());
  return nodes_.begin();
}

void Cache::MoveToHeadLocked(NodeList::iterator it) {
  // splice keeps every iterator valid, so node_index_ needs no update.
  if (it != nodes_.begin()) nodes_.splice(nodes_.begin(), nodes_, it);
}

void Cache::RemoveNodeItemLocked(NodeList::iterator it) {
  node_index_.erase(it->name);
  nodes_.erase(it);
}

// ---------------------------------------------------------------- pod helpers

void Cache::AddPodLocked(std::shared_ptr<const api::Pod> pod, bool assumed) {
  AddPodInfoLocked(std::make_shared<const framework::PodInfo>(std::move(pod)), assumed);
}

void Cache::AddPodInfoLocked(framework::PodInfoPtr pod_info, bool assumed) {
  std::shared_ptr<const api::Pod> pod = pod_info->pod_ptr();
  auto it = GetOrCreateNodeLocked(pod->spec.node_name);
  it->info.AddPodInfo(std::move(pod_info));
  MoveToHeadLocked(it);
  std::string uid = pod->metadata.uid;
  if (assumed) assumed_pods_.insert(uid);
  pod_states_[std::move(uid)] = PodState{std::move(pod), false, std::nullopt};
}

util::Status Cache::RemovePodLocked(const api::Pod& pod) {
  auto found = node_index_.find(pod.spec.node_name);
  if (found == node_index_.end()) {
    spdlog::error("Node {} not found when trying to remove pod {}", pod.spec.node_name, PodRef(pod));
  } else {
    NodeList::iterator it = found->second;
    util::Status s = it->info.RemovePod(pod);
    if (!s.ok()) return s;
    if (it->info.pods().empty() && it->info.node() == nullptr) {
      RemoveNodeItemLocked(it);
    } else {
      MoveToHeadLocked(it);
    }
  }
  // Copy the key first: `pod` may be the cached state being erased.
  const std::string uid = pod.metadata.uid;
  pod_states_.erase(uid);
  assumed_pods_.erase(uid);
  return util::Status();
}

util::Status Cache::UpdatePodLocked(const api::Pod& old_pod, std::shared_ptr<const api::Pod> new_pod) {
  util::Status s = RemovePodLocked(old_pod);
  if (!s.ok()) return s;
  AddPodLocked(std::move(new_pod), false);
  return util::Status();
}

// ---------------------------------------------------------------- images

void Cache::AddNodeImageStatesLocked(const api::Node& node) {
  for (const api::ContainerImage& image : node.status.images) {
    for (const std::string& name : image.names) {
      auto it = image_states_.find(name);
      if (it == image_states_.end()) it = image_states_.emplace(name, ImageState{image.size_bytes, {}}).first;
      it->second.nodes.insert(node.metadata.name);
    }
  }
  ++image_generation_;
}

void Cache::RemoveNodeImageStatesLocked(const api::Node* node) {
  if (node == nullptr) return;
  for (const api::ContainerImage& image : node->status.images) {
    for (const std::string& name : image.names) {
      auto it = image_states_.find(name);
      if (it == image_states_.end()) continue;
      it->second.nodes.erase(node->metadata.name);
      // Drop unused images so the map's size is the number of distinct
      // images in the cluster.
      if (it->second.nodes.empty()) image_states_.erase(it);
    }
  }
  ++image_generation_;
}

std::shared_ptr<const framework::ImageStates> Cache::SnapshotImageStatesLocked(NodeItem& item) {
  if (item.image_generation == image_generation_) return item.image_states;
  auto states = std::make_shared<framework::ImageStates>();
  if (const api::Node* node = item.info.node()) {
    for (const api::ContainerImage& image : node->status.images) {
      for (const std::string& name : image.names) {
        if (states->count(name) > 0) continue;
        auto it = image_states_.find(name);
        if (it == image_states_.end()) continue;
        states->emplace(name, framework::ImageStateSummary{it->second.size, static_cast<int>(it->second.nodes.size())});
      }
    }
  }
  // A node without known images shares NodeInfo's empty states: the
  // per-node ImageLocality score then reads no line of its own for it.
  if (states->empty()) states = nullptr;
  item.image_states = std::move(states);
  item.image_generation = image_generation_;
  return item.image_states;
}

// ---------------------------------------------------------------- nodes

void Cache::AddNode(std::shared_ptr<const api::Node> node) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  auto it = GetOrCreateNodeLocked(node->metadata.name);
  RemoveNodeImageStatesLocked(it->info.node());
  MoveToHeadLocked(it);
  node_tree_.AddNode(*node);
  AddNodeImageStatesLocked(*node);
  it->info.SetNode(std::move(node));
}

void Cache::UpdateNode([[maybe_unused]] const std::shared_ptr<const api::Node>& old_node,
                       std::shared_ptr<const api::Node> new_node) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  auto it = GetOrCreateNodeLocked(new_node->metadata.name);
  const api::Node* cached = it->info.node();
  if (cached != nullptr) {
    // The cached version is what the tree holds, whatever the informer
    // thinks the old object was.
    node_tree_.UpdateNode(*cached, *new_node);
  } else {
    node_tree_.AddNode(*new_node);
  }
  RemoveNodeImageStatesLocked(cached);
  MoveToHeadLocked(it);
  AddNodeImageStatesLocked(*new_node);
  it->info.SetNode(std::move(new_node));
}

util::Status Cache::RemoveNode(const api::Node& node) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  auto found = node_index_.find(node.metadata.name);
  if (found == node_index_.end()) return util::NotFound("node " + node.metadata.name + " is not found");
  NodeList::iterator it = found->second;
  RemoveNodeImageStatesLocked(it->info.node());
  it->info.RemoveNode();
  // Pod deletions come through another watch and may still be on their
  // way: keep a ghost until they arrive.
  if (it->info.pods().empty()) {
    RemoveNodeItemLocked(it);
  } else {
    MoveToHeadLocked(it);
  }
  return node_tree_.RemoveNode(node);
}

// ---------------------------------------------------------------- informer pods

util::Status Cache::AddPod(std::shared_ptr<const api::Pod> pod) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  auto found = pod_states_.find(pod->metadata.uid);
  if (found != pod_states_.end() && assumed_pods_.count(pod->metadata.uid) > 0) {
    // Confirms the assumption; the informer's copy (and node) wins.
    std::shared_ptr<const api::Pod> assumed = found->second.pod;
    if (assumed->spec.node_name != pod->spec.node_name) {
      spdlog::info("Pod {} was added to node {}, different from the node {} it was assumed on", PodRef(*pod),
                   pod->spec.node_name, assumed->spec.node_name);
    }
    util::Status s = UpdatePodLocked(*assumed, std::move(pod));
    if (!s.ok()) spdlog::error("Error occurred while updating pod: {}", s.ToString());
    return util::Status();
  }
  if (found == pod_states_.end()) {
    AddPodLocked(std::move(pod), false);
    return util::Status();
  }
  return util::Status(util::StatusCode::kAlreadyExists, "pod " + PodRef(*pod) + " was already in added state");
}

util::Status Cache::UpdatePod(const std::shared_ptr<const api::Pod>& old_pod, std::shared_ptr<const api::Pod> new_pod) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  const api::Pod& key_pod = old_pod != nullptr ? *old_pod : *new_pod;
  auto found = pod_states_.find(key_pod.metadata.uid);
  if (found == pod_states_.end()) {
    return util::NotFound("pod " + PodRef(key_pod) + " is not added to scheduler cache, so cannot be updated");
  }
  // An assumed pod gets its Add before any Update.
  if (assumed_pods_.count(key_pod.metadata.uid) > 0) {
    return util::Internal("assumed pod " + PodRef(key_pod) + " should not be updated");
  }
  std::shared_ptr<const api::Pod> cached = found->second.pod;
  if (cached->spec.node_name != new_pod->spec.node_name) {
    spdlog::error("Pod {} updated on node {}, different from the node {} it was added to; following the update",
                  PodRef(*new_pod), new_pod->spec.node_name, cached->spec.node_name);
  }
  return UpdatePodLocked(*cached, std::move(new_pod));
}

util::Status Cache::RemovePod(const api::Pod& pod) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  auto found = pod_states_.find(pod.metadata.uid);
  if (found == pod_states_.end()) {
    return util::NotFound("pod " + PodRef(pod) + " is not found in scheduler cache, so cannot be removed from it");
  }
  std::shared_ptr<const api::Pod> cached = found->second.pod;
  if (!pod.spec.node_name.empty() && cached->spec.node_name != pod.spec.node_name) {
    spdlog::error("Pod {} deleted from node {}, but cached on node {}; removing the cached one", PodRef(pod),
                  pod.spec.node_name, cached->spec.node_name);
  }
  return RemovePodLocked(*cached);
}

// ---------------------------------------------------------------- assumptions

util::Status Cache::AssumePod(std::shared_ptr<const api::Pod> pod) {
  return AssumePod(std::make_shared<const framework::PodInfo>(std::move(pod)));
}

util::Status Cache::AssumePod(framework::PodInfoPtr pod_info) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  const api::Pod& pod = pod_info->pod();
  if (pod_states_.count(pod.metadata.uid) > 0) {
    return util::Status(util::StatusCode::kAlreadyExists,
                        "pod " + PodRef(pod) + " is in the cache, so can't be assumed");
  }
  AddPodInfoLocked(std::move(pod_info), true);
  return util::Status();
}

util::Status Cache::FinishBinding(const api::Pod& pod) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  auto found = pod_states_.find(pod.metadata.uid);
  if (found != pod_states_.end() && assumed_pods_.count(pod.metadata.uid) > 0) {
    PodState& ps = found->second;
    ps.binding_finished = true;
    if (options_.assumed_pod_ttl == util::Duration::zero()) {
      ps.deadline.reset();
    } else {
      ps.deadline = options_.clock->Now() + options_.assumed_pod_ttl;
    }
  }
  return util::Status();
}

util::Status Cache::ForgetPod(const api::Pod& pod) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  auto found = pod_states_.find(pod.metadata.uid);
  if (found != pod_states_.end() && found->second.pod->spec.node_name != pod.spec.node_name) {
    return util::Internal(fmt::format("pod {} was assumed on {} but assigned to {}", PodRef(pod), pod.spec.node_name,
                                      found->second.pod->spec.node_name));
  }
  if (found != pod_states_.end() && assumed_pods_.count(pod.metadata.uid) > 0) {
    std::shared_ptr<const api::Pod> cached = found->second.pod;
    return RemovePodLocked(*cached);
  }
  return util::Internal("pod " + PodRef(pod) + " wasn't assumed so cannot be forgotten");
}

bool Cache::IsAssumedPod(const api::Pod& pod) const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  return assumed_pods_.count(pod.metadata.uid) > 0;
}

std::shared_ptr<const api::Pod> Cache::GetPod(const api::Pod& pod) const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  auto found = pod_states_.find(pod.metadata.uid);
  return found == pod_states_.end() ? nullptr : found->second.pod;
}

// ---------------------------------------------------------------- snapshot

util::Status Cache::UpdateSnapshot(Snapshot& snapshot) {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  const int64_t snapshot_generation = snapshot.generation_;
  bool update_all = false;
  bool update_affinity_lists = false;
  snapshot.copied_in_last_update_ = 0;

  // Most recently changed first: stop at the first NodeInfo the snapshot
  // already has.
  for (NodeItem& item : nodes_) {
    if (item.info.generation() <= snapshot_generation) break;
    if (item.info.node() == nullptr) continue;  // ghosts stay out of snapshots
    auto [it, inserted] = snapshot.node_info_map_.try_emplace(item.name);
    if (inserted) {
      it->second = std::make_unique<framework::NodeInfo>();
      update_all = true;
    } else {
      snapshot.AddPVCRefs(*it->second, -1);
    }
    framework::NodeInfo& existing = *it->second;
    const bool had_affinity = !existing.pods_with_affinity().empty();
    const bool had_anti_affinity = !existing.pods_with_required_anti_affinity().empty();
    // Assign in place: the lists hold this address. The key was item.name
    // or the old Node object's name: from now on, the new one's.
    existing = item.info;
    snapshot.KeyByOwnName(it);
    ++snapshot.copied_in_last_update_;
    existing.SetImageStates(SnapshotImageStatesLocked(item));
    if (!inserted) snapshot.AddPVCRefs(existing, +1);
    if (had_affinity != !existing.pods_with_affinity().empty()) update_affinity_lists = true;
    if (had_anti_affinity != !existing.pods_with_required_anti_affinity().empty()) update_affinity_lists = true;
  }
  if (!nodes_.empty()) snapshot.generation_ = std::max(snapshot.generation_, nodes_.front().info.generation());
  // Nodes joined, left or changed zone: the order of List() changed.
  if (snapshot.tree_version_ != node_tree_.version()) {
    snapshot.tree_version_ = node_tree_.version();
    update_all = true;
  }

  // Deleted nodes leave the tree; drop them from the snapshot too.
  if (snapshot.node_info_map_.size() > node_tree_.NumNodes()) {
    for (auto it = snapshot.node_info_map_.begin(); it != snapshot.node_info_map_.end();) {
      auto found = node_index_.find(it->first);
      if (found == node_index_.end() || found->second->info.node() == nullptr) {
        it = snapshot.node_info_map_.erase(it);
      } else {
        ++it;
      }
    }
    update_all = true;
  }

  // The tree's order is listed only when the node list changes: a pod that
  // brings the first (anti-)affinity pod to a node, or takes the last one
  // away, changes the affinity lists alone.
  if (update_all) {
    snapshot.RebuildLists(node_tree_.List());
  } else if (update_affinity_lists) {
    snapshot.RebuildAffinityLists();
  }

  if (snapshot.node_info_list_.size() != node_tree_.NumNodes()) {
    std::string msg = fmt::format(
        "snapshot state is not consistent, length of NodeInfoList={} not equal to length of nodes in tree={} , "
        "length of NodeInfoMap={}, length of nodes in cache={}, trying to recover",
        snapshot.node_info_list_.size(), node_tree_.NumNodes(), snapshot.node_info_map_.size(), nodes_.size());
    spdlog::error("{}", msg);
    snapshot.RebuildLists(node_tree_.List());
    return util::Internal(msg);
  }
  return util::Status();
}

// ---------------------------------------------------------------- expiry

void Cache::CleanupExpiredAssumedPods() {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  if (options_.assumed_pod_ttl == util::Duration::zero()) return;
  const util::TimePoint now = options_.clock->Now();
  std::vector<std::shared_ptr<const api::Pod>> expired;
  for (const std::string& uid : assumed_pods_) {
    auto found = pod_states_.find(uid);
    if (found == pod_states_.end()) continue;
    const PodState& ps = found->second;
    // Never expire a pod whose binding is still in progress.
    if (!ps.binding_finished || !ps.deadline) continue;
    if (now > *ps.deadline) expired.push_back(ps.pod);
  }
  for (const auto& pod : expired) {
    spdlog::info("Pod {} expired: its binding finished but the informer never reported it", PodRef(*pod));
    util::Status s = RemovePodLocked(*pod);
    if (!s.ok()) spdlog::error("ExpirePod failed for {}: {}", PodRef(*pod), s.ToString());
  }
}

void Cache::Run() {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  if (running_) return;
  running_ = true;
  stopping_ = false;
  cleanup_thread_ = std::thread([this] {
    util::NameThisThread("cache-expiry");
    CleanupLoop();
  });
}

void Cache::Stop() {
  {
    std::lock_guard<util::SpinThenBlockMutex> l(mu_);
    if (!running_) return;
    stopping_ = true;
  }
  stop_cv_.notify_all();
  cleanup_thread_.join();
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  running_ = false;
}

void Cache::CleanupLoop() {
  // Like wait.Until: a pass at once, then one per period.
  while (true) {
    CleanupExpiredAssumedPods();
    std::unique_lock<std::mutex> l(mu_.inner());
    const util::TimePoint deadline = options_.clock->Now() + options_.cleanup_period;
    while (!stopping_ && options_.clock->Now() < deadline) options_.clock->WaitUntil(l, stop_cv_, deadline);
    if (stopping_) return;
  }
}

// ---------------------------------------------------------------- introspection

size_t Cache::NodeCount() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  return nodes_.size();
}

size_t Cache::PodCount() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  return pod_states_.size();
}

size_t Cache::AssumedPodCount() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  return assumed_pods_.size();
}

CacheDump Cache::Dump() const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  CacheDump d;
  for (const NodeItem& item : nodes_) d.nodes.emplace(item.name, item.info.Clone());
  d.assumed_pods.insert(assumed_pods_.begin(), assumed_pods_.end());
  return d;
}

util::StatusOr<framework::NodeInfo> Cache::GetNodeInfo(std::string_view name) const {
  std::lock_guard<util::SpinThenBlockMutex> l(mu_);
  auto found = node_index_.find(name);
  if (found == node_index_.end()) {
    return util::NotFound("node " + std::string(name) + " does not exist in scheduler cache");
  }
  return found->second->info.Clone();
}

}  // namespace ksched::scheduler::cache
