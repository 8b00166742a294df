#include "pkg/scheduler/queue/nominator.h"

#include "pkg/log/log.h"

namespace ksched::scheduler::queue {

void Nominator::DeleteLocked(std::string_view uid) {
  if (pod_to_node_.empty()) return;  // the common case: no nominations at all
  auto it = pod_to_node_.find(uid);
  if (it == pod_to_node_.end()) return;
  auto nit = nominated_pods_.find(it->second);
  if (nit != nominated_pods_.end()) {
    std::vector<framework::PodInfoPtr>& pods = nit->second;
    for (size_t i = 0; i < pods.size(); ++i) {
      if (pods[i]->pod().metadata.uid == uid) {
        pods.erase(pods.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
    if (pods.empty()) nominated_pods_.erase(nit);
  }
  pod_to_node_.erase(it);
}

void Nominator::AddLocked(const framework::PodInfo& pi, const framework::NominatingInfo* ni) {
  const api::Pod& pod = pi.pod();
  std::string node;
  if (ni != nullptr && ni->mode == framework::NominatingMode::kOverride) {
    node = ni->nominated_node_name;
  } else {
    // Noop: the pod's status says, as in kube; naming no node ends an
    // in-memory nomination (only UpdateNominatedPod keeps one).
    node = pod.status.nominated_node_name;
  }
  DeleteLocked(pod.metadata.uid);
  if (node.empty()) return;
  if (lister_) {
    std::shared_ptr<const api::Pod> current = lister_(pod.metadata.namespace_, pod.metadata.name);
    if (current == nullptr) {
      KLOG_V(4, "Pod {}/{} doesn't exist in podLister, aborted adding it to the nominator", pod.metadata.namespace_,
             pod.metadata.name);
      return;
    }
    if (!current->spec.node_name.empty()) {
      KLOG_V(4, "Pod {}/{} is already scheduled to node {}, aborted adding it to the nominator",
             pod.metadata.namespace_, pod.metadata.name, current->spec.node_name);
      return;
    }
  }
  nominated_pods_[node].push_back(std::make_shared<const framework::PodInfo>(pi));
  pod_to_node_[pod.metadata.uid] = std::move(node);
}

void Nominator::AddNominatedPod(const framework::PodInfo& pi, const framework::NominatingInfo* ni) {
  std::lock_guard<std::mutex> l(mu_);
  AddLocked(pi, ni);
  PublishCountLocked();
}

void Nominator::UpdateNominatedPod(const api::Pod& old_pod, const framework::PodInfo& new_info) {
  std::lock_guard<std::mutex> l(mu_);
  std::optional<framework::NominatingInfo> keep;
  if (old_pod.status.nominated_node_name.empty() && new_info.pod().status.nominated_node_name.empty()) {
    auto it = pod_to_node_.find(old_pod.metadata.uid);
    if (it != pod_to_node_.end()) keep = framework::NominatingInfo{framework::NominatingMode::kOverride, it->second};
  }
  DeleteLocked(old_pod.metadata.uid);
  AddLocked(new_info, keep ? &*keep : nullptr);
  PublishCountLocked();
}

void Nominator::DeleteNominatedPodIfExists(const api::Pod& pod) {
  // No lock-free shortcut here: a delete that read a zero count while an
  // add of the same pod was under way would leave a nomination for a pod
  // that is gone.
  std::lock_guard<std::mutex> l(mu_);
  DeleteLocked(pod.metadata.uid);
  PublishCountLocked();
}

std::vector<framework::PodInfoPtr> Nominator::NominatedPodsForNode(std::string_view node) const {
  if (count_.load(std::memory_order_acquire) == 0) return {};
  std::lock_guard<std::mutex> l(mu_);
  auto it = nominated_pods_.find(node);
  return it == nominated_pods_.end() ? std::vector<framework::PodInfoPtr>() : it->second;
}

std::optional<std::string> Nominator::NominatedNodeFor(std::string_view uid) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = pod_to_node_.find(uid);
  if (it == pod_to_node_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ksched::scheduler::queue
