#include "pkg/scheduler/queue/cross_topology.h"

#include <algorithm>

#include "pkg/api/labels.h"

namespace ksched::scheduler::queue {
namespace {

bool TermMatches(const api::Pod& pod, const api::PodAffinityTerm& term, const api::Pod& assigned,
                 const api::StringMap& ns_labels) {
  bool ns_match = false;
  if (term.namespaces.empty() && !term.namespace_selector) {
    ns_match = assigned.metadata.namespace_ == pod.metadata.namespace_;
  } else {
    ns_match = std::find(term.namespaces.begin(), term.namespaces.end(), assigned.metadata.namespace_) !=
               term.namespaces.end();
    if (!ns_match && term.namespace_selector) {
      util::StatusOr<api::Selector> ns_sel = api::Selector::FromLabelSelector(*term.namespace_selector);
      ns_match = ns_sel.ok() && ns_sel->Matches(ns_labels);
    }
  }
  if (!ns_match) return false;
  util::StatusOr<api::Selector> sel = api::Selector::FromLabelSelector(term.label_selector);
  return sel.ok() && sel->Matches(assigned.metadata.labels);
}

}  // namespace

bool AnyRequiredAffinityTermMatches(const api::Pod& pod, const api::Pod& assigned,
                                    const std::optional<api::StringMap>& assigned_ns_labels) {
  if (!pod.spec.affinity || !pod.spec.affinity->pod_affinity) return false;
  static const api::StringMap kNoLabels;
  const api::StringMap& ns_labels = assigned_ns_labels ? *assigned_ns_labels : kNoLabels;
  for (const api::PodAffinityTerm& term :
       pod.spec.affinity->pod_affinity->required_during_scheduling_ignored_during_execution) {
    if (TermMatches(pod, term, assigned, ns_labels)) return true;
  }
  return false;
}

}  // namespace ksched::scheduler::queue
