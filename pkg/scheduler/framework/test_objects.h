// Builders for pods and nodes in scheduler tests (in the spirit of kube's
// st.MakePod() / st.MakeNode() wrappers):
//
//   auto pod = MakePod("p", "ns").Node("n1").Priority(10).Req({{"cpu", "500m"}}).HostPort(80).Obj();
//   auto node = MakeNode("n1").Zone("z1").Capacity({{"cpu", "4"}, {"pods", "110"}}).Obj();
//
// Each setter mutates the wrapped object and returns *this; Obj() returns
// an immutable shared copy. UIDs default to "<namespace>/<name>-uid".
//
// Thread-safety: none (test code).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/quantity.h"
#include "pkg/api/types.h"

namespace ksched::scheduler::framework::testing {

inline api::ResourceList ToResourceList(const std::map<std::string, std::string>& rl) {
  api::ResourceList out;
  for (const auto& [name, q] : rl) out[name] = api::Quantity::MustParse(q);
  return out;
}

class PodWrapper {
 public:
  PodWrapper(std::string name, std::string namespace_) {
    pod_.metadata.name = std::move(name);
    pod_.metadata.namespace_ = std::move(namespace_);
    pod_.metadata.uid = pod_.metadata.namespace_ + "/" + pod_.metadata.name + "-uid";
    pod_.spec.scheduler_name = "default-scheduler";
  }

