// Test helpers for InterPodAffinity: the shared FakeHandle, and small
// builders for pods, terms and nodes (in the spirit of kube's st.MakePod()).
// Test-only.
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
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/util/clock.h"
#include "pkg/util/parallelizer.h"

namespace ksched::scheduler::plugins::interpodaffinity::testing {

using helper::testing::FakeHandle;

// A label selector built requirement by requirement.
class Sel {
 public:
  Sel& Label(std::string k, std::string v) {
    s_.match_labels[std::move(k)] = std::move(v);
    return *this;
  }
  Sel& Exists(std::string k) { return Expr(std::move(k), "Exists", {}); }
  Sel& In(std::string k, std::vector<std::string> v) { return Expr(std::move(k), "In", std::move(v)); }
  Sel& NotIn(std::string k, std::vector<std::string> v) { return Expr(std::move(k), "NotIn", std::move(v)); }
  Sel& DoesNotExist(std::string k) { return Expr(std::move(k), "DoesNotExist", {}); }
  operator api::LabelSelector() const { return s_; }  // NOLINT: builder
  const api::LabelSelector& get() const { return s_; }

 private:
  Sel& Expr(std::string k, std::string op, std::vector<std::string> v) {
    s_.match_expressions.push_back(api::LabelSelectorRequirement{std::move(k), std::move(op), std::move(v)});
    return *this;
  }
  api::LabelSelector s_;
};

inline api::PodAffinityTerm Term(const Sel& selector, std::string topology_key,
                                 std::vector<std::string> namespaces = {},
                                 std::optional<api::LabelSelector> namespace_selector = std::nullopt) {
  api::PodAffinityTerm t;
  t.label_selector = selector.get();
  t.topology_key = std::move(topology_key);
  t.namespaces = std::move(namespaces);
  t.namespace_selector = std::move(namespace_selector);
  return t;
}

class PodBuilder {
 public:
  explicit PodBuilder(std::string name = "pod") {
    p_.metadata.name = name;
    p_.metadata.uid = name;
  }
  PodBuilder& Namespace(std::string ns) {
    p_.metadata.namespace_ = std::move(ns);
    return *this;
  }
  PodBuilder& UID(std::string uid) {
    p_.metadata.uid = std::move(uid);
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
  PodBuilder& Labels(const api::StringMap& labels) {
    for (const auto& [k, v] : labels) p_.metadata.labels[k] = v;
    return *this;
  }
  PodBuilder& RequiredAffinity(api::PodAffinityTerm t) {
    Group(false).required_during_scheduling_ignored_during_execution.push_back(std::move(t));
    return *this;
  }
  PodBuilder& RequiredAntiAffinity(api::PodAffinityTerm t) {
    Group(true).required_during_scheduling_ignored_during_execution.push_back(std::move(t));
    return *this;
  }
  PodBuilder& PreferredAffinity(int32_t weight, api::PodAffinityTerm t) {
    Group(false).preferred_during_scheduling_ignored_during_execution.push_back({weight, std::move(t)});
    return *this;
  }
  PodBuilder& PreferredAntiAffinity(int32_t weight, api::PodAffinityTerm t) {
    Group(true).preferred_during_scheduling_ignored_during_execution.push_back({weight, std::move(t)});
    return *this;
  }
  std::shared_ptr<const api::Pod> Obj() const { return std::make_shared<const api::Pod>(p_); }

 private:
  api::PodAffinity& Group(bool anti) {
    if (!p_.spec.affinity) p_.spec.affinity.emplace();
    auto& g = anti ? p_.spec.affinity.Mutable().pod_anti_affinity : p_.spec.affinity.Mutable().pod_affinity;
    if (!g) g.emplace();
    return *g;
  }
  api::Pod p_;
};

inline std::shared_ptr<const api::Node> MakeNode(std::string name, api::StringMap labels) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = std::move(name);
  n->metadata.labels = std::move(labels);
  return n;
}

inline std::shared_ptr<const api::Namespace> MakeNamespace(std::string name, api::StringMap labels) {
  auto n = std::make_shared<api::Namespace>();
  n->metadata.name = std::move(name);
  n->metadata.labels = std::move(labels);
  return n;
}

}  // namespace ksched::scheduler::plugins::interpodaffinity::testing
