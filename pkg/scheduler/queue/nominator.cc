#include "pkg/scheduler/queue/nominator.h"

#include "pkg/log/log.h"

namespace ksched::scheduler::queue {

void Nominator::Delete(std::string_view uid) {
  if (pod_to_node_.empty()) return;  // the common case: no nominations at all
  auto it = pod_to_node_.find(uid);
  if (it == pod_to_node_.end()) return;
  auto nit = nominated_pods_.find(it->second);
  if (nit != nominated_pods_.end()) {
    std::vector<PodRef>& refs = nit->second;
    for (size_t i = 0; i < refs.size(); ++i) {
      if (refs[i].uid == uid) {
        refs.erase(refs.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
    if (refs.empty()) nominated_pods_.erase(nit);
  }
  pod_to_node_.erase(it);
}

void Nominator::AddNominatedPod(const framework::PodInfo& pi, const framework::NominatingInfo* ni) {
  const api::Pod& pod = pi.pod();
  Delete(pod.metadata.uid);
  std::string node;
  if (ni != nullptr && ni->mode == framework::NominatingMode::kOverride) {
    node = ni->nominated_node_name;
  } else {
    node = pod.status.nominated_node_name;
  }
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
  pod_to_node_[pod.metadata.uid] = node;
  std::vector<PodRef>& refs = nominated_pods_[node];
  for (const PodRef& r : refs) {
    if (r.uid == pod.metadata.uid) return;
  }
  refs.push_back(PodRef{pod.metadata.name, pod.metadata.namespace_, pod.metadata.uid});
}

void Nominator::UpdateNominatedPod(const api::Pod& old_pod, const framework::PodInfo& new_info) {
  std::optional<framework::NominatingInfo> keep;
  if (old_pod.status.nominated_node_name.empty() && new_info.pod().status.nominated_node_name.empty()) {
    auto it = pod_to_node_.find(old_pod.metadata.uid);
    if (it != pod_to_node_.end()) keep = framework::NominatingInfo{framework::NominatingMode::kOverride, it->second};
  }
  Delete(old_pod.metadata.uid);
  AddNominatedPod(new_info, keep ? &*keep : nullptr);
}

void Nominator::DeleteNominatedPodIfExists(const api::Pod& pod) { Delete(pod.metadata.uid); }

std::vector<PodRef> Nominator::NominatedPodsForNode(std::string_view node) const {
  auto it = nominated_pods_.find(node);
  return it == nominated_pods_.end() ? std::vector<PodRef>() : it->second;
}

std::optional<std::string> Nominator::NominatedNodeFor(std::string_view uid) const {
  auto it = pod_to_node_.find(uid);
  if (it == pod_to_node_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ksched::scheduler::queue
