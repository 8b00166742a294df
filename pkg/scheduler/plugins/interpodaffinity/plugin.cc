// Construction, namespace helpers, events and queueing hints.

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "pkg/config/args_as.h"
#include "pkg/scheduler/plugins/helper/event_objects.h"
#include "pkg/scheduler/plugins/interpodaffinity/inter_pod_affinity.h"
#include "pkg/scheduler/plugins/interpodaffinity/pair_counts.h"

namespace ksched::scheduler::plugins::interpodaffinity {

namespace {

using framework::ActionType;
using framework::AffinityTerm;
using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::EventObject;
using framework::QueueingHint;

constexpr int32_t kDefaultHardPodAffinityWeight = 1;

std::vector<AffinityTerm> RequiredTerms(const api::Pod& pod, bool anti, util::Status* error) {
  if (!pod.spec.affinity) return {};
  const auto& group = anti ? pod.spec.affinity->pod_anti_affinity : pod.spec.affinity->pod_affinity;
  if (!group) return {};
  auto parsed = framework::ParseAffinityTerms(pod, group->required_during_scheduling_ignored_during_execution);
  if (!parsed.ok()) {
    *error = parsed.status();
    return {};
  }
  return std::move(parsed).value();
}

const std::string* Label(const api::Node& node, const std::string& key) { return NodeLabel(node.metadata.labels, key); }

}  // namespace

InterPodAffinity::InterPodAffinity(const InterPodAffinityArgs& args, framework::Handle& handle)
    : hard_pod_affinity_weight_(args.hard_pod_affinity_weight.value_or(kDefaultHardPodAffinityWeight)),
      ignore_preferred_terms_of_existing_pods_(args.ignore_preferred_terms_of_existing_pods),
      enable_queueing_hints_(handle.Features().scheduler_queueing_hints),
      handle_(handle) {}

util::StatusOr<std::shared_ptr<InterPodAffinity>> New(const config::PluginArgs& args, framework::Handle& handle) {
  util::StatusOr<InterPodAffinityArgs> typed = config::ArgsAs<InterPodAffinityArgs>(args);
  if (!typed.ok()) return typed.status();
  return std::make_shared<InterPodAffinity>(*typed, handle);
}

void InterPodAffinity::MergeTermNamespaces(AffinityTerm& term) const {
  if (term.namespace_selector.Empty()) return;
  if (!term.namespace_selector.IsNothing()) {
    for (const auto& ns : handle_.Listers().Namespaces().List()) {
      if (term.namespace_selector.Matches(ns->metadata.labels)) term.namespaces.insert(ns->metadata.name);
    }
  }
  term.namespace_selector = api::Selector::Nothing();
}

api::StringMap InterPodAffinity::NamespaceLabels(const std::string& ns) const {
  std::shared_ptr<const api::Namespace> n = handle_.Listers().Namespaces().Get("", ns);
  return n == nullptr ? api::StringMap{} : n->metadata.labels.get();
}

util::StatusOr<std::vector<ClusterEventWithHint>> InterPodAffinity::EventsToRegister() const {
  // Without queueing hints the queue filters node additions through a
  // pre-check that hides not-yet-ready nodes; their taint updates stand in.
  ActionType node_actions = ActionType::kAdd | ActionType::kUpdateNodeLabel;
  if (!enable_queueing_hints_) node_actions |= ActionType::kUpdateNodeTaint;
  std::vector<ClusterEventWithHint> events;
  events.push_back(ClusterEventWithHint{
      ClusterEvent(framework::resource::kPod, ActionType::kAdd | ActionType::kUpdatePodLabel | ActionType::kDelete),
      [this](const api::Pod& pod, const EventObject& o, const EventObject& n) {
        return IsSchedulableAfterPodChange(pod, o, n);
      }});
  events.push_back(ClusterEventWithHint{
      ClusterEvent(framework::resource::kNode, node_actions),
      [this](const api::Pod& pod, const EventObject& o, const EventObject& n) {
        return IsSchedulableAfterNodeChange(pod, o, n);
      }});
  return events;
}

util::StatusOr<QueueingHint> InterPodAffinity::IsSchedulableAfterPodChange(const api::Pod& pod,
                                                                           const EventObject& old_obj,
                                                                           const EventObject& new_obj) const {
  const api::Pod* original = nullptr;
  const api::Pod* modified = nullptr;
  util::Status s = helper::AsObjects(old_obj, new_obj, &original, &modified, "Pod");
  if (!s.ok()) return s;
  // Only pods on nodes take part in (anti-)affinity.
  if ((modified != nullptr && modified->spec.node_name.empty()) ||
      (original != nullptr && original->spec.node_name.empty())) {
    return QueueingHint::kQueueSkip;
  }
  util::Status parse_error;
  std::vector<AffinityTerm> terms = RequiredTerms(pod, /*anti=*/false, &parse_error);
  std::vector<AffinityTerm> anti_terms = RequiredTerms(pod, /*anti=*/true, &parse_error);
  if (!parse_error.ok()) return parse_error;

  // A term of `pod` matches another pod in that pod's namespace; namespace
  // labels are looked up only for terms that select namespaces by label.
  auto matches = [this](const AffinityTerm& t, const api::Pod& p) {
    if (t.namespaces.count(p.metadata.namespace_) > 0 || t.namespace_selector.Empty()) {
      return t.selector.Matches(p.metadata.labels);
    }
    if (t.namespace_selector.IsNothing()) return false;
    return t.Matches(p, NamespaceLabels(p.metadata.namespace_));
  };
  auto matches_all = [&](const std::vector<AffinityTerm>& ts, const api::Pod& p) {
    if (ts.empty()) return false;
    for (const AffinityTerm& t : ts) {
      if (!matches(t, p)) return false;
    }
    return true;
  };

  if (original != nullptr && modified != nullptr) {
    // A single existing pod must satisfy all affinity terms at once.
    if (!matches_all(terms, *original) && matches_all(terms, *modified)) return QueueingHint::kQueue;
    // Matching any one anti-affinity term repels; stopping to match one may
    // free that term's domains.
    for (const AffinityTerm& t : anti_terms) {
      if (matches(t, *original) && !matches(t, *modified)) return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  }
  if (modified != nullptr) return matches_all(terms, *modified) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;

  // Deleted: it may have been repelled by the pod, or have repelled it.
  for (const AffinityTerm& t : anti_terms) {
    if (matches(t, *original)) return QueueingHint::kQueue;
  }
  std::vector<AffinityTerm> deleted_anti = RequiredTerms(*original, /*anti=*/true, &parse_error);
  if (!parse_error.ok()) return parse_error;
  if (!deleted_anti.empty()) {
    const api::StringMap ns_labels = NamespaceLabels(pod.metadata.namespace_);
    for (const AffinityTerm& t : deleted_anti) {
      if (t.Matches(pod, ns_labels)) return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> InterPodAffinity::IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                                            const EventObject& old_obj,
                                                                            const EventObject& new_obj) const {
  const api::Node* original = nullptr;
  const api::Node* modified = nullptr;
  util::Status s = helper::AsObjects(old_obj, new_obj, &original, &modified, "Node");
  if (!s.ok()) return s;
  if (modified == nullptr) return util::InvalidArgument("unexpected node deletion event");
  util::Status parse_error;
  std::vector<AffinityTerm> terms = RequiredTerms(pod, /*anti=*/false, &parse_error);
  std::vector<AffinityTerm> anti_terms = RequiredTerms(pod, /*anti=*/true, &parse_error);
  if (!parse_error.ok()) return parse_error;

  // Without required terms of its own the pod was rejected by existing pods'
  // anti-affinity (symmetry); a new node, or a node whose labels changed, may
  // lie outside their domains.
  if (terms.empty() && anti_terms.empty()) {
    if (original == nullptr || original->metadata.labels != modified->metadata.labels) return QueueingHint::kQueue;
    return QueueingHint::kQueueSkip;
  }
  // Affinity needs nodes in the domains of matching pods: a node that gains
  // the topology key, or moves to another domain, may be one.
  for (const AffinityTerm& t : terms) {
    const std::string* now = Label(*modified, t.topology_key);
    if (original == nullptr) {
      if (now != nullptr) return QueueingHint::kQueue;
      continue;
    }
    const std::string* before = Label(*original, t.topology_key);
    if (now != nullptr && (before == nullptr || *before != *now)) return QueueingHint::kQueue;
  }
  // Anti-affinity is satisfied by nodes outside the hated pods' domains: any
  // new node may be one (a node without the key always is), and so is a node
  // that loses the key or changes domain.
  for (const AffinityTerm& t : anti_terms) {
    if (original == nullptr) return QueueingHint::kQueue;
    const std::string* before = Label(*original, t.topology_key);
    const std::string* now = Label(*modified, t.topology_key);
    if (before != nullptr && (now == nullptr || *before != *now)) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

framework::Status InterPodAffinity::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  if (pod.spec.affinity && (pod.spec.affinity->pod_affinity || pod.spec.affinity->pod_anti_affinity)) {
    return framework::Status(framework::Code::kUnschedulable, "pods with InterPodAffinity are not signable");
  }
  // With the option, only pods with affinity terms are matched against
  // others, so the labels of a pod without terms do not matter.
  if (ignore_preferred_terms_of_existing_pods_) return framework::Status();
  out.push_back({framework::signer::kLabels, framework::StringMapSignature(pod.metadata.labels)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::interpodaffinity
