#include "pkg/scheduler/framework/preemption/pdb.h"

#include "pkg/api/labels.h"

namespace ksched::scheduler::framework::preemption {

PDBSplit FilterPodsWithPDBViolation(const std::vector<PodInfoPtr>& pods, const PDBList& pdbs) {
  // Selectors are compiled once; unusable ones stay nullopt (match nothing).
  std::vector<std::optional<api::Selector>> selectors;
  std::vector<int32_t> allowed;
  selectors.reserve(pdbs.size());
  allowed.reserve(pdbs.size());
  for (const auto& pdb : pdbs) {
    allowed.push_back(pdb->status.disruptions_allowed);
    std::optional<api::Selector> sel;
    if (pdb->spec.selector) {
      util::StatusOr<api::Selector> parsed = api::Selector::FromLabelSelector(*pdb->spec.selector);
      if (parsed.ok() && !parsed->Empty() && !parsed->IsNothing()) sel = std::move(parsed).value();
    }
    selectors.push_back(std::move(sel));
  }
  PDBSplit out;
  for (const PodInfoPtr& pi : pods) {
    const api::Pod& pod = pi->pod();
    bool violated = false;
    if (!pod.metadata.labels.empty()) {
      for (size_t i = 0; i < pdbs.size(); ++i) {
        if (pdbs[i]->metadata.namespace_ != pod.metadata.namespace_) continue;
        if (!selectors[i] || !selectors[i]->Matches(pod.metadata.labels)) continue;
        // Already processed by the API server: its disruption is counted.
        if (pdbs[i]->status.disrupted_pods.count(pod.metadata.name) > 0) continue;
        if (--allowed[i] < 0) violated = true;
      }
    }
    (violated ? out.violating : out.non_violating).push_back(pi);
  }
  return out;
}

}  // namespace ksched::scheduler::framework::preemption
