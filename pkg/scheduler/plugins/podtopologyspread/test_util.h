// Test helpers for PodTopologySpread: the shared FakeHandle, and
// builders for pods with spread constraints and for nodes (in the spirit of
// kube's st.MakePod()). Test-only.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/cache/snapshot.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/plugins/helper/fake_handle.h"
#include "pkg/scheduler/plugins/helper/mutable_snapshot.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/util/clock.h"
#include "pkg/util/parallelizer.h"

namespace ksched::scheduler::plugins::podtopologyspread::testing {

using helper::testing::FakeHandle;

inline api::LabelSelector Exists(std::string key) {
  api::LabelSelector s;
  s.match_expressions.push_back(api::LabelSelectorRequirement{std::move(key), "Exists", {}});
  return s;
}

inline api::LabelSelector MatchLabels(api::StringMap labels) {
  api::LabelSelector s;
  s.match_labels = std::move(labels);
  return s;
}

// A spread constraint; optional fields left unset unless given.
struct Spread {
  int32_t max_skew = 1;
  std::string key;
  std::string when = "DoNotSchedule";
  std::optional<api::LabelSelector> selector;
  std::optional<int32_t> min_domains;
  std::optional<std::string> node_affinity_policy;
  std::optional<std::string> node_taints_policy;
  std::vector<std::string> match_label_keys;

  api::TopologySpreadConstraint Obj() const {
    api::TopologySpreadConstraint c;
    c.max_skew = max_skew;
    c.topology_key = key;
    c.when_unsatisfiable = when;
    c.label_selector = selector;
    c.min_domains = min_domains;
    c.node_affinity_policy = node_affinity_policy;
    c.node_taints_policy = node_taints_policy;
    c.match_label_keys = match_label_keys;
    return c;
  }
};

class PodBuilder {
 public:
  explicit PodBuilder(std::string name = "p") {
    p_.metadata.name = name;
    p_.metadata.uid = name;
  }
  PodBuilder& Namespace(std::string ns) {
    p_.metadata.namespace_ = std::move(ns);
    return *this;
  }
  PodBuilder& Node(std::string node) {
    p_.spec.node_name = std::move(node);
    return *this;
  }
  PodBuilder& Label(std::string k, std::string v) {
    p_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  PodBuilder& Spread(const testing::Spread& s) {
    p_.spec.topology_spread_constraints.push_back(s.Obj());
    return *this;
  }
  PodBuilder& NodeSelector(std::string k, std::string v) {
    p_.spec.node_selector[std::move(k)] = std::move(v);
    return *this;
  }
  // Required node affinity: `key` In `values`.
  PodBuilder& NodeAffinityIn(std::string key, std::vector<std::string> values) {
    if (!p_.spec.affinity) p_.spec.affinity.emplace();
    if (!p_.spec.affinity.Mutable().node_affinity) p_.spec.affinity.Mutable().node_affinity.emplace();
    auto& req = p_.spec.affinity.Mutable().node_affinity->required_during_scheduling_ignored_during_execution;
    if (!req) req.emplace();
    api::NodeSelectorTerm term;
    term.match_expressions.push_back(api::NodeSelectorRequirement{std::move(key), "In", std::move(values)});
    req->node_selector_terms.push_back(std::move(term));
    return *this;
  }
  PodBuilder& Toleration(std::string key, std::string effect) {
    p_.spec.tolerations.push_back(api::Toleration{std::move(key), "Exists", "", std::move(effect), std::nullopt});
    return *this;
  }
  PodBuilder& Terminating() {
    p_.metadata.deletion_timestamp = api::Time{};
    return *this;
  }
  // Owned by controller `name` (also its UID), and labelled
  // controller=<name>, which AddControllers' workloads select.
  PodBuilder& Controller(std::string api_version, std::string kind, std::string name) {
    p_.metadata.labels["controller"] = name;
    api::OwnerReference ref;
    ref.api_version = std::move(api_version);
    ref.kind = std::move(kind);
    ref.name = name;
    ref.uid = std::move(name);
    ref.controller = true;
    p_.metadata.owner_references.push_back(std::move(ref));
    return *this;
  }
  std::shared_ptr<const api::Pod> Obj() const { return std::make_shared<const api::Pod>(p_); }

 private:
  api::Pod p_;
};

inline std::shared_ptr<const api::Node> MakeNode(std::string name, api::StringMap labels,
                                                 std::vector<api::Taint> taints = {}) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = std::move(name);
  n->metadata.labels = std::move(labels);
  n->spec.taints = std::move(taints);
  return n;
}

// Nodes a, b in zone1 and x, y in zone2, each with label node=<name>.
inline std::vector<std::shared_ptr<const api::Node>> FourNodes() {
  return {MakeNode("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
          MakeNode("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
          MakeNode("node-x", {{"zone", "zone2"}, {"node", "node-x"}}),
          MakeNode("node-y", {{"zone", "zone2"}, {"node", "node-y"}})};
}

using helper::testing::MutableSnapshot;

// Adds to `listers`, in namespace "", ReplicaSets rs, rs1 and rs2, StatefulSet
// ss1, ReplicationController rc1 and Job job1's namesake ReplicaSet "job1"
// (to show the owner's kind matters), each selecting controller=<its name>.
inline void AddControllers(framework::InMemorySharedListers& listers) {
  auto selecting = [](const std::string& name) {
    api::LabelSelector s;
    s.match_labels["controller"] = name;
    return s;
  };
  for (const char* name : {"rs", "rs1", "rs2", "job1"}) {
    auto rs = std::make_shared<api::ReplicaSet>();
    rs->metadata.name = name;
    rs->spec.selector = selecting(name);
    listers.replica_sets.Set(rs);
  }
  auto ss = std::make_shared<api::StatefulSet>();
  ss->metadata.name = "ss1";
  ss->spec.selector = selecting("ss1");
  listers.stateful_sets.Set(ss);
  auto rc = std::make_shared<api::ReplicationController>();
  rc->metadata.name = "rc1";
  rc->spec.selector = {{"controller", "rc1"}};
  listers.replication_controllers.Set(rc);
}

}  // namespace ksched::scheduler::plugins::podtopologyspread::testing