  PodWrapper& UID(std::string uid) {
    pod_.metadata.uid = std::move(uid);
    return *this;
  }
  PodWrapper& Node(std::string node) {
    pod_.spec.node_name = std::move(node);
    return *this;
  }
  PodWrapper& Priority(int32_t p) {
    pod_.spec.priority = p;
    return *this;
  }
  PodWrapper& SchedulerName(std::string s) {
    pod_.spec.scheduler_name = std::move(s);
    return *this;
  }
  PodWrapper& Label(std::string k, std::string v) {
    pod_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  PodWrapper& NominatedNode(std::string n) {
    pod_.status.nominated_node_name = std::move(n);
    return *this;
  }
  // Appends a container with these requests ({"cpu": "100m", ...}).
  PodWrapper& Req(const std::map<std::string, std::string>& requests) {
    api::Container c;
    c.name = "c" + std::to_string(pod_.spec.containers.size());
    c.image = "registry.k8s.io/pause:3.9";
    c.resources.requests = ToResourceList(requests);
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  // Pod-level requests (spec.resources.requests).
  PodWrapper& PodLevelReq(const std::map<std::string, std::string>& requests) {
    if (!pod_.spec.resources) pod_.spec.resources.emplace();
    pod_.spec.resources->requests = ToResourceList(requests);
    return *this;
  }
  // A status for container `name` reporting these requests, as the kubelet
  // does for a resize.
  PodWrapper& StatusReq(std::string name, const std::map<std::string, std::string>& requests) {
    api::ContainerStatus cs;
    cs.name = std::move(name);
    cs.resources.emplace();
    cs.resources->requests = ToResourceList(requests);
    pod_.status.container_statuses.push_back(std::move(cs));
    return *this;
  }
  // A PodResizePending condition with `reason` (Infeasible, Deferred).
  PodWrapper& ResizePending(std::string reason) {
    api::PodCondition c;
    c.type = "PodResizePending";
    c.status = "True";
    c.reason = std::move(reason);
    pod_.status.conditions.push_back(std::move(c));
    return *this;
  }
  // Appends a container using `image` (no requests).
  PodWrapper& Image(std::string image) {
    api::Container c;
    c.name = "c" + std::to_string(pod_.spec.containers.size());
    c.image = std::move(image);
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  PodWrapper& Overhead(const std::map<std::string, std::string>& overhead) {
    pod_.spec.overhead = ToResourceList(overhead);
    return *this;
  }
  // A host port on a new container.
  PodWrapper& HostPort(int32_t port, std::string protocol = "TCP", std::string host_ip = "") {
    api::Container c;
    c.name = "c" + std::to_string(pod_.spec.containers.size());
    api::ContainerPort p;
    p.host_port = port;
    p.container_port = port;
    p.protocol = std::move(protocol);
    p.host_ip = std::move(host_ip);
    c.ports.push_back(std::move(p));
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  PodWrapper& PVC(std::string claim) {
    api::Volume v;
    v.name = "vol-" + claim;
    v.persistent_volume_claim = api::PersistentVolumeClaimVolumeSource{std::move(claim), false};
    pod_.spec.volumes.push_back(std::move(v));
    return *this;
  }
  PodWrapper& Toleration(std::string key, std::string op, std::string value, std::string effect) {
    pod_.spec.tolerations.push_back(api::Toleration{std::move(key), std::move(op), std::move(value),
                                                    std::move(effect), std::nullopt});
    return *this;
  }
  // Required pod affinity (anti=false) or anti-affinity (anti=true) to pods
  // with these labels over `topology_key`.
  PodWrapper& RequiredPodAffinity(std::string topology_key, std::map<std::string, std::string> match_labels,
                                  bool anti = false) {
    api::PodAffinityTerm t;
    t.topology_key = std::move(topology_key);
    t.label_selector = api::LabelSelector{api::StringMap(match_labels.begin(), match_labels.end()), {}};
    Affinity(anti).required_during_scheduling_ignored_during_execution.push_back(std::move(t));
    return *this;
  }
  PodWrapper& PreferredPodAffinity(int32_t weight, std::string topology_key,
                                   std::map<std::string, std::string> match_labels, bool anti = false) {
    api::WeightedPodAffinityTerm t;
    t.weight = weight;
    t.pod_affinity_term.topology_key = std::move(topology_key);
    t.pod_affinity_term.label_selector = api::LabelSelector{api::StringMap(match_labels.begin(), match_labels.end()), {}};
    Affinity(anti).preferred_during_scheduling_ignored_during_execution.push_back(std::move(t));
    return *this;
  }

  api::Pod& pod() { return pod_; }
  std::shared_ptr<const api::Pod> Obj() const { return std::make_shared<const api::Pod>(pod_); }

 private:
  api::PodAffinity& Affinity(bool anti) {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    std::optional<api::PodAffinity>& a = anti ? pod_.spec.affinity.Mutable().pod_anti_affinity : pod_.spec.affinity.Mutable().pod_affinity;
    if (!a) a.emplace();
    return *a;
  }

  api::Pod pod_;
};

class NodeWrapper {
 public:
  explicit NodeWrapper(std::string name) { node_.metadata.name = std::move(name); }

  NodeWrapper& Label(std::string k, std::string v) {
    node_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  NodeWrapper& Zone(std::string zone) { return Label("topology.kubernetes.io/zone", std::move(zone)); }
  NodeWrapper& Region(std::string region) { return Label("topology.kubernetes.io/region", std::move(region)); }
  // Sets capacity and allocatable.
  NodeWrapper& Capacity(const std::map<std::string, std::string>& resources) {
    node_.status.allocatable = ToResourceList(resources);
    return *this;
  }
  NodeWrapper& Image(std::vector<std::string> names, int64_t size_bytes) {
    node_.status.images.push_back(api::ContainerImage{std::move(names), size_bytes});
    return *this;
  }
  NodeWrapper& Taint(std::string key, std::string value, std::string effect) {
    node_.spec.taints.push_back(api::Taint{std::move(key), std::move(value), std::move(effect), std::nullopt});
    return *this;
  }
  NodeWrapper& Unschedulable(bool u = true) {
    node_.spec.unschedulable = u;
    return *this;
  }

  api::Node& node() { return node_; }
  std::shared_ptr<const api::Node> Obj() const { return std::make_shared<const api::Node>(node_); }

 private:
  api::Node node_;
};

inline PodWrapper MakePod(std::string name, std::string namespace_ = "default") {
  return PodWrapper(std::move(name), std::move(namespace_));
}
inline NodeWrapper MakeNode(std::string name) { return NodeWrapper(std::move(name)); }

}  // namespace ksched::scheduler::framework::testing
