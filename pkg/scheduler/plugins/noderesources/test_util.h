// Builders for the noderesources tests (test-only): nodes with a given
// allocatable, pods with one container per request map.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/quantity.h"
#include "pkg/api/types.h"
#include "pkg/scheduler/framework/node_info.h"

namespace ksched::scheduler::plugins::noderesources::testing {

using Requests = std::map<std::string, std::string>;

inline api::ResourceList ToResourceList(const Requests& r) {
  api::ResourceList out;
  for (const auto& [name, value] : r) out.emplace(name, api::Quantity::MustParse(value));
  return out;
}

// A node whose capacity and allocatable are `allocatable`.
inline std::shared_ptr<const api::Node> MakeNode(const std::string& name, const Requests& allocatable) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = name;
  n->status.allocatable = ToResourceList(allocatable);
  n->status.capacity = n->status.allocatable;
  return n;
}

// One regular container per entry of `containers`, one init container per
// entry of `init_containers`.
inline std::shared_ptr<api::Pod> MakePod(const std::string& uid, const std::vector<Requests>& containers,
                                         const std::vector<Requests>& init_containers = {},
                                         const std::string& node_name = "") {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = "pod-" + uid;
  p->metadata.namespace_ = "default";
  p->metadata.uid = uid;
  p->spec.node_name = node_name;
  for (size_t i = 0; i < containers.size(); ++i) {
    api::Container c;
    c.name = "c" + std::to_string(i);
    c.resources.requests = ToResourceList(containers[i]);
    p->spec.containers.push_back(std::move(c));
  }
  for (size_t i = 0; i < init_containers.size(); ++i) {
    api::Container c;
    c.name = "i" + std::to_string(i);
    c.resources.requests = ToResourceList(init_containers[i]);
    p->spec.init_containers.push_back(std::move(c));
  }
  return p;
}

inline framework::NodeInfo MakeNodeInfo(std::shared_ptr<const api::Node> node,
                                        const std::vector<std::shared_ptr<api::Pod>>& pods = {}) {
  framework::NodeInfo ni(std::move(node));
  for (const auto& p : pods) ni.AddPod(p);
  return ni;
}

}  // namespace ksched::scheduler::plugins::noderesources::testing
