// Builders for the noderesources tests (test-only): nodes with a given
// allocatable, pods with one container per request map, DRA devices and
// the claims holding them.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/quantity.h"
#include "pkg/api/resource_types.h"
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

// A ResourceSlice of `driver` with the named devices, in a pool of its
// own name: on `node`, or on every node when `node` is empty.
inline std::shared_ptr<const api::ResourceSlice> DeviceSlice(const std::string& name, const std::string& driver,
                                                             const std::string& node,
                                                             const std::vector<std::string>& devices) {
  auto s = std::make_shared<api::ResourceSlice>();
  s->metadata.name = name;
  s->spec.driver = driver;
  s->spec.pool.name = name;
  s->spec.pool.resource_slice_count = 1;
  if (node.empty()) {
    s->spec.all_nodes = true;
  } else {
    s->spec.node_name = node;
  }
  for (const std::string& d : devices) s->spec.devices.push_back(api::Device{.name = d});
  return s;
}

// A claim "default/<name>" allocated driver/pool/device.
inline std::shared_ptr<const api::ResourceClaim> HeldClaim(const std::string& name, const std::string& driver,
                                                           const std::string& pool, const std::string& device) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.namespace_ = "default";
  c->metadata.name = name;
  c->metadata.uid = name + "-uid";
  c->status.allocation.emplace();
  c->status.allocation->devices.results.push_back({.request = "r", .driver = driver, .pool = pool, .device = device});
  return c;
}

}  // namespace ksched::scheduler::plugins::noderesources::testing
