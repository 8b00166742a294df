#include "pkg/scheduler/cache/node_tree.h"

#include <algorithm>

#include "pkg/log/log.h"

namespace ksched::scheduler::cache {

namespace {

const std::string* Label(const api::Node& node, const char* key) {
  auto it = node.metadata.labels.find(key);
  return it == node.metadata.labels.end() ? nullptr : &it->second;
}

}  // namespace

std::string GetZoneKey(const api::Node& node) {
  // The deprecated beta labels still win, as in component-helpers.
  const std::string* zone = Label(node, "failure-domain.beta.kubernetes.io/zone");
  if (zone == nullptr) zone = Label(node, "topology.kubernetes.io/zone");
  const std::string* region = Label(node, "failure-domain.beta.kubernetes.io/region");
  if (region == nullptr) region = Label(node, "topology.kubernetes.io/region");
  const std::string z = zone == nullptr ? "" : *zone;
  const std::string r = region == nullptr ? "" : *region;
  if (z.empty() && r.empty()) return "";
  // The NUL keeps "a:b" + "c" apart from "a" + "b:c".
  std::string key = r;
  key += ":";
  key += '\0';
  key += ":";
  key += z;
  return key;
}

void NodeTree::AddNode(const api::Node& node) {
  std::string zone = GetZoneKey(node);
  auto [known, inserted] = zone_of_.try_emplace(node.metadata.name, nullptr);
  if (!inserted) {
    if (*known->second == zone) {
      KLOG_V(2, "Did not add node {} to the NodeTree because it already exists", node.metadata.name);
      return;
    }
    RemoveFromZone(known->first, known->second);
  }
  auto it = tree_.find(zone);
  if (it == tree_.end()) {
    it = tree_.emplace(std::move(zone), std::vector<const std::string*>{}).first;
    zones_.push_back(&it->first);
  }
  it->second.push_back(&known->first);
  known->second = &it->first;
  ++num_nodes_;
  ++version_;
}

util::Status NodeTree::RemoveNode(const api::Node& node) {
  const std::string zone = GetZoneKey(node);
  auto known = zone_of_.find(node.metadata.name);
  if (known == zone_of_.end() || *known->second != zone) {
    return util::NotFound("node \"" + node.metadata.name + "\" in group \"" + zone + "\" was not found");
  }
  RemoveFromZone(known->first, known->second);
  zone_of_.erase(known);
  return util::Status();
}

void NodeTree::RemoveFromZone(const std::string& name, const std::string* zone) {
  auto it = tree_.find(*zone);
  std::vector<const std::string*>& names = it->second;
  names.erase(std::find(names.begin(), names.end(), &name));
  if (names.empty()) {
    // `zone` is the key about to go.
    zones_.erase(std::find(zones_.begin(), zones_.end(), zone));
    tree_.erase(it);
  }
  --num_nodes_;
  ++version_;
}

void NodeTree::UpdateNode(const api::Node& old_node, const api::Node& new_node) {
  if (GetZoneKey(old_node) == GetZoneKey(new_node)) return;
  // A failed removal only means the old version was never added.
  (void)RemoveNode(old_node);
  AddNode(new_node);
}

std::vector<std::string> NodeTree::List() const {
  std::vector<std::string> out;
  out.reserve(num_nodes_);
  // Round-robin: the i-th node of every zone, for i = 0, 1, ...
  for (size_t index = 0; out.size() < num_nodes_; ++index) {
    bool any = false;
    for (const std::string* zone : zones_) {
      const std::vector<const std::string*>& names = tree_.at(*zone);
      if (index < names.size()) {
        out.push_back(*names[index]);
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}

}  // namespace ksched::scheduler::cache
