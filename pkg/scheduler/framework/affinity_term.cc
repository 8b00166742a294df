#include "pkg/scheduler/framework/affinity_term.h"

#include <utility>

namespace ksched::scheduler::framework {

bool AffinityTerm::Matches(const api::Pod& pod, const api::StringMap& ns_labels) const {
  if (namespaces.count(pod.metadata.namespace_) > 0 || namespace_selector.Matches(ns_labels)) {
    return selector.Matches(pod.metadata.labels);
  }
  return false;
}

util::StatusOr<AffinityTerm> NewAffinityTerm(const api::Pod& pod, const api::PodAffinityTerm& term) {
  util::StatusOr<api::Selector> selector = api::Selector::FromLabelSelector(term.label_selector);
  if (!selector.ok()) return selector.status();
  util::StatusOr<api::Selector> ns_selector = api::Selector::FromLabelSelector(term.namespace_selector);
  if (!ns_selector.ok()) return ns_selector.status();
  AffinityTerm out;
  out.selector = std::move(selector).value();
  out.namespace_selector = std::move(ns_selector).value();
  out.topology_key = term.topology_key;
  // Neither namespaces nor a namespace selector: the declaring pod's own
  // namespace.
  if (term.namespaces.empty() && !term.namespace_selector.has_value()) {
    out.namespaces.insert(pod.metadata.namespace_);
  } else {
    out.namespaces.insert(term.namespaces.begin(), term.namespaces.end());
  }
  return out;
}

util::StatusOr<std::vector<AffinityTerm>> ParseAffinityTerms(const api::Pod& pod,
                                                             const std::vector<api::PodAffinityTerm>& terms) {
  std::vector<AffinityTerm> out;
  out.reserve(terms.size());
  for (const api::PodAffinityTerm& t : terms) {
    util::StatusOr<AffinityTerm> parsed = NewAffinityTerm(pod, t);
    if (!parsed.ok()) return parsed.status();
    out.push_back(std::move(parsed).value());
  }
  return out;
}

util::StatusOr<std::vector<WeightedAffinityTerm>> ParseWeightedAffinityTerms(
    const api::Pod& pod, const std::vector<api::WeightedPodAffinityTerm>& terms) {
  std::vector<WeightedAffinityTerm> out;
  out.reserve(terms.size());
  for (const api::WeightedPodAffinityTerm& t : terms) {
    util::StatusOr<AffinityTerm> parsed = NewAffinityTerm(pod, t.pod_affinity_term);
    if (!parsed.ok()) return parsed.status();
    out.push_back(WeightedAffinityTerm{std::move(parsed).value(), t.weight});
  }
  return out;
}

}  // namespace ksched::scheduler::framework
