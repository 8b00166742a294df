#include "pkg/scheduler/cache/snapshot.h"

#include <set>

#include "spdlog/fmt/fmt.h"

namespace ksched::scheduler::cache {

void Snapshot::KeyByOwnName(NodeInfoMap::iterator it) {
  const std::string_view own = it->second->node_name_view();
  if (it->first.data() == own.data()) return;
  auto handle = node_info_map_.extract(it);
  handle.key() = own;
  node_info_map_.insert(std::move(handle));
}

std::unique_ptr<Snapshot> Snapshot::FromObjects(const std::vector<std::shared_ptr<const api::Pod>>& pods,
                                                const std::vector<std::shared_ptr<const api::Node>>& nodes) {
  auto s = std::make_unique<Snapshot>();
  // How many nodes carry each image name.
  std::map<std::string, framework::ImageStateSummary, std::less<>> images;
  std::vector<std::string> order;
  for (const auto& node : nodes) {
    const std::string& name = node->metadata.name;
    auto [it, inserted] = s->node_info_map_.try_emplace(name);
    if (!inserted) continue;
    it->second = std::make_unique<framework::NodeInfo>(node);  // holds `name`
    order.push_back(name);
    std::set<std::string> seen;
    for (const api::ContainerImage& image : node->status.images) {
      for (const std::string& n : image.names) {
        if (!seen.insert(n).second) continue;
        auto [im, fresh] = images.try_emplace(n, framework::ImageStateSummary{image.size_bytes, 0});
        ++im->second.num_nodes;
      }
    }
  }
  for (const auto& pod : pods) {
    auto it = s->node_info_map_.find(pod->spec.node_name);
    if (it != s->node_info_map_.end()) it->second->AddPod(pod);
  }
  for (const auto& node : nodes) {
    framework::NodeInfo& ni = *s->node_info_map_.at(node->metadata.name);
    if (ni.node() != node.get()) continue;  // a duplicate entry of `nodes`
    auto states = std::make_shared<framework::ImageStates>();
    for (const api::ContainerImage& image : node->status.images) {
      for (const std::string& n : image.names) states->emplace(n, images.at(n));
    }
    ni.SetImageStates(std::move(states));
    s->generation_ = std::max(s->generation_, ni.generation());
  }
  s->RebuildLists(order);
  return s;
}

util::StatusOr<const framework::NodeInfo*> Snapshot::Get(std::string_view node_name) const {
  auto it = node_info_map_.find(node_name);
  if (it == node_info_map_.end() || it->second->node() == nullptr) {
    return util::NotFound(fmt::format("nodeinfo not found for node name \"{}\"", node_name));
  }
  return static_cast<const framework::NodeInfo*>(it->second.get());
}

bool Snapshot::IsPVCUsedByPods(std::string_view key) const {
  auto it = used_pvc_ref_counts_.find(key);
  return it != used_pvc_ref_counts_.end() && it->second > 0;
}

void Snapshot::AddPVCRefs(const framework::NodeInfo& ni, int sign) {
  for (const auto& [key, count] : ni.pvc_ref_counts()) {
    auto it = used_pvc_ref_counts_.find(key);
    if (it == used_pvc_ref_counts_.end()) it = used_pvc_ref_counts_.emplace(key, 0).first;
    it->second += sign * count;
    if (it->second <= 0) used_pvc_ref_counts_.erase(it);
  }
}

void Snapshot::RebuildLists(const std::vector<std::string>& ordered_names) {
  node_info_list_.clear();
  node_info_list_.reserve(ordered_names.size());
  used_pvc_ref_counts_.clear();
  for (const std::string& name : ordered_names) {
    auto it = node_info_map_.find(name);
    if (it == node_info_map_.end()) continue;
    node_info_list_.push_back(it->second.get());
    AddPVCRefs(*it->second, +1);
  }
  RebuildAffinityLists();
}

void Snapshot::RebuildAffinityLists() {
  have_pods_with_affinity_.clear();
  have_pods_with_required_anti_affinity_.clear();
  for (const framework::NodeInfo* ni : node_info_list_) {
    if (!ni->pods_with_affinity().empty()) have_pods_with_affinity_.push_back(ni);
    if (!ni->pods_with_required_anti_affinity().empty()) have_pods_with_required_anti_affinity_.push_back(ni);
  }
}

}  // namespace ksched::scheduler::cache
